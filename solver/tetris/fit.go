package tetris

import "github.com/xflex/xflex/vecpack"

// fitLimit is the largest amount of a resource that fits in free of it on a
// machine whose capacity of it is c: free itself plus vecpack.FitTol of the
// capacity (of free, if larger), which forgives the round-off of the
// subtractions that produced free. The slack is granted only against a
// positive residual: a machine with nothing free takes no positive demand,
// however small against its capacity. (The slack used to be FitTol·max(1,
// |free|) in capacity units, so a demand of 1 fit a free amount of 0 on a
// machine of capacity 1e15 again and again: free went negative and
// alignments below 0.) Used with c = 1 on normalised amounts (free/capacity).
func fitLimit(free, c float64) float64 {
	if !(free > 0) {
		return 0
	}
	return free + vecpack.FitTol*max(c, free)
}

// fits reports whether demand ≤ fitLimit(free, capacity) componentwise, in
// raw units (the engine makes the same test on normalised amounts).
func fits(demand, free, capacity []float64) bool {
	for k, d := range demand {
		if d > fitLimit(free[k], capacity[k]) {
			return false
		}
	}
	return true
}
