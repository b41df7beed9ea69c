package cmmf

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestQuickAllocAndBound: the timeout answer's allocation is feasible
// (whole machines stay whole), uses one type per user and its smallest share never exceeds the
// optimum, which never exceeds shareBound, on random small instances.
func TestQuickAllocAndBound(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	for it := 0; it < 400; it++ {
		in := randInstance(r, it%2 == 0, 4, 6, 6)
		q := quickAlloc(in)
		checkAllocationFeasible(t, in, q)
		for i := range in.Users {
			if n := len(in.Users[i].Allowed) - countZeros(q.Amount[i]); n > 1 {
				t.Fatalf("instance %d: user %d gets %d types, want one (the answer's size)", it, i, n)
			}
			if !in.Divisible && q.Total[i] != math.Floor(q.Total[i]) {
				t.Fatalf("instance %d: user %d gets %v whole machines", it, i, q.Total[i])
			}
		}
		opt := solveFlow(t, in).Leximin(in)[0]
		got, bound := q.Leximin(in)[0], shareBound(in)
		if got > opt+feasTol || opt > bound+1e-9*math.Max(1, bound) {
			t.Fatalf("instance %d: quick %v, optimum %v, bound %v: want quick ≤ optimum ≤ bound", it, got, opt, bound)
		}
	}
}

// TestExpiredBudgetAnswer: a solve whose deadline has already passed
// answers status timeout with the quick allocation, a proven bound and a
// gap computed from both, and skips the Choosy baseline with a note (on
// main it ran Choosy, seconds on large clusters, and gave no bound).
func TestExpiredBudgetAnswer(t *testing.T) {
	for _, divisible := range []bool{true, false} {
		req := GenerateRequest(7, GenParams{Users: 2000, Types: 20, Machines: 40000, Divisible: divisible})
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := solvertest.SolveExpired(t, Problem(), raw)
		res := out.(*Result)
		if res.Choosy.Skipped == "" || len(res.Users) != 2000 {
			t.Fatalf("divisible %v: choosy %+v, %d users", divisible, res.Choosy, len(res.Users))
		}
	}
}

// TestReserveCutSkipsChoosy: when the exact method stops at its reserve
// (resultReserve × Build's time before the deadline) the timeout answer
// skips the Choosy baseline too; it used to run Choosy until the Runner's
// deadline, spending the reserve meant for the answer (0.5 s for 100,000
// users).
func TestReserveCutSkipsChoosy(t *testing.T) {
	req := GenerateRequest(7, GenParams{Users: 200, Types: 10, Machines: 4000, Divisible: true})
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	// A build time of an hour: the reserve covers the whole budget.
	b := solver.Built[Request, *Instance]{Req: req, In: in, BuildTime: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, meta, err := solve(ctx, b, solver.Options{Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res := out.(*Result)
	if meta.Status != solver.StatusTimeout || res.Choosy.Skipped == "" || len(res.Choosy.Users) != 0 {
		t.Fatalf("status %v, choosy %+v", meta.Status, res.Choosy)
	}
}

// countZeros counts the zero entries of xs.
func countZeros(xs []float64) int {
	n := 0
	for _, x := range xs {
		if x == 0 {
			n++
		}
	}
	return n
}
