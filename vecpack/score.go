// Package vecpack is xflex's multi-dimensional vector packing toolkit:
// placement scores, greedy packers, local search, and the λ search X-Select
// builds on. Vectors are []float64 of one length d (one entry per resource),
// normalised by the caller where a score needs comparable units.
//
// This file holds the placement scores shared by X-Select and Tetris. Each
// score answers "how good is it to put item (demand) on a bin with this free
// capacity"; larger is better, and -Inf means it does not fit.
package vecpack

import "math"

// FitLimit is the largest amount that fits in free: free plus FitTol of
// max(scale, free), which forgives the round-off of the subtractions that
// produced free. The slack is granted only against a positive residual: a
// bin with nothing (or, by round-off, less than nothing) free takes no
// positive amount, however small. (It used to be FitTol·max(1, |free|)
// everywhere, so an item of 1e-9 fit a full bin again and again.) scale is
// the magnitude the residual's round-off is relative to: 1 for the
// capacity-normalised vectors of the scores, the capacity for raw amounts.
func FitLimit(free, scale float64) float64 {
	if !(free > 0) {
		return 0
	}
	return free + FitTol*math.Max(scale, free)
}

// Fits reports whether demand ≤ free componentwise, up to FitLimit's slack.
func Fits(demand, free []float64) bool {
	for i, d := range demand {
		if d > FitLimit(free[i], 1) {
			return false
		}
	}
	return true
}

// Alignment is Tetris's packing score: the dot product of the demand and
// the bin's free capacity (both in the caller's normalised units). It
// favours bins whose free space is large in the dimensions the item needs.
func Alignment(demand, free []float64) float64 {
	if !Fits(demand, free) {
		return math.Inf(-1)
	}
	s := 0.0
	for i, d := range demand {
		s += d * free[i]
	}
	return s
}

// L2Residual scores a placement by minus the Euclidean norm of the free
// capacity left afterwards: the best fit in the L2 sense.
func L2Residual(demand, free []float64) float64 {
	if !Fits(demand, free) {
		return math.Inf(-1)
	}
	s := 0.0
	for i, d := range demand {
		r := free[i] - d
		s += r * r
	}
	return -math.Sqrt(s)
}

// SizeSum is the sum of an item's (normalised) coordinates, the key of
// first-fit decreasing by sum.
func SizeSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// SizeProduct is the product of an item's (normalised) coordinates, the key
// of first-fit decreasing by product.
func SizeProduct(v []float64) float64 {
	p := 1.0
	for _, x := range v {
		p *= x
	}
	return p
}
