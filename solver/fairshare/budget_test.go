package fairshare

import (
	"context"
	"encoding/json"
	"math"
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

// TestExpiredBudgetSkipsModel: with the budget spent before the model is
// built, mmf and pf answer at once instead of building |frameworks| ×
// |groups| columns first (100,000 × 50 took 1 s past a 50 ms budget on
// main, and pf then also ran its first LP setup): quickShare's feasible
// allocation with its objective (every framework gets some tasks, within
// every server's capacity), mmf's bounded by frameworks' values alone;
// an integer request gets the empty allocation.
func TestExpiredBudgetSkipsModel(t *testing.T) {
	for _, c := range []struct {
		pol     string
		integer bool
	}{{PolicyMMF, false}, {PolicyPF, false}, {PolicyMMF, true}} {
		v, err := Generate(5, map[string]string{"frameworks": "300", "servers": "500", "types": "10", "policy": c.pol})
		if err != nil {
			t.Fatal(err)
		}
		req := v.(*Request)
		req.Integer = &c.integer
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		// The Runner's budget has room for quickShare; the reserve-shifted
		// context does not for the model.
		out, meta, err := Solve(ctx, raw, solver.Options{Budget: time.Hour, Start: time.Now()})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if meta.Status != solver.StatusTimeout || !strings.Contains(strings.Join(meta.Notes, "\n"), "before the model") {
			t.Fatalf("%s: status %s, notes %q: the model was built on a spent budget", c.pol, meta.Status, meta.Notes)
		}
		in, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		res := out.(*Result)
		minShare := math.Inf(1)
		for n, f := range res.Frameworks {
			if c.integer != (f.Total == 0) {
				t.Fatalf("%s integer %v: %s got %v tasks", c.pol, c.integer, f.Name, f.Total)
			}
			if in.canRun(n) {
				minShare = math.Min(minShare, f.Share)
			}
		}
		for name, u := range res.Unused {
			for r, x := range u {
				if x < 0 {
					t.Fatalf("%s: server %s over its capacity of resource %d by %g", c.pol, name, r, -x)
				}
			}
		}
		b, ok := in.aloneBound(CriterionTasks)
		switch {
		case c.integer:
			if c.pol == PolicyMMF && (meta.Objective == nil || *meta.Objective != 0) {
				t.Fatalf("mmf integer: objective %v, want 0 (nothing allocated)", meta.Objective)
			}
		case c.pol == PolicyMMF:
			if !ok || meta.Bound == nil || *meta.Bound != b || meta.Objective == nil || *meta.Objective != minShare || !(minShare > 0) || minShare > b {
				t.Fatalf("mmf: objective %v, bound %v, want the smallest share %v > 0 and the alone bound %v", meta.Objective, meta.Bound, minShare, b)
			}
		default:
			if meta.Objective == nil || res.PFObjective == nil {
				t.Fatalf("pf: objective %v, pf_objective %v, want both", meta.Objective, res.PFObjective)
			}
		}
	}
}

// TestQuickShareNeedsRoom: a budget with less left than quickShare's
// answer costs gets the empty allocation.
func TestQuickShareNeedsRoom(t *testing.T) {
	v, err := Generate(5, map[string]string{"frameworks": "300", "servers": "500", "types": "10"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	out, meta, err := Solve(ctx, raw, solver.Options{Budget: time.Millisecond, Start: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.(*Result).Frameworks {
		if f.Total != 0 {
			t.Fatalf("%s got %v tasks on a spent budget", f.Name, f.Total)
		}
	}
	if meta.Objective == nil || *meta.Objective != 0 || !strings.Contains(strings.Join(meta.Notes, "\n"), "the allocation is empty") {
		t.Fatalf("objective %v, notes %q: want the empty allocation", meta.Objective, meta.Notes)
	}
}

// TestModelCtx: newModelCtx builds newModel's model on a live context
// and gives up (nil) on a spent one.
func TestModelCtx(t *testing.T) {
	v, err := Generate(6, map[string]string{"frameworks": "40", "servers": "200", "types": "8"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := build(v.(*Request))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := newModelCtx(ctx, in, CriterionTasks)
	cancel()
	if m == nil || len(m.cols) == 0 || len(m.cols) != cap(m.cols) {
		t.Fatalf("live context: model %v (reserve must size the columns exactly)", m)
	}
	if newModelCtx(ctx, in, CriterionTasks) != nil {
		t.Fatal("a model built on a cancelled context")
	}
}

// TestDecodeBuilds: the Decode hook builds the instance alongside
// validation (on main it only decoded, and Solve spent 0.25 s of a 50 ms
// budget building 100,000 × 100,000), Solve answers the same bytes from
// it, and a request that does not build still gets Solve's error.
func TestDecodeBuilds(t *testing.T) {
	v, err := Generate(7, map[string]string{"frameworks": "30", "servers": "100", "types": "6"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := Problem().Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pre.(*Request); ok || pre == nil {
		t.Fatalf("Decode made %T, not a built instance", pre)
	}
	opts := solver.Options{Budget: time.Minute, Start: time.Now()}
	plain, _, err := Solve(context.Background(), raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Decoded = pre
	built, _, err := Solve(context.Background(), raw, opts)
	if err != nil {
		t.Fatal(err)
	}
	plain.(*Result).ElapsedMS, built.(*Result).ElapsedMS = nil, nil // wall time, the one field allowed to differ
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(built)
	if string(a) != string(b) {
		t.Fatal("the prebuilt instance answers other bytes")
	}
	bad := []byte(`{"resources": ["cpu", "cpu"], "servers": [{"name": "a", "capacity": [1, 1]}], "frameworks": [{"name": "f", "demand": [1, 1]}], "policy": "mmf"}`)
	pre, err = Problem().Decode(bad)
	if err != nil {
		t.Fatal(err)
	}
	opts.Decoded = pre
	if _, _, err := Solve(context.Background(), bad, opts); err == nil {
		t.Fatal("a request that does not build solved")
	}
}
