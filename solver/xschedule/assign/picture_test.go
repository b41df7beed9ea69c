package assign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata round, and a generated
// one of 300 nodes, and checks the picture contract: well-formed,
// viewBox, title, desc, the same bytes on two runs, one column ("node")
// per node (or bin), one "container" per container with one "notice" per
// container under notice (when drawn one by one), and one "unplaced" line
// per pending request (at most sight.MaxListed).
func TestPicture(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	files = append(files, filepath.Join("..", "..", "..", "examples", "xschedule-assign.json"), "generated")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw := readOrGenerate(t, f)
			_, resp, shape := solvertest.Picture(t, Problem(), raw)
			var r struct{ Result Result }
			if err := json.Unmarshal(resp, &r); err != nil {
				t.Fatal(err)
			}
			var req Request
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatal(err)
			}
			var vs solver.Violations
			cl := readCluster(&req, &vs)
			conts := usedAfter(cl.conts, req.Usage, r.Result)
			notices := 0
			for _, c := range conts {
				if c.Notice != nil {
					notices++
				}
			}
			want := map[string]int{"node": len(cl.nodeList), "container": len(conts), "notice": notices,
				"unplaced": min(len(r.Result.Pending), sight.MaxListed)}
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
}

// readOrGenerate reads a request file, or for "generated" makes a round
// of 300 nodes (twice sight.Columns for its two resources: binned by two).
func readOrGenerate(t *testing.T, f string) []byte {
	t.Helper()
	if f != "generated" {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	inst, err := Generate(3, map[string]string{"nodes": "300"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(inst)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
