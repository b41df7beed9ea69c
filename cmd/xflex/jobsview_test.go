package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/jobs"
)

// jobsOn runs `xflex jobs ARGS` with stdout w (a buffer is a pipe, a
// fakeTerminal a terminal) and returns what it printed and the exit code.
func jobsOn(t *testing.T, w io.Writer, args ...string) (string, int) {
	t.Helper()
	var errb strings.Builder
	code := jobsCommand(context.Background(), args, strings.NewReader(""), w, &errb)
	var out string
	switch w := w.(type) {
	case *fakeTerminal:
		_, out = w.rows()
	case *strings.Builder:
		out = w.String()
	}
	if code != 0 {
		t.Logf("xflex jobs %v: exit %d: %s %s", args, code, out, errb.String())
	}
	return out, code
}

// relTimes are the relative times of a table ("(3s ago)", "(in 24h0m0s)"),
// which move between two calls.
var relTimes = regexp.MustCompile(`\([^)]*\)`)

// TestJobsOutputModes: status, list, wait and submit --wait print the
// server's JSON to a pipe or with --json, and a table on a terminal; wait
// and submit --wait print what status prints once the job has ended.
func TestJobsOutputModes(t *testing.T) {
	url := jobsServer(t)
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(`{"ms":20,"value":3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := []string{"--server", url, "--interval", "20ms"}
	piped := func(args ...string) string {
		out, _ := jobsOn(t, &strings.Builder{}, args...)
		return out
	}
	onTerm := func(args ...string) string {
		out, _ := jobsOn(t, &fakeTerminal{width: 100}, args...)
		return relTimes.ReplaceAllString(out, "()")
	}
	submitted := piped(append([]string{"submit", "--wait"}, append(srv, "test/sleep", in)...)...)
	var j jobs.Job
	if err := json.Unmarshal([]byte(submitted), &j); err != nil || j.State != jobs.StateSucceeded {
		t.Fatalf("submit --wait to a pipe printed %q (%v), want the finished job's JSON", submitted, err)
	}
	status := piped("status", "--server", url, j.ID)
	if waited := piped(append([]string{"wait", j.ID}, srv...)...); waited != status || submitted != status {
		t.Errorf("to a pipe, status, wait and submit --wait differ:\n%s\n%s\n%s", status, waited, submitted)
	}
	if got := onTerm("status", "--json", "--server", url, j.ID); got != status {
		t.Errorf("status --json on a terminal %q, want the JSON %q", got, status)
	}

	table := onTerm("status", "--server", url, j.ID)
	for _, want := range []string{"id         " + j.ID, "state      succeeded", "problem    test/sleep", "kind       solve",
		"objective  3", "result     xflex jobs result " + j.ID} {
		if !strings.Contains(table, want+"\n") {
			t.Errorf("status table lacks %q:\n%s", want, table)
		}
	}
	if waited := onTerm(append([]string{"wait", j.ID, "--quiet"}, srv...)...); waited != table {
		t.Errorf("wait on a terminal printed\n%s\nstatus printed\n%s", waited, table)
	}
	termSubmit := onTerm(append([]string{"submit", "--wait", "--quiet"}, append(srv, "test/sleep", in)...)...)
	if !strings.Contains(termSubmit, "state      succeeded\n") || strings.Contains(termSubmit, "{") {
		t.Errorf("submit --wait on a terminal printed\n%s", termSubmit)
	}

	list := onTerm("list", "--server", url)
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID PROBLEM KIND STATE PROGRESS CREATED RAN" ||
		!slices.ContainsFunc(lines[1:], func(l string) bool {
			return strings.HasPrefix(strings.Join(strings.Fields(l), " "), j.ID+" test/sleep solve succeeded 100% ")
		}) {
		t.Errorf("list table:\n%s", list)
	}
	var l jobs.JobList
	if err := json.Unmarshal([]byte(piped("list", "--server", url)), &l); err != nil || len(l.Jobs) != 2 {
		t.Errorf("list to a pipe: %d jobs (%v), want the JSON of 2", len(l.Jobs), err)
	}
	if got := onTerm("list", "--server", url, "--limit", "1"); !strings.Contains(got, "more: xflex jobs list --cursor ") {
		t.Errorf("a first page of one job does not say how to get the next:\n%s", got)
	}
}
