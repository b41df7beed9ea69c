package cmmf

import (
	"math"
	"sort"
)

// Independent is the paper's independent allocation (§4.1): every machine
// is split equally among the users that can use it, regardless of weights
// and demands. It is additive and strategy-proof but lacks the sharing
// incentive; xflex reports it as a baseline.
//
// Each user sums cap/users over its allowed types in ascending order: the
// totals in the answers depend on that order to the last bit.
func Independent(in *Instance) []float64 {
	users := make([]int, len(in.Types))
	for _, u := range in.Users {
		for _, t := range u.Allowed {
			users[t]++
		}
	}
	share := make([]float64, len(in.Types))
	for t, n := range users {
		if n > 0 {
			share[t] = float64(in.Types[t].Cap) / float64(n)
		}
	}
	tot := make([]float64, len(in.Users))
	for i, u := range in.Users {
		for _, t := range u.Allowed {
			tot[i] += share[t]
		}
	}
	return tot
}

// RMSE is the paper's comparison metric (§7.1): the root mean square
// difference between two allocations' per-user fractions of the cluster,
// each sorted ascending.
func RMSE(a, b []float64, machines float64) float64 {
	if len(a) == 0 || machines <= 0 {
		return 0
	}
	x := append([]float64(nil), a...)
	y := append([]float64(nil), b...)
	sort.Float64s(x)
	sort.Float64s(y)
	s := 0.0
	for k := range x {
		d := (x[k] - y[k]) / machines
		s += d * d
	}
	return math.Sqrt(s / float64(len(x)))
}
