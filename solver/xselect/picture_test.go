package xselect

import (
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata answer and checks the
// picture contract: well-formed, viewBox, title, desc, the same bytes on
// two runs, and one column ("node") per node, one "container" per placed
// container and one "unplaced" line per application and shape short of
// ⌈λ·c⌉.
func TestPicture(t *testing.T) {
	solvertest.EachPicture(t, Problem(), filepath.Join("..", "..", "examples", "xselect.json"), nil, func(t *testing.T, _ []byte, res *Result, shape sighttest.Shape) {
		containers := 0
		for _, n := range res.Nodes {
			containers += len(n.Containers)
		}
		want := map[string]int{"node": len(res.Nodes), "container": containers, "unplaced": len(unplaced(res.Apps))}
		if len(res.Nodes) > sight.Columns(len(res.Resources)) || containers*len(res.Resources) > sight.MaxItemRects {
			t.Fatalf("example too large to be drawn item by item; test the aggregation in sight")
		}
		for class, n := range want {
			if shape.Classes[class] != n {
				t.Errorf("%d elements of class %s, want %d", shape.Classes[class], class, n)
			}
		}
	})
}

func TestUnplaced(t *testing.T) {
	apps := []AppResult{
		{Name: "a", Required: map[string]int64{"s": 3, "m": 1}, Placed: map[string]int64{"s": 1, "m": 1}},
		{Name: "b", Required: map[string]int64{"x": 2}, Placed: map[string]int64{}},
	}
	got := unplaced(apps)
	if len(got) != 2 || got[0] != "a: 2 × s (required 3, placed 1)" || got[1] != "b: 2 × x (required 2, placed 0)" {
		t.Errorf("unplaced = %q", got)
	}
}
