package sight

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
)

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}},
		{0, 17.3, []float64{0, 5, 10, 15}},
		{3, 7, []float64{3, 4, 5, 6, 7}},
		{-10, 10, []float64{-10, -5, 0, 5, 10}},
	} {
		if got := Ticks(c.lo, c.hi, 5); !slices.Equal(got, c.want) {
			t.Errorf("Ticks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
	if got := TickLabel(0.6000000000000001, 1); got != "0.6" {
		t.Errorf("TickLabel = %q, want 0.6", got)
	}
	if got := TickLabel(1e-17, 1); got != "0.0" {
		t.Errorf("TickLabel of rounding noise = %q, want 0.0", got)
	}
}

func TestCDF(t *testing.T) {
	xs, ys := CDF([]float64{3, 1, 2, 2}, 100)
	if !slices.Equal(xs, []float64{1, 1, 2, 3}) || !slices.Equal(ys, []float64{0, 0.25, 0.75, 1}) {
		t.Errorf("CDF = %v %v", xs, ys)
	}
	v := make([]float64, 10000)
	for i := range v {
		v[i] = float64(i)
	}
	xs, ys = CDF(v, 100)
	if len(xs) != 101 || ys[len(ys)-1] != 1 || xs[len(xs)-1] != 9999 {
		t.Errorf("thinned CDF: %d points, ends at (%g, %g)", len(xs), xs[len(xs)-1], ys[len(ys)-1])
	}
}

func TestCoarsen(t *testing.T) {
	s, e, v, merged := Coarsen([]float64{0, 1, 3, 4}, []float64{1, 3, 4, 5}, [][]float64{{1, 4, 0, 2}}, 2)
	if !merged || !slices.Equal(s, []float64{0, 3}) || !slices.Equal(e, []float64{3, 5}) || !slices.Equal(v[0], []float64{3, 1}) {
		t.Errorf("Coarsen = %v %v %v %v", s, e, v, merged)
	}
	if _, _, _, merged := Coarsen([]float64{0}, []float64{1}, [][]float64{{1}}, 2); merged {
		t.Error("one bin merged")
	}
}

func TestKeepBars(t *testing.T) {
	c := BarChart{Segments: []string{"a", "b", "c"}, Panels: []BarPanel{
		{Bars: []Bar{{"x", []float64{1, 0, 0}}, {"y", []float64{0, 5, 0}}, {"z", []float64{0, 0, 2}}}},
		{Bars: []Bar{{"z", []float64{1, 1, 1}}, {"x", []float64{2, 0, 0}}, {"y", []float64{0, 0, 4}}}},
	}}
	if n := c.KeepBars(1); n != 2 {
		t.Fatalf("KeepBars grouped %d, want 2", n)
	}
	var labels []string
	for _, b := range c.Panels[1].Bars {
		labels = append(labels, b.Label)
	}
	if !slices.Equal(labels, []string{"y", "other (2): mean"}) {
		t.Errorf("panel 1 bars %v", labels)
	}
	if got := c.Panels[1].Bars[1].Parts; !slices.Equal(got, []float64{1.5, 0.5, 0.5}) {
		t.Errorf("other bar %v, want the mean of z's and x's parts", got)
	}
}

func TestKeepSegments(t *testing.T) {
	c := BarChart{Segments: []string{"a", "b", "c"}, Panels: []BarPanel{
		{Bars: []Bar{{"x", []float64{1, 0, 0}}, {"y", []float64{0, 5, 0}}, {"z", []float64{0, 0, 2}}}},
		{Bars: []Bar{{"z", []float64{1, 1, 1}}, {"x", []float64{2, 0, 0}}, {"y", []float64{0, 0, 4}}}},
	}}
	if n := c.KeepSegments(2); n != 2 {
		t.Fatalf("KeepSegments folded %d, want 2", n)
	}
	if !slices.Equal(c.Segments, []string{"c", "other (2)"}) || c.Colours[1] != Other {
		t.Errorf("segments %v colours %v", c.Segments, c.Colours)
	}
	if got := c.Panels[0].Bars[1].Parts; !slices.Equal(got, []float64{0, 5}) {
		t.Errorf("y's folded parts %v", got)
	}
}

// The imbalance curve is split where it crosses ±Δ and 0, so clamping its
// vertices to a zone clamps it exactly.
func TestSplitAt(t *testing.T) {
	ts, ss := splitAt([]float64{0, 4}, []float64{-2, 2}, []float64{-1, 0, 1})
	if !slices.Equal(ts, []float64{0, 1, 2, 3, 4}) || !slices.Equal(ss, []float64{-2, -1, 0, 1, 2}) {
		t.Errorf("splitAt = %v %v", ts, ss)
	}
}

// A series of points with slopes becomes its polyline, jumps vertical,
// and past maxPoints is sampled exactly at evenly spaced times.
func TestPiecewiseLinear(t *testing.T) {
	ts, ss, thinned := PiecewiseLinear([]float64{0, 2}, []float64{0, 5}, []float64{1, -1}, 4, 10)
	if thinned || !slices.Equal(ts, []float64{0, 2, 2, 4}) || !slices.Equal(ss, []float64{0, 2, 5, 3}) {
		t.Errorf("PiecewiseLinear = %v %v %v", ts, ss, thinned)
	}
	ts, ss, thinned = PiecewiseLinear([]float64{0, 2}, []float64{0, 5}, []float64{1, -1}, 4, 3)
	if !thinned || !slices.Equal(ts, []float64{0, 2, 4}) || !slices.Equal(ss, []float64{0, 5, 3}) {
		t.Errorf("sampled = %v %v %v", ts, ss, thinned)
	}
}

// Binning keeps all the weight and puts a cell's circle at its weighted
// mean, in the group of its heaviest point.
func TestBin(t *testing.T) {
	ps := []Point{{X: 0, Y: 0, W: 1, Group: 0}, {X: 0.1, Y: 0.1, W: 3, Group: 1}, {X: 10, Y: 10, W: 2, Group: 2}}
	bins := Bin(ps, 4)
	if len(bins) != 2 || bins[0].W != 4 || bins[0].Group != 1 || math.Abs(bins[0].X-0.075) > 1e-12 || bins[1].W != 2 {
		t.Errorf("Bin = %+v", bins)
	}
}

// Footnotes wrap to the canvas and grow it; none leave it alone.
func TestFootnote(t *testing.T) {
	d := New(200, 100, "t", "d")
	d.Footnote(nil)
	if d.H != 100 {
		t.Errorf("no notes grew the canvas to %g", d.H)
	}
	notes := []string{"the 40 least used resources are not drawn", "5000 time bins are merged into 385"}
	lines := wrapText(strings.Join(notes, "; "), footSize, 200-16)
	d.Footnote(notes)
	if len(lines) < 3 || d.H != 100+float64(len(lines))*footSize*1.5 {
		t.Errorf("canvas %g high, want %d lines more (of %g)", d.H, len(lines), footSize*1.5)
	}
	for _, l := range lines {
		if TextWidth(l, footSize) > 200-16 {
			t.Errorf("footnote line %q is wider than the canvas", l)
		}
	}
}

// Legend entries flow left to right and wrap when the panel is full.
func TestLegendFlow(t *testing.T) {
	dx, row, rows := legendFlow([]string{"cpu", "mem", "a name long enough to need its own row"}, 300)
	if rows != 2 || !slices.Equal(row, []int{0, 0, 1}) || dx[0] != 0 || dx[1] <= 0 || dx[2] != 0 {
		t.Errorf("legendFlow = %v %v %d", dx, row, rows)
	}
}

// A mark past the longest bar widens the scale to reach it and is drawn
// once per panel (class "mark") and named in the legend.
func TestBarMarks(t *testing.T) {
	c := BarChart{Unit: "containers", Segments: []string{"granted"}, Colours: []string{Colour(0)},
		Panels: []BarPanel{{Bars: []Bar{{"a", []float64{40}}}}, {Bars: []Bar{{"a", []float64{30}}}}},
		Marks:  []Mark{{Value: 100, Label: "asked: 100"}}}
	if c.Max() != 100 {
		t.Fatalf("Max %g, want the mark's 100", c.Max())
	}
	s := sighttest.Check(t, c.Doc("t", "d").Bytes())
	if s.Classes["mark"] != 2 {
		t.Errorf("%d marks, want one per panel (2)", s.Classes["mark"])
	}
	if !strings.Contains(s.Text, "asked: 100") {
		t.Errorf("legend lacks the mark's label:\n%s", s.Text)
	}
}
