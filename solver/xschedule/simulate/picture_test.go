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
// desc: two utilisation panels with a layer per application, per pair an
// imbalance curve with its centre line and two bound lines, a node column
// per node; the same bytes twice; under 300 KB.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../../..", "xschedule-simulate", picture, func(t *testing.T, _ sighttest.Case, res *Result, s sighttest.Shape) {
		pairs := min(len(res.Imbalance), maxPairs)
		layers := min(len(res.Apps), 8)
		if len(res.Apps) > 8 {
			layers++
		}
		want := map[string]int{"util-area": 2 * layers, "imbalance-line": pairs, "centre-line": pairs,
			"bound-line": 2 * pairs, "red-zone": 2 * pairs, "node": len(res.Packing)}
		for class, n := range want {
			if s.Classes[class] != n {
				t.Errorf("%d %q, want %d", s.Classes[class], class, n)
			}
		}
	})
}

// Twelve applications with 66 pairs and long series draw 8 named layers
// and "other", the 4 deepest pairs, sampled curves, and say so.
func TestPictureAggregates(t *testing.T) {
	var res Result
	res.Until = 1000
	var apps []string
	for i := range 12 {
		a := fmt.Sprintf("app%02d", i)
		apps = append(apps, a)
		res.Apps = append(res.Apps, AppTotals{App: a, Used: float64(i)})
	}
	for i := range 2000 {
		p := UtilPoint{T: float64(i) / 2, ByApp: map[string]float64{}}
		for _, a := range apps {
			p.ByApp[a] = 1.0 / 12
		}
		res.Utilization.Points = append(res.Utilization.Points, p)
	}
	res.Baselines.DRF = res.Run
	for i := range apps {
		for j := i + 1; j < len(apps); j++ {
			ps := PairSeries{A: apps[i], B: apps[j], Bound: 1}
			for k := range 1000 {
				ps.Points = append(ps.Points, PairPoint{T: float64(k), Share: float64((i + j) * (k % 7)), Slope: 0.5})
			}
			res.Imbalance = append(res.Imbalance, ps)
		}
	}
	rs, _ := json.Marshal(map[string]any{"result": res})
	svg, err := picture([]byte(`{"apps":[],"requests":[]}`), rs)
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, svg)
	want := map[string]int{"util-area": 2 * 9, "imbalance-line": maxPairs, "bound-line": 2 * maxPairs}
	for class, n := range want {
		if s.Classes[class] != n {
			t.Errorf("%d %q, want %d", s.Classes[class], class, n)
		}
	}
	for _, w := range []string{"4 pairs are drawn", "62 more are not", "app10/app11 curve is sampled", "2000 utilisation steps are merged into 100"} {
		if !strings.Contains(s.Desc, w) {
			t.Errorf("desc lacks %q:\n%s", w, s.Desc)
		}
	}
	if s.Classes["note"] == 0 || !strings.Contains(s.Text, "deepest") {
		t.Errorf("the picture's text does not say which pairs it drew:\n%s", s.Text)
	}
	if !strings.Contains(s.Text, "other (4)") {
		t.Error("no other (4) layer in the legend")
	}
	if len(svg) > 300_000 {
		t.Errorf("SVG is %d bytes", len(svg))
	}
}

// The example solved twice through the Runner draws the same bytes (the
// picture depends on nothing that varies between runs, elapsed_ms
// included), well-formed and under the size bound.
func TestPictureRuns(t *testing.T) {
	solvertest.PictureFile(t, Problem(), "../../../examples/xschedule-simulate.json")
}
