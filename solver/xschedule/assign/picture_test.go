package assign

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata round, and a generated
// one of 150 nodes (twice sight.Columns for its two resources: binned by
// two), and checks the picture contract: well-formed,
// viewBox, title, desc, the same bytes on two runs, one column ("node")
// per node (or bin), one "container" per container with one "notice" per
// container under notice (when drawn one by one), and one "unplaced" line
// per pending request (at most sight.MaxListed).
func TestPicture(t *testing.T) {
	generate := func() (any, error) { return Generate(3, map[string]string{"nodes": "150"}) }
	solvertest.EachPicture(t, Problem(), filepath.Join("..", "..", "..", "examples", "xschedule-assign.json"), generate, func(t *testing.T, raw []byte, res *Result, shape sighttest.Shape) {
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		var vs solver.Violations
		cl := readCluster(&req, &vs)
		conts := usedAfter(cl.conts, req.Usage, *res)
		notices := 0
		for _, c := range conts {
			if c.Notice != nil {
				notices++
			}
		}
		want := map[string]int{"node": len(cl.nodeList), "container": len(conts), "notice": notices,
			"unplaced": min(len(res.Pending), sight.MaxListed)}
		if strings.Contains(shape.Desc, "aggregated") {
			want = map[string]int{"node": len(cl.nodeList) / 2, "container": 0, "notice": 0}
		}
		for class, n := range want {
			if shape.Classes[class] != n {
				t.Errorf("%d elements of class %s, want %d", shape.Classes[class], class, n)
			}
		}
	})
}
