package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/xflex/xflex/benchmarks"
)

// TestBenchUnknownReport: `xflex bench NAME` with no such report lists the
// reports there are; a binary built with -tags nobench (no reports) names
// the build tag instead; the default build has the reports.
func TestBenchUnknownReport(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := cmdBench(context.Background(), []string{"nope"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), `no report for "nope"; have: cmmf,`) {
		t.Errorf("unknown: rc %d, err %q", rc, errb.String())
	}
	if got := unknownReport("tetris", nil); !strings.Contains(got, "-tags nobench") {
		t.Errorf("nobench: %q", got)
	}
	if got := unknownReport("x", []benchmarks.Report{{Problem: "cmmf"}, {Problem: "tetris"}}); got != "xflex bench: no report for \"x\"; have: cmmf, tetris\n" {
		t.Errorf("listed: %q", got)
	}
	if got := unknownReport("tetrs", []benchmarks.Report{{Problem: "cmmf"}, {Problem: "tetris"}}); !strings.Contains(got, "did you mean tetris?") {
		t.Errorf("misspelt: %q", got)
	}
}
