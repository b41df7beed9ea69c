package repro

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestReproQuick recomputes the quick claims and fails when a verdict
// differs from the committed docs/REPRODUCTION.md (regenerate it with
// `xflex bench repro`), or when a quick claim is missing from it.
func TestReproQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick reproduction (about a minute on two loaded cores)")
	}
	d, err := Build(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root(), "docs", "REPRODUCTION.md"))
	if err != nil {
		t.Fatal(err)
	}
	committed := Verdicts(string(raw))
	for _, c := range d.Claims {
		if !c.Quick {
			continue
		}
		got, ok := committed[[2]string{c.Paper, cell(c.Claim)}]
		if !ok {
			t.Errorf("%s: %q is not in docs/REPRODUCTION.md: run xflex bench repro", c.Paper, c.Claim)
			continue
		}
		if got != c.Verdict {
			t.Errorf("%s: %q: verdict %s now, %s in docs/REPRODUCTION.md: run xflex bench repro", c.Paper, c.Claim, c.Verdict, got)
		}
	}
}

// TestVerdictsParse: the committed document's verdict column is read
// back claim by claim.
func TestVerdictsParse(t *testing.T) {
	d := &Doc{Claims: []Claim{{Paper: "Flex", Claim: "a | b", Verdict: Holds, Quick: true}, {Paper: "Tetris", Claim: "c", Verdict: Fails}}}
	v := Verdicts(d.Markdown())
	if v[[2]string{"Flex", `a \| b`}] != Holds || v[[2]string{"Tetris", "c"}] != Fails || len(v) != 2 {
		t.Fatalf("verdicts %v", v)
	}
}
