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

// TestIndependentMatchesReference: Independent gives bit for bit the
// totals of the former implementation (refIndependent), which listed the
// users of every type (31 MB of lists at 10x scale).
func TestIndependentMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(97, 98))
	for it := 0; it < 300; it++ {
		in := randChoosyInstance(r, []float64{1})
		for k := range in.Types {
			in.Types[k].Cap = int64(r.IntN(1000)) // shares like 997/7 round
		}
		got, want := Independent(in), refIndependent(in)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("instance %d: user %d gets %v, reference %v", it, i, got[i], want[i])
			}
		}
	}
}

// refIndependent is Independent as it was before it counted users per type.
func refIndependent(in *Instance) []float64 {
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
