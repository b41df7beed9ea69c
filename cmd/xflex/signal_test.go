package main

import (
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// signalWait bounds how long the process may take to react to a signal:
// generous for a loaded 2-core CI machine, far below the stdin read the
// process is blocked in (which never ends by itself).
const signalWait = 10 * time.Second

// TestSecondSignalEndsSolve: the first SIGTERM cancels the context, which
// `xflex solve -` blocked reading stdin does not watch; the second must end
// the process at once (it used to be swallowed: the handler stayed
// installed until run returned).
func TestSecondSignalEndsSolve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "xflex")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build xflex: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "solve", "tetris-assign", "-")
	stdin, err := cmd.StdinPipe() // never written or closed: the read blocks
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(300 * time.Millisecond) // let main install its handler
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the first SIGTERM ended the blocked read: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("exit: %v", err)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("exit %v, want death by SIGTERM", err)
		}
	case <-time.After(signalWait):
		_ = cmd.Process.Kill()
		t.Fatal("the second SIGTERM did not end the process")
	}
}
