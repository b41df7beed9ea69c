package fairshare

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// TestTooLargeAnswersQuick: mmf on 20,000 frameworks with a 1 s budget
// (an LP whose first level is predicted at minutes, which CLP could not
// stop on time) answers at once with quickShare's allocation, a positive
// objective and a note saying why, instead of starting the LP. Issue 28:
// at 100,000 frameworks a 2 s budget took 8–10 s and answered objective 0.
func TestTooLargeAnswersQuick(t *testing.T) {
	v, err := Generate(7, map[string]string{"frameworks": "20000", "servers": "20000", "types": "20", "policy": PolicyMMF})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, meta, err := Solve(ctx, raw, solver.Options{Budget: 3 * time.Second, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(meta.Notes, "\n")
	if meta.Status != solver.StatusTimeout || !strings.Contains(notes, "LP was not started") || !strings.Contains(notes, "quick feasible") {
		t.Fatalf("status %s, notes %q: want the LP skipped for a quick allocation", meta.Status, meta.Notes)
	}
	if meta.Objective == nil || !(*meta.Objective > 0) {
		t.Fatalf("objective %v, want > 0 (every framework gets tasks)", meta.Objective)
	}
	if len(out.(*Result).Frameworks) != 20000 {
		t.Fatalf("%d frameworks in the answer", len(out.(*Result).Frameworks))
	}
}

// TestTooLargeOnlyWhenPredicted: small instances, pf (which stops on
// time) and spent budgets are never skipped.
func TestTooLargeOnlyWhenPredicted(t *testing.T) {
	in := &instance{fws: make([]framework, 100_000)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if in.tooLarge(ctx, params{policy: PolicyMMF}) == "" {
		t.Errorf("mmf on 100,000 frameworks with 2 s: started")
	}
	if in.tooLarge(ctx, params{policy: PolicyEfficiency}) == "" {
		t.Errorf("efficiency on 100,000 frameworks with 2 s: started")
	}
	if why := in.tooLarge(ctx, params{policy: PolicyPF}); why != "" {
		t.Errorf("pf skipped: %s", why)
	}
	small := &instance{fws: make([]framework, 500)}
	if why := small.tooLarge(ctx, params{policy: PolicyMMF}); why != "" {
		t.Errorf("500 frameworks with 2 s skipped: %s", why)
	}
	if why := in.tooLarge(context.Background(), params{policy: PolicyMMF}); why != "" {
		t.Errorf("no deadline, skipped: %s", why)
	}
	spent, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	if why := in.tooLarge(spent, params{policy: PolicyMMF}); why != "" {
		t.Errorf("spent budget reported as too large: %s", why)
	}
}

// TestOrQuickReplacesNothing: an exact answer cut before its first level
// (all zero: mmf objective 0, pf -Inf) is replaced by quickShare's, and
// a better one is kept.
func TestOrQuickReplacesNothing(t *testing.T) {
	v, err := Generate(5, map[string]string{"frameworks": "300", "servers": "500", "types": "10"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := build(v.(*Request))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pol string
		obj float64
	}{{PolicyMMF, 0}, {PolicyPF, math.Inf(-1)}} {
		var meta solver.Meta
		a, obj := in.orQuick(params{policy: c.pol, criterion: CriterionTasks, alpha: 1}, make(alloc, len(in.fws)), c.obj, &meta)
		if !(obj > c.obj) || len(meta.Notes) != 1 {
			t.Fatalf("%s: objective %v from %v, notes %q: want the quick allocation", c.pol, obj, c.obj, meta.Notes)
		}
		placed := 0
		for _, m := range a {
			placed += len(m)
		}
		if placed == 0 {
			t.Fatalf("%s: quick allocation places nothing", c.pol)
		}
		var kept solver.Meta
		if _, o := in.orQuick(params{policy: c.pol, criterion: CriterionTasks, alpha: 1}, a, math.Inf(1), &kept); !math.IsInf(o, 1) || len(kept.Notes) != 0 {
			t.Fatalf("%s: a better exact answer replaced (objective %v, notes %q)", c.pol, o, kept.Notes)
		}
	}
}

// expiredAtOnce is a context whose deadline has passed at its first
// check: how many steps a filler runs before it stops is then how many
// run between checks.
type expiredAtOnce struct{ context.Context }

func (expiredAtOnce) Err() error { return context.DeadlineExceeded }

// TestFillChecksOften: progressive filling checks its deadline every few
// steps (at most 8 tasks placed on an expired context): at 100,000 ×
// 100,000 one step took about 5 ms, and 256 steps between checks ran a
// 50 ms budget to 1.1–1.4 s (issue 28).
func TestFillChecksOften(t *testing.T) {
	v, err := Generate(5, map[string]string{"frameworks": "50", "servers": "400", "types": "10", "policy": PolicyDRF})
	if err != nil {
		t.Fatal(err)
	}
	in, err := build(v.(*Request))
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{SelectRRR, SelectJoint} {
		f, err := newFiller(in, fillOpts{policy: PolicyDRF, selection: sel, tie: TiePaper})
		if err != nil {
			t.Fatal(err)
		}
		err = f.run(expiredAtOnce{context.Background()}, rand.New(rand.NewPCG(1, 0)))
		placed := 0.0
		for _, m := range f.xs {
			for _, x := range m {
				placed += x
			}
		}
		if err == nil || placed > 8 {
			t.Fatalf("%s: %v tasks placed on an expired context (err %v), want at most 8", sel, placed, err)
		}
	}
}

// TestMemorySkippedLP: mmf on 100,000 frameworks, whose LP tooLarge
// skips at any budget below its predicted time, is charged no exact
// per-pair state (it peaked at 392 MB, not pf's 1.7 GB); pf, compare and
// a budget long enough for the LP are.
func TestMemorySkippedLP(t *testing.T) {
	in := &instance{fws: make([]framework, 100_000), servers: make([]server, 50), resources: []string{"cpu", "mem"}}
	est := func(policy string, budgetMS int64, compare bool) int64 {
		req := &Request{Policy: policy, Compare: compare}
		if budgetMS > 0 {
			req.BudgetMS = &budgetMS
		}
		return memory(solver.Built[Request, *instance]{Req: req, In: in})
	}
	skipped, pf := est(PolicyMMF, 0, false), est(PolicyPF, 0, false)
	if skipped >= pf || skipped > 500<<20 {
		t.Fatalf("mmf at the default budget charged %d MB, pf %d MB: want mmf without the LP's state", skipped>>20, pf>>20)
	}
	if est(PolicyMMF, 0, true) != pf || est(PolicyMMF, 60*60*1000*1000, false) != pf {
		t.Fatalf("compare or a budget long enough for the LP not charged the exact state")
	}
}

// TestModelSpentBudgetBuildsNothing: on a budget already spent the exact
// model gives up before sizing its columns (reserve counted and allocated
// 5,000,000 of them at 100,000 × 100,000, 27 ms after mmf's 50 ms budget;
// issue 28): it allocates next to nothing, not the columns' slices.
func TestModelSpentBudgetBuildsNothing(t *testing.T) {
	v, err := Generate(5, map[string]string{"frameworks": "2000", "servers": "400", "types": "10"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := build(v.(*Request))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := newModelCtx(expiredAtOnce{context.Background()}, in, CriterionTasks)
	runtime.ReadMemStats(&after)
	if m != nil {
		t.Fatal("a model was built on a spent budget")
	}
	// The columns' slices are 33 bytes per usable pair, up to
	// 2,000 × 10 pairs here (660 KB), and the per-framework slices 50 KB;
	// the bare check allocates nothing.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Fatalf("%d bytes allocated on a spent budget, want at most 64 KiB", got)
	}
}
