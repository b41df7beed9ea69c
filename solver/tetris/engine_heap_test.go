package tetris

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// oldBefore is the pick order as the float comparison it replaced:
// higher score, then lower tie key.
func oldBefore(xs, ys float64, xt, yt int64) bool {
	return xs > ys || (xs == ys && xt < yt)
}

// interesting returns scores that stress the key mapping: signed zeros,
// infinities, subnormals, neighbours of each other and random values.
func interesting(rng *rand.Rand) []float64 {
	v := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64,
		-math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1, -1, 0.5, -0.5,
		math.Nextafter(1, 2), math.Nextafter(1, 0), math.Nextafter(-1, 0), 2.2250738585072014e-308}
	for range 200 {
		switch rng.IntN(3) {
		case 0:
			v = append(v, rng.NormFloat64())
		case 1:
			v = append(v, math.Float64frombits(rng.Uint64())) // any bit pattern
		default:
			v = append(v, float64(rng.IntN(5)-2)*0.25) // many exact ties
		}
	}
	return slices.DeleteFunc(v, math.IsNaN)
}

// TestBeforeMatchesFloatOrder: the 128-bit key order is the float order of
// the scores, ties by tie key, for every pair of numbers (±0 equal), and
// keyScore inverts scoreKey up to the sign of zero.
func TestBeforeMatchesFloatOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := interesting(rng)
	ties := []int64{tieKey(0, -1), tieKey(0, 0), tieKey(0, 7), tieKey(1, -1), tieKey(3, 2), tieKey(1<<20, 1<<30)}
	for _, xs := range v {
		x0 := mkNode(xs, 0, 0, 0)
		if got := x0.score(); got != xs || (xs != 0 && math.Signbit(got) != math.Signbit(xs)) {
			t.Fatalf("keyScore(scoreKey(%v)) = %v", xs, got)
		}
		for _, ys := range v {
			for _, xt := range ties {
				for _, yt := range ties {
					x, y := mkNode(xs, xt, 0, 0), mkNode(ys, yt, 0, 0)
					if got, want := before(&x, &y) == 1, oldBefore(xs, ys, xt, yt); got != want {
						t.Fatalf("before(%v/%d, %v/%d) = %v, float order says %v", xs, xt, ys, yt, got, want)
					}
				}
			}
		}
	}
}

// TestScoreKeyNaNLast: a NaN score (which validated input cannot produce)
// ranks below every number, so the heap's order stays total.
func TestScoreKeyNaNLast(t *testing.T) {
	n := mkNode(math.NaN(), tieKey(0, -1), 0, 0)
	for _, s := range []float64{math.Inf(-1), -math.MaxFloat64, 0} {
		x := mkNode(s, tieKey(9, 9), 0, 0)
		if before(&x, &n) != 1 || before(&n, &x) != 0 {
			t.Fatalf("NaN does not rank below %v", s)
		}
	}
}

// TestHeapPopsInPickOrder: pushing, popping and re-heapifying random nodes
// yields them in the old comparison's order.
func TestHeapPopsInPickOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := rng.IntN(200)
		vals := interesting(rng)
		var h nheap
		type st struct {
			s   float64
			tie int64
		}
		var want []st
		for i := range n {
			s := vals[rng.IntN(len(vals))]
			tie := tieKey(rng.IntN(50), rng.IntN(5)-1)
			want = append(want, st{s, tie})
			nd := mkNode(s, tie, int32(i), 0)
			if trial%2 == 0 {
				h.push(nd)
			} else {
				h = append(h, nd)
			}
		}
		if trial%2 == 1 {
			h.heapify()
		}
		slices.SortStableFunc(want, func(a, b st) int {
			if oldBefore(a.s, b.s, a.tie, b.tie) {
				return -1
			}
			if oldBefore(b.s, a.s, b.tie, a.tie) {
				return 1
			}
			return 0
		})
		for i, w := range want {
			got := h.pop()
			// Nodes of equal score (±0 alike) and tie key are interchangeable.
			if s := got.score(); s != w.s || got.tie() != w.tie {
				t.Fatalf("trial %d pop %d: got %v/%d, want %v/%d", trial, i, s, got.tie(), w.s, w.tie)
			}
		}
	}
}
