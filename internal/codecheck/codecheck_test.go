package codecheck

import (
	"strings"
	"testing"
)

// Why a function may still break the limits. Each exception names one of
// these; an exception goes when its function is split.
const (
	// The fast schema validator dispatches on every keyword of every
	// request node, and validation is most of a small request's time: a
	// split goes in its own change with the schemas benchmarks before and
	// after.
	reasonValidator = "the schema validator's keyword dispatch, on every request's hot path; split with its benchmarks in its own change"
)

// exceptions are the functions allowed over MaxLines or MaxComplexity, with
// the reason. The test fails on a listed function that is back within the
// limits (or gone), so the list only shrinks.
var exceptions = map[string]string{
	"schemas.(*fastState).evalNode": reasonValidator,
}

// TestFunctionSize holds every non-test function of the module to MaxLines
// lines and cyclomatic MaxComplexity, except those listed above.
func TestFunctionSize(t *testing.T) {
	funcs, err := Measure("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range funcs {
		seen[f.Name] = true
		_, excepted := exceptions[f.Name]
		switch {
		case f.TooBig() && !excepted:
			t.Errorf("%v: over the limits of %d lines and cyclomatic %d; split it into named steps", f, MaxLines, MaxComplexity)
		case !f.TooBig() && excepted:
			t.Errorf("%v: within the limits now; remove it from the exceptions", f)
		}
	}
	for name := range exceptions {
		if !seen[name] {
			t.Errorf("exception %s names no function; remove it", name)
		}
	}
}

// TestMeasure checks the measurements on a sample package: lines from func
// to closing brace, gocyclo's count, methods named with their receiver, and
// test files, generated files and testdata left out.
func TestMeasure(t *testing.T) {
	funcs, err := Measure("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	want := []Func{
		{Name: "(*T).M", Pos: "sample.go:126", Lines: 1, Complexity: 1},
		{Name: "Branchy", Pos: "sample.go:107", Lines: 15, Complexity: 6},
		{Name: "Long", Pos: "sample.go:4", Lines: 101, Complexity: 1},
	}
	if len(funcs) != len(want) {
		t.Fatalf("got %v, want %v", funcs, want)
	}
	for i := range want {
		if funcs[i] != want[i] {
			t.Errorf("function %d: got %v, want %v", i, funcs[i], want[i])
		}
	}
	if !funcs[2].TooBig() || funcs[1].TooBig() {
		t.Errorf("TooBig: Long (101 lines) must be too big and Branchy not")
	}
	for _, f := range funcs {
		if strings.Contains(f.Name, "Skipped") || strings.Contains(f.Name, "InTest") || strings.Contains(f.Name, "Generated") {
			t.Errorf("%v should have been left out", f)
		}
	}
}
