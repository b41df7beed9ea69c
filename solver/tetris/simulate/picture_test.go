package simulate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// Every stored answer draws as a well-formed SVG with a viewBox, title and
// desc, a utilisation line per resource, a CDF line per policy (two when
// compared with the fair policy), the same bytes twice, under 300 KB.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../../..", "tetris-simulate", picture, func(t *testing.T, _ sighttest.Case, res *Result, s sighttest.Shape) {
		cdfs := 1
		if res.Fair != nil {
			cdfs = 2
		}
		if got := s.Classes["cdf-line"]; got != cdfs {
			t.Errorf("%d CDF lines, want %d", got, cdfs)
		}
		if got, want := s.Classes["util-line"], min(len(resourcesByUse(res)), maxResources); got != want || want == 0 {
			t.Errorf("%d utilisation lines, want %d", got, want)
		}
	})
}

// A long run (5,000 bins, 12 resources, 20,000 jobs, over-allocated cpu)
// draws 385 steps (of 13 bins each) of the 8 most used resources, a dashed demand line for
// cpu alone, CDFs of at most 500 points, and says what it merged.
func TestPictureAggregates(t *testing.T) {
	res := Result{Policy: "tetris", Fair: &FairOut{Policy: "drf"}}
	for i := range 5000 {
		b := UtilBin{Start: float64(i), End: float64(i + 1), Used: map[string]float64{}, Demanded: map[string]float64{}}
		for k := range 12 {
			r := fmt.Sprintf("r%02d", k)
			b.Used[r], b.Demanded[r] = float64(k)/12, float64(k)/12
		}
		b.Demanded["r11"] = 1.5
		res.Utilization = append(res.Utilization, b)
	}
	for i := range 20000 {
		fd := float64(i%700) + 1
		res.Jobs = append(res.Jobs, JobOut{ID: fmt.Sprint(i), Duration: float64(i % 1000), FairDuration: &fd})
	}
	rs, _ := json.Marshal(map[string]any{"result": res})
	svg, err := picture(nil, rs)
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, svg)
	want := map[string]int{"util-line": maxResources, "demand-line": 1, "cdf-line": 2}
	for class, n := range want {
		if s.Classes[class] != n {
			t.Errorf("%d %q, want %d", s.Classes[class], class, n)
		}
	}
	for _, w := range []string{"5000 time bins are merged into 385", "4 least used resources"} {
		if !strings.Contains(s.Desc, w) {
			t.Errorf("desc %q lacks %q", s.Desc, w)
		}
	}
	if s.Classes["note"] == 0 || !strings.Contains(s.Text, "merged") {
		t.Errorf("the picture's text does not say what it merged:\n%s", s.Text)
	}
	if len(svg) > 300_000 {
		t.Errorf("SVG is %d bytes", len(svg))
	}
}

// The example solved twice through the Runner draws the same bytes (the
// picture depends on nothing that varies between runs, elapsed_ms
// included), well-formed and under the size bound.
func TestPictureRuns(t *testing.T) {
	solvertest.PictureFile(t, Problem(), "../../../examples/tetris-simulate.json")
}
