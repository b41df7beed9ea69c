package vecpack

import (
	"math"
	"testing"
)

// FitLimit forgives round-off only against a positive residual: nothing
// positive fits a bin with 0 (or, by round-off, less than 0) free, however
// small the item. The slack used to be FitTol·max(1, |free|), so an item
// of 1e-9 fit a full bin, and maxFit counted 1e9 items of 1e-18 into it.
func TestFitLimitOnlyOnPositiveResidual(t *testing.T) {
	cases := []struct {
		free, scale, want float64
	}{
		{0, 1, 0},
		{-1e-17, 1, 0},
		{math.NaN(), 1, 0},
		{1, 1, 1 + FitTol},
		{0.5, 1, 0.5 + FitTol},       // below the scale: slack of the scale
		{1e6, 1, 1e6 * (1 + FitTol)}, // above it: relative to free
		{2, 1e15, 2 + FitTol*1e15},   // raw units with the capacity as scale
	}
	for _, c := range cases {
		// Constant folding computes want exactly; the function rounds.
		if got := FitLimit(c.free, c.scale); !(got == c.want || math.Abs(got-c.want) <= 1e-15*c.want) {
			t.Errorf("FitLimit(%g, %g) = %g, want %g", c.free, c.scale, got, c.want)
		}
	}
	for _, c := range []struct {
		d, free []float64
		want    bool
	}{
		{[]float64{1e-10}, []float64{0}, false},
		{[]float64{0}, []float64{-1e-17}, true},                // nothing asked of an overdrawn resource
		{[]float64{0.1}, []float64{0.09999999999999987}, true}, // round-off forgiven
		{[]float64{1, 1e-10}, []float64{1, 0}, false},
	} {
		if got := Fits(c.d, c.free); got != c.want {
			t.Errorf("Fits(%v, %v) = %v, want %v", c.d, c.free, got, c.want)
		}
	}
}

func TestMaxFitOnFullBin(t *testing.T) {
	in := &Instance{Caps: [][]float64{{1, 1}}, Types: []ItemType{
		{Count: 10, Size: []float64{1, 0}},
		{Count: 10, Size: []float64{1e-18, 0}},
		{Count: 10, Size: []float64{0.1, 0}},
	}}
	p, err := NewPacking(in)
	if err != nil {
		t.Fatal(err)
	}
	if k := p.maxFit(2, 0); k != 10 {
		t.Fatalf("0.1 into 1: maxFit %d, want 10", k)
	}
	p.Place(0, 0, 1) // the bin is full
	for ty := range in.Types {
		if k := p.maxFit(ty, 0); k != 0 {
			t.Errorf("type %d: maxFit %d on a full bin, want 0", ty, k)
		}
	}
	p.Free[0][0] = -1e-17 // overdrawn by round-off
	for ty := range in.Types {
		if k := p.maxFit(ty, 0); k != 0 {
			t.Errorf("type %d: maxFit %d on an overdrawn bin, want 0", ty, k)
		}
	}
}
