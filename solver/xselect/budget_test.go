package xselect

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver/solvertest"
	"github.com/xflex/xflex/vecpack"
)

// TestExpiredBudgetSkipsBoundPasses: with the budget gone, the bound
// stops before its nodes × groups passes (node classes and per-class
// capacities, 2 s of a 50 ms budget at 20,000 nodes and 1,000
// applications on main, which ran them unconditionally) and falls back to
// the per-resource bound.
func TestExpiredBudgetSkipsBoundPasses(t *testing.T) {
	m, err := build(GenerateWith(3, GenParams{Nodes: 500, Resources: 2, Apps: 30, Shapes: 6, Types: 3, MaxCount: 20}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	ub, _ := m.upperBound(ctx)
	if m.classCap != nil || m.lp != nil {
		t.Fatalf("expired budget still computed the class capacities or the LP")
	}
	if ub != m.resourceBound() {
		t.Fatalf("bound %v, want the per-resource bound %v", ub, m.resourceBound())
	}
}

// TestExpiredBudgetAnswer: a solve whose deadline has passed answers
// status timeout with a bound no lower than its λ and the gap of the two.
func TestExpiredBudgetAnswer(t *testing.T) {
	raw, err := json.Marshal(GenerateWith(5, GenParams{Nodes: 2000, Resources: 3, Apps: 50, Shapes: 10, Types: 3, MaxCount: 20}))
	if err != nil {
		t.Fatal(err)
	}
	solvertest.SolveExpired(t, Problem(), raw)
}

// TestLPTimeLimitIsTheBudget: the LP backend's time limit, derived from
// the deadline, can fire a moment before the context reports it; the λ
// search must read it as the budget running out (it answered 500
// "configuration LP: time_limit" at budget 10 ms on a generated instance).
func TestLPTimeLimitIsTheBudget(t *testing.T) {
	if err := lpStopped("configuration LP", lp.TimeLimit); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("time limit: %v is not the deadline", err)
	}
	if err := lpStopped("configuration LP", lp.Infeasible); errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("infeasible: %v reads as the deadline", err)
	}
}

// TestAllowedRowsShared: groups of applications without a predicate use
// their shape's row of allowed nodes, not a copy each (a copy per group
// and per application was 0.3 GB and 0.8 s of work before the first
// deadline check on 100,000 nodes), and the rows say the same as the
// per-node test.
func TestAllowedRowsShared(t *testing.T) {
	req := GenerateWith(3, GenParams{Nodes: 300, Resources: 2, Apps: 30, Shapes: 4, Types: 3, MaxCount: 20})
	m, err := build(req)
	if err != nil {
		t.Fatal(err)
	}
	byShape := map[int]*bool{}
	for g, gr := range m.groups {
		for n := range m.N {
			sh := &req.Shapes[gr.shape]
			want := m.matches(req.Apps[gr.app].Require, n) && m.matches(sh.Require, n) && vecpack.Fits(sh.Size, m.caps[n])
			if m.allowed[g][n] != want {
				t.Fatalf("group %d node %d: allowed %v, want %v", g, n, m.allowed[g][n], want)
			}
		}
		if req.Apps[gr.app].Require != nil {
			continue
		}
		if p, ok := byShape[gr.shape]; ok && p != &m.allowed[g][0] {
			t.Fatalf("group %d copies its shape's row", g)
		}
		byShape[gr.shape] = &m.allowed[g][0]
	}
	if len(byShape) == 0 {
		t.Fatal("no application without a predicate")
	}
}
