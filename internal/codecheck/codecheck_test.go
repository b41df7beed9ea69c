package codecheck

import (
	"strings"
	"testing"
)

// exceptions are the functions allowed over MaxLines or MaxComplexity,
// each with the reason it may still break them. The test fails on a listed
// function that is back within the limits (or gone), so the list only
// shrinks. It is empty: every function is within the limits.
var exceptions = map[string]string{}

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
