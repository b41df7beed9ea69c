package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/jobs"
)

// TestDidYouMean: a slip in a command, a jobs subcommand or a problem
// name is a usage error that names the closest one; nothing close names
// none.
func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "cmf", "-"}, "did you mean cmmf?"},
		{[]string{"solve", "tetris-asign", "-"}, "did you mean tetris-assign?"},
		{[]string{"gen", "xselct"}, "did you mean xselect?"},
		{[]string{"slove"}, "did you mean solve?"},
		{[]string{"jobs", "subimt"}, "did you mean submit?"},
		{[]string{"jobs", "lst"}, "did you mean list?"},
		{[]string{"bench", "fairshar"}, "did you mean fairshare?"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("xflex %v: exit %d, %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if _, errs, _ := runCLI(t, "solve", "qqqqqqq", "-"); strings.Contains(errs, "did you mean") {
		t.Errorf("a far name got a suggestion: %s", errs)
	}
}

// TestGlobalFlagsAnywhere: the jobs flags may come before the
// subcommand, and a command's flags before the command.
func TestGlobalFlagsAnywhere(t *testing.T) {
	server := jobsServer(t)
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(`{"ms":0,"value":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "jobs", "--server", server, "submit", "test/sleep", in)
	var j jobs.Job
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.ID == "" {
		t.Fatalf("jobs --server URL submit: exit %d: %s %s", code, out, errs)
	}
	if out, errs, code := runCLI(t, "--server="+server, "jobs", "status", j.ID); code != 0 || !strings.Contains(out, j.ID) {
		t.Errorf("xflex --server=URL jobs status: exit %d: %s %s", code, out, errs)
	}
	if out, errs, code := runCLI(t, "--quiet", "solve", "cmmf", filepath.Join("..", "..", "examples", "cmmf.json")); code != 0 ||
		!strings.Contains(out, `"optimal"`) {
		t.Errorf("xflex --quiet solve: exit %d: %.200s %s", code, out, errs)
	}
}

// TestSolveChecksOutputFirst: an --svg path that cannot be written is a
// usage error (exit 2) found before the solve: nothing is printed, and a
// writable path that did not exist is not left behind by the check.
func TestSolveChecksOutputFirst(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "cmmf.json")
	out, errs, code := runCLI(t, "solve", "cmmf", example, "--svg", filepath.Join(t.TempDir(), "no", "dir", "x.svg"))
	if code != 2 || out != "" || !strings.Contains(errs, "--svg") {
		t.Errorf("unwritable --svg: exit %d, stdout %.80q, stderr %q; want 2 before any answer", code, out, errs)
	}
	svg := filepath.Join(t.TempDir(), "x.svg")
	if _, errs, code := runCLI(t, "solve", "--quiet", "cmmf", example, "--svg", svg); code != 0 {
		t.Fatalf("writable --svg: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("the picture: %v %.40q", err, b)
	}
}

// TestParseErrorLocated: a truncated request's 400 says the line and
// column where it ends; so does jobs submit's refusal of a bad file.
func TestParseErrorLocated(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"users\": [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "solve", "cmmf", bad)
	if code != 1 || !strings.Contains(out, "unexpected EOF at line 3, column 1") {
		t.Errorf("solve a truncated file: exit %d: %s", code, out)
	}
	_, errs, code := runCLI(t, "jobs", "submit", "--server", "http://127.0.0.1:1", "cmmf", bad)
	if code != 2 || !strings.Contains(errs, "line 3, column 1") {
		t.Errorf("jobs submit a truncated file: exit %d: %s", code, errs)
	}
}

// TestJobsSubmitDidYouMean: a job of a misspelt problem is refused by the
// server (exit 1, its document printed) and the CLI names the closest.
func TestJobsSubmitDidYouMean(t *testing.T) {
	runner, err := newRunner(0)
	if err != nil {
		t.Fatal(err)
	}
	server := problemsJobsServer(t, runner)
	out, errs, code := runCLI(t, "jobs", "submit", "--server", server.URL, "cmf", filepath.Join("..", "..", "examples", "cmmf.json"))
	if code != 1 || !strings.Contains(out, "unknown problem") || !strings.Contains(errs, "did you mean cmmf?") {
		t.Errorf("jobs submit cmf: exit %d: %s %s", code, out, errs)
	}
}
