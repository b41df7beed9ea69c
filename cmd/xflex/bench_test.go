package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/xflex/xflex/benchmarks"
)

// TestBenchReports: `xflex bench NAME` runs the named report with its
// scale, refuses an unknown name with the list, and a binary built with
// -tags nobench (no reports) names the tag instead.
func TestBenchReports(t *testing.T) {
	var got string
	reports := []benchmarks.Report{{Problem: "demo", Run: func(_ context.Context, w io.Writer, scale string) error {
		got = scale
		_, err := io.WriteString(w, "table\n")
		return err
	}}}
	var out, errb bytes.Buffer
	if rc := runBench(context.Background(), reports, []string{"demo", "--scale", "full"}, &out, &errb); rc != 0 || got != "full" || out.String() != "table\n" {
		t.Errorf("demo: rc %d, scale %q, out %q, err %q", rc, got, out.String(), errb.String())
	}
	errb.Reset()
	if rc := runBench(context.Background(), reports, []string{"nope"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "have: demo") {
		t.Errorf("unknown: rc %d, err %q", rc, errb.String())
	}
	errb.Reset()
	if rc := runBench(context.Background(), nil, []string{"demo"}, &out, &errb); rc != 2 || errb.String() != noBenchMessage {
		t.Errorf("nobench: rc %d, err %q", rc, errb.String())
	}
	if len(benchReports()) == 0 {
		t.Error("the default build has no benchmark reports")
	}
}
