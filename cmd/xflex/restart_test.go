package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRollingRestart is a rolling restart without Kubernetes: a client
// hammers /readyz and POST /v1/cmmf on fresh connections while the server
// gets SIGTERM. It must see /readyz answer 503 (twice at least: a load
// balancer probing it has the grace to take the replica out) before any
// connection is refused, and every request the server accepted must
// succeed; the server exits 0. A connection the kernel completed but the
// server never accepted (in the listen backlog when the listener closes)
// ends without a byte of answer (EOF or reset): it counts as refused, as
// a client may resend it anywhere.
func TestRollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	body, err := os.ReadFile(filepath.Join("..", "..", "examples", "cmmf.json"))
	if err != nil {
		t.Fatal(err)
	}
	cmd, url := startXflex(t, buildXflex(t), "--addr", "127.0.0.1:0", "--shutdown-grace", "2s",
		"--store", "sqlite:"+filepath.Join(t.TempDir(), "xflex.db"))
	done := make(chan error, 1)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var events []string // in the order the client saw them
	first := map[string]int{}
	note := func(e string) {
		if _, ok := first[e]; !ok {
			first[e] = len(events)
		}
		events = append(events, e)
	}
	for i := 0; ; i++ {
		if i == 20 { // serving for a while: the restart begins
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
		}
		ready, err := hc.Get(url + "/readyz")
		if refused(err) {
			note("refused")
			break
		}
		if err != nil {
			t.Fatalf("GET /readyz failed on an accepted connection: %v", err)
		}
		_, _ = io.Copy(io.Discard, ready.Body)
		ready.Body.Close()
		note(fmt.Sprint("readyz ", ready.StatusCode))
		resp, err := hc.Post(url+"/v1/cmmf", "application/json", bytes.NewReader(body))
		if refused(err) {
			note("refused")
			break
		}
		if err != nil {
			t.Fatalf("POST /v1/cmmf failed on an accepted connection: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /v1/cmmf: %d during the restart", resp.StatusCode)
		}
		note("solve 200")
	}
	if err := <-done; err != nil {
		t.Errorf("xflex serve after SIGTERM: %v, want exit 0", err)
	}
	n503 := 0
	for _, e := range events[:first["refused"]] {
		if e == "readyz 503" {
			n503++
		}
	}
	if n503 < 2 {
		t.Errorf("no /readyz 503 before the first refused connection: %s", summary(events))
	}
	if first["readyz 200"] != 0 || first["solve 200"] != 1 {
		t.Errorf("the server was not ready before the restart: %s", summary(events))
	}
	t.Logf("the client saw: %s", summary(events))
}

// refused reports whether err is a refused connection (nothing listens)
// or one closed before any answer when the listener closed.
func refused(err error) bool {
	return err != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF))
}

// summary counts each event, in the order each first happened.
func summary(events []string) string {
	var order []string
	count := map[string]int{}
	for _, e := range events {
		if count[e] == 0 {
			order = append(order, e)
		}
		count[e]++
	}
	var b strings.Builder
	for _, e := range order {
		fmt.Fprintf(&b, "%s x%d; ", e, count[e])
	}
	return b.String()
}
