package assign

import (
	"math/rand/v2"
	"testing"
)

// TestLargestSizes: a request fits some container exactly when it fits
// one of the undominated sizes (checked against every container).
func TestLargestSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		conts := make([]cont, 1+rng.IntN(30))
		for i := range conts {
			conts[i].size = []float64{float64(rng.IntN(6)), float64(rng.IntN(6)), float64(rng.IntN(3))}
		}
		largest := largestSizes(conts)
		for range 50 {
			want := []float64{float64(rng.IntN(7)), float64(rng.IntN(7)), float64(rng.IntN(4))}
			fitsAny, some := false, false
			for _, c := range conts {
				fitsAny = fitsAny || FitsDims(c.size, want)
			}
			for _, s := range largest {
				some = some || FitsDims(s, want)
			}
			if fitsAny != some {
				t.Fatalf("request %v: fits a container %v, fits a largest size %v (%v)", want, fitsAny, some, largest)
			}
		}
	}
}
