package cmmf

import (
	"math"
	"sort"
)

// Independent is the paper's independent allocation (§4.1): every machine
// is split equally among the users that can use it, regardless of weights
// and demands. It is additive and strategy-proof but lacks the sharing
// incentive; xflex reports it as a baseline.
func Independent(in *Instance) []float64 {
	users := make([][]int, len(in.Types))
	for i, u := range in.Users {
		for _, t := range u.Allowed {
			users[t] = append(users[t], i)
		}
	}
	tot := make([]float64, len(in.Users))
	for t, us := range users {
		if len(us) == 0 {
			continue
		}
		share := float64(in.Types[t].Cap) / float64(len(us))
		for _, i := range us {
			tot[i] += share
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
