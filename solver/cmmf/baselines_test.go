package cmmf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestChoosyProperties: Choosy's allocation is feasible and maximal (a
// machine stays idle only if nobody below its demand can use it), and the
// same seed gives the same allocation.
func TestChoosyProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for it := 0; it < 300; it++ {
		in := randInstance(r, false, 4, 5, 5)
		a := mustChoosy(t, in, int64(it))
		checkAllocationFeasible(t, in, a)
		used := make([]float64, len(in.Types))
		for i, u := range in.Users {
			for k, tt := range u.Allowed {
				used[tt] += a.Amount[i][k]
			}
		}
		for tt, ty := range in.Types {
			if used[tt] >= float64(ty.Cap) {
				continue
			}
			for i, u := range in.Users {
				if a.Total[i]+1 <= u.Demand && contains(u.Allowed, tt) {
					t.Fatalf("instance %d: type %d has idle machines but user %d (total %v, demand %v) can use them", it, tt, i, a.Total[i], u.Demand)
				}
			}
		}
		b := mustChoosy(t, in, int64(it))
		for i := range a.Total {
			if a.Total[i] != b.Total[i] {
				t.Fatalf("instance %d: Choosy not deterministic", it)
			}
		}
	}
}

// TestIndependentProperties: independent allocation splits every machine
// among the users that can use it, so it uses every machine someone can
// use, fractionally.
func TestIndependentProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for it := 0; it < 200; it++ {
		in := randInstance(r, true, 4, 5, 5)
		tot := Independent(in)
		sum, usable := 0.0, 0.0
		for _, v := range tot {
			sum += v
		}
		for tt, ty := range in.Types {
			for _, u := range in.Users {
				if contains(u.Allowed, tt) {
					usable += float64(ty.Cap)
					break
				}
			}
		}
		if math.Abs(sum-usable) > 1e-9 {
			t.Fatalf("instance %d: independent allocates %v of %v usable machines", it, sum, usable)
		}
	}
}

func contains(a []int, v int) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

// checkAllocationFeasible checks capacities, allowed types and demands.
func checkAllocationFeasible(t testing.TB, in *Instance, a *Allocation) {
	t.Helper()
	used := make([]float64, len(in.Types))
	for i, u := range in.Users {
		if a.Total[i] > u.Demand+feasTol {
			t.Fatalf("user %d above demand", i)
		}
		for k, tt := range u.Allowed {
			used[tt] += a.Amount[i][k]
		}
	}
	for tt, v := range used {
		if v > float64(in.Types[tt].Cap)+feasTol {
			t.Fatalf("type %d over capacity", tt)
		}
	}
}

func mustChoosy(t *testing.T, in *Instance, seed int64) *Allocation {
	t.Helper()
	a, err := choosyAlloc(context.Background(), in, seed)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
