package fairshare

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestExpiredBudgetBound: an mmf solve whose deadline has passed before
// its first LP answers status timeout with a real bound (every
// framework's value alone), not the objective echoed as a bound: on main
// it answered objective 0, bound 0, gap 0, which claims optimality.
func TestExpiredBudgetBound(t *testing.T) {
	v, err := Generate(3, map[string]string{"frameworks": "200", "servers": "2000", "types": "20", "policy": PolicyMMF})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	_, meta := solvertest.SolveExpired(t, Problem(), raw)
	if *meta.Gap == 0 {
		t.Fatalf("timeout before any LP claims gap 0 (objective %v, bound %v)", *meta.Objective, *meta.Bound)
	}
}

// TestExpiredBudgetSkipsCompare: with the budget gone, compare runs no
// further policies (on main every one of them ran and built its result,
// 12 results on a request whose budget was already spent) and says so.
func TestExpiredBudgetSkipsCompare(t *testing.T) {
	v, err := Generate(4, map[string]string{"frameworks": "50", "servers": "200", "policy": PolicyDRF})
	if err != nil {
		t.Fatal(err)
	}
	req := v.(*Request)
	req.Compare = true
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	out, meta, err := Solve(ctx, raw, solver.Options{Budget: time.Millisecond, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.(*Result).Compare); n != 0 {
		t.Fatalf("%d compare entries after the budget ran out", n)
	}
	if !strings.Contains(strings.Join(meta.Notes, "\n"), "compare: the budget ran out") {
		t.Fatalf("notes %q do not say compare was cut", meta.Notes)
	}
}
