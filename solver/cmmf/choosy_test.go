package cmmf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestChoosyMatchesReference: Choosy gives exactly the allocation of the
// reference implementation (every class's tops compared field by field,
// choosy_ref_test.go) on random instances with ties everywhere: integer
// weights (keys x·L/weight), weights with no common multiple (float keys
// settled exactly), demands below one machine, users nobody else shares
// types with, and types nobody can use.
func TestChoosyMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	weightSets := [][]float64{
		{1},
		{1, 2, 3, 4},
		{0.5, 1, 1.5, 2, 3},
		{0.3, 0.7, 1, 2.5, 1e-300, 1e-307, 1e300}, // x/1e-307 is +Inf from x = 18
	}
	modes := map[bool]int{}
	for it := 0; it < 400; it++ {
		in := randChoosyInstance(r, weightSets[it%len(weightSets)])
		modes[choosyScale(in) != nil]++
		seed := int64(r.Uint64())
		got := mustChoosy(t, in, seed)
		want, err := refChoosyAlloc(context.Background(), in, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in.Users {
			if got.Total[i] != want.Total[i] || got.Level[i] != want.Level[i] {
				t.Fatalf("instance %d: user %d total %v level %v, reference %v %v", it, i, got.Total[i], got.Level[i], want.Total[i], want.Level[i])
			}
			for k := range got.Amount[i] {
				if got.Amount[i][k] != want.Amount[i][k] {
					t.Fatalf("instance %d: user %d type %d: %v, reference %v", it, i, in.Users[i].Allowed[k], got.Amount[i][k], want.Amount[i][k])
				}
			}
		}
	}
	if modes[true] == 0 || modes[false] == 0 {
		t.Fatalf("integer keys on %d instances, float keys on %d: both must be tested", modes[true], modes[false])
	}
}

// choosyAlloc runs Choosy and returns its allocation per type.
func choosyAlloc(ctx context.Context, in *Instance, seed int64) (*Allocation, error) {
	a := newAllocation(in)
	x, err := runChoosy(ctx, in, seed, func(i, k int) { a.Amount[i][k]++ })
	if err != nil {
		return nil, err
	}
	for i, u := range in.Users {
		a.Total[i] = float64(x[i])
		a.Level[i] = a.Total[i] / u.Weight
	}
	return a, nil
}

// TestChoosyMatchesReferenceGenerated: the same on generated Google-like
// instances, thousands of users in hundreds of classes, with and without
// weights and demands.
func TestChoosyMatchesReferenceGenerated(t *testing.T) {
	for _, p := range []GenParams{
		{Users: 2000, Types: 60, Machines: 40_000},
		{Users: 2000, Types: 60, Machines: 40_000, Weighted: true, CappedFrac: 0.3},
	} {
		in, err := Build(GenerateRequest(3, p))
		if err != nil {
			t.Fatal(err)
		}
		got := mustChoosy(t, in, 4)
		want, err := refChoosyAlloc(context.Background(), in, 4)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in.Users {
			for k := range got.Amount[i] {
				if got.Amount[i][k] != want.Amount[i][k] {
					t.Fatalf("%+v: user %d type %d: %v, reference %v", p, i, in.Users[i].Allowed[k], got.Amount[i][k], want.Amount[i][k])
				}
			}
		}
	}
}

// randChoosyInstance draws up to 60 users over up to 12 types with up to
// 30 machines each, weights from ws, and a demand on a third of the users.
func randChoosyInstance(r *rand.Rand, ws []float64) *Instance {
	nt := 1 + r.IntN(12)
	caps := make([]int64, nt)
	for t := range caps {
		caps[t] = int64(r.IntN(31))
	}
	var us []uspec
	p := 0.1 + 0.8*r.Float64() // how many types a user can use
	for i := 1 + r.IntN(60); i > 0; i-- {
		var al []int
		for t := 0; t < nt; t++ {
			if r.Float64() < p {
				al = append(al, t)
			}
		}
		us = append(us, uspec{w: ws[r.IntN(len(ws))], allowed: al})
	}
	in := mk(caps, false, us...)
	for i := range in.Users {
		if r.IntN(3) == 0 { // half-integer demands: Choosy compares x+1 > demand
			in.Users[i].Demand = math.Floor(r.Float64()*12) / 2
		}
	}
	return in
}
