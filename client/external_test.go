package client

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver/problems"
)

// TestExternalModule: a program in a module of its own (a temporary
// directory whose go.mod requires github.com/xflex/xflex, replaced by
// this checkout) imports the client package, which an internal package
// could not be, and solves, draws and submits every example against a
// real server (testdata/external/main.go.txt; its output is logged).
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "external", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	root, dir := userModule(t, map[string][]byte{"main.go": src})
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "XFLEX_SERVER="+ts.URL, "XFLEX_TOKEN=")
	for _, args := range [][]string{{"mod", "tidy"}, {"run", ".", filepath.Join(root, "examples")}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the external module: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s:\n%s", strings.Join(args, " "), out)
		if args[0] == "run" && (strings.Count(string(out), " svg=") != len(problems.All()) || !strings.Contains(string(out), "job succeeded")) {
			t.Errorf("the external program did not solve, draw and submit every example:\n%s", out)
		}
	}
}

// userModule writes a module of its own in a temporary directory (its
// go.mod requires github.com/xflex/xflex, replaced by this checkout, with
// the checkout's go.sum) holding files; it returns the checkout's root
// and the directory.
func userModule(t *testing.T, files map[string][]byte) (string, string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["go.mod"] = []byte("module example.com/xflexuser\n\ngo " + goVersion(t, root) + "\n\n" +
		"require github.com/xflex/xflex v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/xflex/xflex => " + root + "\n")
	if files["go.sum"], err = os.ReadFile(filepath.Join(root, "go.sum")); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, dir
}

// goVersion is the go directive of the checkout's go.mod.
func goVersion(t *testing.T, root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no go directive in go.mod")
	return ""
}
