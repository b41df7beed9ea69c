package sight

import (
	"slices"
	"testing"
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

func TestKeepBarsAndSegments(t *testing.T) {
	c := BarChart{Segments: []string{"a", "b", "c"}, Panels: []BarPanel{
		{Bars: []Bar{{"x", []float64{1, 0, 0}}, {"y", []float64{0, 5, 0}}, {"z", []float64{0, 0, 2}}}},
		{Bars: []Bar{{"z", []float64{1, 1, 1}}, {"x", []float64{2, 0, 0}}, {"y", []float64{0, 0, 4}}}},
	}}
	if n := c.KeepBars(2); n != 1 {
		t.Fatalf("KeepBars grouped %d, want 1", n)
	}
	labels := func(p BarPanel) (ls []string) {
		for _, b := range p.Bars {
			ls = append(ls, b.Label)
		}
		return ls
	}
	if got := labels(c.Panels[1]); !slices.Equal(got, []string{"z", "y", "other (1)"}) {
		t.Errorf("panel 1 bars %v", got)
	}
	if got := c.Panels[1].Bars[2].Parts; !slices.Equal(got, []float64{2, 0, 0}) {
		t.Errorf("other bar %v, want x's parts", got)
	}
	if n := c.KeepSegments(2); n != 2 {
		t.Fatalf("KeepSegments folded %d, want 2", n)
	}
	if !slices.Equal(c.Segments, []string{"c", "other (2)"}) || c.Colours[1] != Other {
		t.Errorf("segments %v colours %v", c.Segments, c.Colours)
	}
	if got := c.Panels[0].Bars[0].Parts; !slices.Equal(got, []float64{0, 5}) {
		t.Errorf("y's folded parts %v", got)
	}
}
