package cmmf

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/xflex/xflex/flow"
)

// uspec describes one user of a test instance.
type uspec struct {
	w       float64 // weight; 0 means 1
	d       float64 // demand, used when capped
	allowed []int
	capped  bool
}

func mk(caps []int64, divisible bool, users ...uspec) *Instance {
	in := &Instance{Divisible: divisible}
	for t, c := range caps {
		in.Types = append(in.Types, Type{Name: string(rune('A' + t)), Cap: c})
	}
	for i, u := range users {
		d := math.Inf(1)
		if u.capped {
			d = u.d
			if !divisible {
				d = math.Floor(d)
			}
		}
		w := u.w
		if w == 0 {
			w = 1
		}
		al := append([]int(nil), u.allowed...)
		sort.Ints(al)
		in.Users = append(in.Users, UserSpec{Name: "u" + string(rune('1'+i)), Weight: w, Demand: d, Allowed: al})
	}
	return in
}

func u(allowed ...int) uspec { return uspec{w: 1, allowed: allowed} }

func randInstance(r *rand.Rand, divisible bool, maxTypes, maxCap, maxUsers int) *Instance {
	nt := 1 + r.IntN(maxTypes)
	caps := make([]int64, nt)
	for t := range caps {
		caps[t] = int64(r.IntN(maxCap + 1))
	}
	weights := []float64{1, 1, 1, 2, 3, 0.5, 1.5, 0.3}
	nu := 1 + r.IntN(maxUsers)
	var us []uspec
	for i := 0; i < nu; i++ {
		var al []int
		for t := 0; t < nt; t++ {
			if r.Float64() < 0.6 {
				al = append(al, t)
			}
		}
		x := uspec{w: weights[r.IntN(len(weights))], allowed: al}
		if r.Float64() < 0.3 {
			x.capped = true
			x.d = float64(r.IntN(2*maxCap+1)) / 2
		}
		us = append(us, x)
	}
	return mk(caps, divisible, us...)
}

func solveFlow(t testing.TB, in *Instance) *Allocation {
	t.Helper()
	var a *Allocation
	var err error
	if in.Divisible {
		a, err = solveDivisibleFlow(context.Background(), in)
	} else {
		a, err = solveIntegerFlow(context.Background(), in)
	}
	if err != nil {
		t.Fatalf("flow solve: %v", err)
	}
	return a
}

// feasTol: allocations from float flows may overshoot capacities by
// round-off; 1e-9 is far above it.
const feasTol = 1e-9

// checkValid verifies capacities, allowed types, demands, integrality, and
// that the allocation is maximal (its sum equals the max flow with demand
// caps: no machine left that some user below its demand could use).
func checkValid(t testing.TB, in *Instance, a *Allocation) {
	t.Helper()
	used := make([]float64, len(in.Types))
	sum := 0.0
	for i, u := range in.Users {
		tot := 0.0
		for k, tt := range u.Allowed {
			v := a.Amount[i][k]
			if v < -feasTol {
				t.Fatalf("user %d type %d: negative amount %v", i, tt, v)
			}
			if !in.Divisible && v != math.Round(v) {
				t.Fatalf("user %d type %d: fractional amount %v in integer mode", i, tt, v)
			}
			used[tt] += v
			tot += v
		}
		if math.Abs(tot-a.Total[i]) > feasTol*math.Max(1, tot) {
			t.Fatalf("user %d: total %v but amounts sum to %v", i, a.Total[i], tot)
		}
		if tot > u.Demand+feasTol {
			t.Fatalf("user %d: total %v above demand %v", i, tot, u.Demand)
		}
		sum += tot
	}
	for tt, v := range used {
		if v > float64(in.Types[tt].Cap)+feasTol {
			t.Fatalf("type %d: %v allocated of %d", tt, v, in.Types[tt].Cap)
		}
	}
	// Maximality against an independent max flow.
	g := flow.NewNetwork[float64](2 + len(in.Users) + len(in.Types))
	var capSum float64
	for _, ty := range in.Types {
		capSum += float64(ty.Cap)
	}
	for i, u := range in.Users {
		d := math.Min(u.Demand, capSum+1)
		g.AddEdge(0, 2+i, d)
		for _, tt := range u.Allowed {
			g.AddEdge(2+i, 2+len(in.Users)+tt, math.Inf(1))
		}
	}
	for tt, ty := range in.Types {
		g.AddEdge(2+len(in.Users)+tt, 1, float64(ty.Cap))
	}
	if mf := g.MaxFlow(0, 1); math.Abs(mf-sum) > 1e-7*math.Max(1, mf) {
		t.Fatalf("allocation sums to %v but %v machines could be used", sum, mf)
	}
}

// ratShares returns the exact sorted weighted shares of integer totals.
func ratShares(in *Instance, totals []int64) []*big.Rat {
	out := make([]*big.Rat, len(totals))
	for i, x := range totals {
		w := new(big.Rat).SetFloat64(in.Users[i].Weight)
		out[i] = new(big.Rat).Quo(new(big.Rat).SetInt64(x), w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Cmp(out[b]) < 0 })
	return out
}

func cmpLex(a, b []*big.Rat) int {
	for k := range a {
		if c := a[k].Cmp(b[k]); c != 0 {
			return c
		}
	}
	return 0
}

// bruteInteger enumerates every assignment of every machine to a user that
// can use it (or to nobody) and returns the leximin-optimal sorted shares,
// and for each optimal assignment its per-user per-type counts.
func bruteInteger(in *Instance) ([]*big.Rat, [][][]int64) {
	var machines []int
	for t, ty := range in.Types {
		for k := int64(0); k < ty.Cap; k++ {
			machines = append(machines, t)
		}
	}
	n := len(in.Users)
	can := make([][]bool, n)
	for i, u := range in.Users {
		can[i] = make([]bool, len(in.Types))
		for _, t := range u.Allowed {
			can[i][t] = true
		}
	}
	var best []*big.Rat
	var optima [][][]int64
	assign := make([]int, len(machines))
	seen := map[string]bool{}
	var rec func(m int)
	rec = func(m int) {
		if m == len(machines) {
			tot := make([]int64, n)
			cnt := make([][]int64, n)
			for i := range cnt {
				cnt[i] = make([]int64, len(in.Types))
			}
			for k, who := range assign {
				if who >= 0 {
					tot[who]++
					cnt[who][machines[k]]++
				}
			}
			for i := range tot {
				if float64(tot[i]) > in.Users[i].Demand {
					return
				}
			}
			sh := ratShares(in, tot)
			c := 1
			if best != nil {
				c = cmpLex(sh, best)
			}
			if c > 0 {
				best, optima, seen = sh, nil, map[string]bool{}
			}
			if c >= 0 {
				key := ""
				for i := range cnt {
					for _, v := range cnt[i] {
						key += string(rune('0' + v))
					}
				}
				if !seen[key] {
					seen[key] = true
					optima = append(optima, cnt)
				}
			}
			return
		}
		assign[m] = -1
		rec(m + 1)
		for i := 0; i < n; i++ {
			if can[i][machines[m]] {
				assign[m] = i
				rec(m + 1)
			}
		}
	}
	rec(0)
	return best, optima
}

func intTotals(a *Allocation) []int64 {
	out := make([]int64, len(a.Total))
	for i, v := range a.Total {
		out[i] = int64(math.Round(v))
	}
	return out
}
