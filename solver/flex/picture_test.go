package flex

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPicture draws every example and testdata answer, and a generated
// one of 1,000 jobs, and checks the picture contract: well-formed,
// viewBox, title, desc, the same bytes on two runs, three panels (Flex,
// FIFO, Fair) with one "gantt-row" and one "completion" per job each, or
// past sight.MaxRows jobs one panel of binned rows.
func TestPicture(t *testing.T) {
	generate := func() (any, error) { return Generate(2, map[string]string{"jobs": "1000"}) }
	solvertest.EachPicture(t, Problem(), filepath.Join("..", "..", "examples", "flex.json"), generate, func(t *testing.T, _ []byte, res *pictureResult, shape sighttest.Shape) {
		jobs := len(res.Ordering)
		want := map[string]int{"panel": 3, "gantt-row": 3 * jobs, "completion": 3 * jobs}
		if jobs > sight.MaxRows {
			rows := (jobs + 3) / 4 // 1,000 jobs: bins of 4
			want = map[string]int{"panel": 1, "gantt-row": rows, "completion": rows}
			if !strings.Contains(shape.Desc, "aggregated: 1000 jobs in 250 rows") || !strings.Contains(shape.Desc, "FIFO") {
				t.Errorf("desc %q does not say how it aggregates and why FIFO and Fair are missing", shape.Desc)
			}
			if b := shape.Classes["bar"]; b == 0 || b > rows {
				t.Errorf("%d bars for %d rows (one per row with listed intervals)", b, rows)
			}
		}
		for class, n := range want {
			if shape.Classes[class] != n {
				t.Errorf("%d elements of class %s, want %d", shape.Classes[class], class, n)
			}
		}
	})
}

// TestPictureBaselines checks that the FIFO and Fair schedules the
// picture recomputes are the ones the response's baselines measure: the
// same objectives.
func TestPictureBaselines(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "flex.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, xe := solvertest.Run(t, Problem(), raw)
	if xe != nil {
		t.Fatal(xe)
	}
	var r struct{ Result pictureResult }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	row := map[string]int{}
	for i, id := range r.Result.Ordering {
		row[id] = i
	}
	panels, _, err := baselinePanels(&req, r.Result, row)
	if err != nil || len(panels) != 2 {
		t.Fatalf("%d panels, %v", len(panels), err)
	}
	in, _ := Build(&req)
	for i, want := range []*float64{r.Result.Baselines.FIFO.Objective, r.Result.Baselines.Fair.Objective} {
		comp := make([]float64, in.N())
		for j, job := range in.Jobs {
			comp[j] = panels[i].Ends[row[job.ID]]
		}
		if got := in.Objective(comp); math.Abs(got-*want) > 1e-9*math.Max(1, *want) {
			t.Errorf("%s: recomputed objective %v, response %v", panels[i].Title, got, *want)
		}
	}
}
