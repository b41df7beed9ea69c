package xselect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata answer and checks the
// picture contract: well-formed, viewBox, title, desc, the same bytes on
// two runs, and one column ("node") per node, one "container" per placed
// container and one "unplaced" line per application and shape short of
// ⌈λ·c⌉.
func TestPicture(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	files = append(files, filepath.Join("..", "..", "examples", "xselect.json"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, resp, shape := solvertest.Picture(t, Problem(), raw)
			var r struct{ Result Result }
			if err := json.Unmarshal(resp, &r); err != nil {
				t.Fatal(err)
			}
			containers := 0
			for _, n := range r.Result.Nodes {
				containers += len(n.Containers)
			}
			want := map[string]int{"node": len(r.Result.Nodes), "container": containers, "unplaced": len(unplaced(r.Result.Apps))}
			if len(r.Result.Nodes) > sight.Columns(len(r.Result.Resources)) || containers*len(r.Result.Resources) > sight.MaxItemRects {
				t.Fatalf("example too large to be drawn item by item; test the aggregation in sight")
			}
			for class, n := range want {
				if shape.Classes[class] != n {
					t.Errorf("%d elements of class %s, want %d", shape.Classes[class], class, n)
				}
			}
		})
	}
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
