package assign

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata round and checks the
// picture contract: well-formed, viewBox, title, desc, the same bytes on
// two runs, one column ("node") per machine, one "container" per placed
// task and one "unplaced" line per unplaced task (at most sight.MaxListed).
func TestPicture(t *testing.T) {
	solvertest.EachPicture(t, Problem(), filepath.Join("..", "..", "..", "examples", "tetris-assign.json"), nil, func(t *testing.T, raw []byte, res *Result, shape sighttest.Shape) {
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"node": len(req.Machines), "unplaced": min(len(res.Unplaced), sight.MaxListed)}
		if !strings.Contains(shape.Desc, "aggregated") {
			want["container"] = len(res.Assignments)
		}
		for class, n := range want {
			if shape.Classes[class] != n {
				t.Errorf("%d elements of class %s, want %d", shape.Classes[class], class, n)
			}
		}
	})
}

// TestPictureAggregates draws a generated round of 10,000 tasks on 1,000
// machines: the machines are binned (the picture says so) and the SVG
// stays small.
func TestPictureAggregates(t *testing.T) {
	if testing.Short() {
		t.Skip("solves a 10,000-task round")
	}
	inst, err := Generate(1, map[string]string{"machines": "1000", "tasks": "10000", "jobs": "40"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(inst)
	if err != nil {
		t.Fatal(err)
	}
	svg, _, shape := solvertest.Picture(t, Problem(), raw)
	cols := sight.Columns(len(resourceNames(inst.(*Request).Machines)))
	if shape.Classes["node"] > cols || shape.Classes["container"] != 0 || !strings.Contains(shape.Desc, "aggregated: 1000 machines") {
		t.Errorf("%d columns (at most %d), %d containers, desc %q", shape.Classes["node"], cols, shape.Classes["container"], shape.Desc)
	}
	t.Logf("%d bytes", len(svg))
}
