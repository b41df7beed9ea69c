package sight

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
)

// gantt builds two panels of n jobs, each job holding 1, 1, 2, 2, 1, 1,
// ... slots over per unit intervals (equal neighbours merge into one bar).
func gantt(n, per int) Gantt {
	g := Gantt{Title: "g", Desc: "d"}
	for i := range n {
		g.Rows = append(g.Rows, fmt.Sprintf("j%d", i))
	}
	for p := range 2 {
		panel := GanttPanel{Title: fmt.Sprint("p", p), Ends: make([]float64, n)}
		for i := range n {
			for k := range per {
				panel.Bars = append(panel.Bars, GanttBar{Row: i, Start: float64(k), End: float64(k + 1), Slots: float64(1 + k/2%2)})
			}
			panel.Ends[i] = float64(per)
		}
		panel.Ends[0] = math.NaN()
		g.Panels = append(g.Panels, panel)
	}
	return g
}

func TestGanttCounts(t *testing.T) {
	for _, c := range []struct {
		jobs, per              int
		rows, bars, completion int
		aggregated             bool
	}{
		{5, 4, 10, 20, 8, false},
		{MaxRows, 2, 2 * MaxRows, 2 * MaxRows, 2*MaxRows - 2, false},
		{MaxRows + 1, 2, 2 * 151, 2 * 151, 2 * 151, true}, // bins of 2
		{10, MaxBars/20 + 1, 20, 20, 18, true},            // too many bars
		{4, 3, 8, 16, 6, false},
		{10, MaxBars / 20, 20, MaxBars / 2, 18, false}, // 1,2,1 slots: no merge
	} {
		doc, err := gantt(c.jobs, c.per).Draw()
		if err != nil {
			t.Fatal(err)
		}
		s := sighttest.Check(t, doc)
		got := []int{s.Classes["gantt-row"], s.Classes["bar"], s.Classes["completion"], s.Classes["panel"]}
		want := []int{c.rows, c.bars, c.completion, 2}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d jobs × %d: gantt-row, bar, completion, panel = %v, want %v", c.jobs, c.per, got, want)
		}
		if agg := strings.Contains(s.Desc, "aggregated"); agg != c.aggregated {
			t.Errorf("%d jobs × %d: aggregated %v, want %v", c.jobs, c.per, agg, c.aggregated)
		}
		if len(doc) > 300<<10 {
			t.Errorf("%d jobs × %d: %d bytes", c.jobs, c.per, len(doc))
		}
	}
}

func TestNiceStep(t *testing.T) {
	for x, want := range map[float64]float64{0.3: 0.5, 1: 1, 1.2: 2, 7: 10, 1666: 2000, 0: 1, math.Inf(1): 1} {
		if got := niceStep(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", x, got, want)
		}
	}
}
