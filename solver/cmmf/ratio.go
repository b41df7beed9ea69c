package cmmf

import (
	"math"
	"math/big"
)

// Integer CMMF compares weighted shares k/w exactly: k is an integer
// number of machines and w a float64 weight, which is itself an exact
// dyadic rational, so k1/w1 ? k2/w2 is decided by k1·w2 ? k2·w1 computed
// without rounding.

// fastRelMargin: float64 products k·w carry a relative error below 2^-52
// each, so when two products differ by more than 1e-14 relative their
// order is certain; closer pairs are recomputed exactly.
const fastRelMargin = 1e-14

// cmpFrac compares k1/w1 with k2/w2 (weights positive) exactly.
func cmpFrac(k1 int64, w1 float64, k2 int64, w2 float64) int {
	if w1 == w2 {
		return cmpInt(k1, k2)
	}
	a := float64(k1) * w2
	b := float64(k2) * w1
	if k1 < 1<<53 && k1 > -1<<53 && k2 < 1<<53 && k2 > -1<<53 &&
		math.FMA(float64(k1), w2, -a) == 0 && math.FMA(float64(k2), w1, -b) == 0 {
		// Both products are exact (FMA shows no rounding error).
		return cmpFloat(a, b)
	}
	if math.Abs(a-b) > fastRelMargin*math.Max(math.Abs(a), math.Abs(b)) {
		if a < b {
			return -1
		}
		return 1
	}
	// 64-bit integer times 53-bit mantissa: 117 bits are exact at 128.
	x := new(big.Float).SetPrec(128).SetInt64(k1)
	x.Mul(x, new(big.Float).SetPrec(128).SetFloat64(w2))
	y := new(big.Float).SetPrec(128).SetInt64(k2)
	y.Mul(y, new(big.Float).SetPrec(128).SetFloat64(w1))
	return x.Cmp(y)
}

// floorRatio returns the largest integer q ≥ -1 with q/wi ≤ k/wk, i.e.
// ⌊k·wi/wk⌋, capped at limit (so callers can bound huge quotients).
func floorRatio(k int64, wk, wi float64, limit int64) int64 {
	f := math.Floor(float64(k) * wi / wk)
	if f >= float64(limit) {
		if cmpFrac(limit, wi, k, wk) <= 0 {
			return limit
		}
		f = float64(limit - 1)
	}
	if f < 0 {
		f = 0
	}
	q := int64(f)
	for q < limit && cmpFrac(q+1, wi, k, wk) <= 0 {
		q++
	}
	for q >= 0 && cmpFrac(q, wi, k, wk) > 0 {
		q--
	}
	return q
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
