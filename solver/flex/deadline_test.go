package flex

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// stepCtx is a context whose Err reports DeadlineExceeded from its
// limit-th call on: a budget that runs out at an exact point, with no clock.
type stepCtx struct {
	context.Context
	calls, limit int
}

func (c *stepCtx) Err() error {
	c.calls++
	if c.calls >= c.limit {
		return context.DeadlineExceeded
	}
	return nil
}

func deadlineInstance(t *testing.T, n int) (*Instance, *Request) {
	t.Helper()
	raw, err := Generate(5, map[string]string{"jobs": strconv.Itoa(n)})
	if err != nil {
		t.Fatal(err)
	}
	req := raw.(*Request)
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	return in, req
}

// A deadline that passes after the solve has started (the second check)
// adds no ordering after RAP's (each is an MPS run, tens of ms at 10⁵
// jobs): the answer is RAP's schedule, Fair's beside it, with status
// timeout.
func TestExpiredSkipsOrderings(t *testing.T) {
	in, req := deadlineInstance(t, 200)
	res, meta, err := run(&stepCtx{Context: context.Background(), limit: 2}, in, req, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Source)
	}
	if len(got) != 2 || got[0] != "rap" || got[1] != "fair" {
		t.Errorf("candidates %v, want [rap fair]", got)
	}
	if meta.Status != solver.StatusTimeout {
		t.Errorf("status %q, want timeout", meta.Status)
	}
}

// The sampled local search checks the deadline before every MPS
// evaluation (one costs about 0.1 s at 10⁵ jobs): a deadline that passes
// after the first check allows exactly one.
func TestLocalSearchStopsAtNextEvaluation(t *testing.T) {
	in, _ := deadlineInstance(t, 200)
	ev := newEvaluator(in)
	prio := identity(in.N())
	_, _, stopped := ev.localSearch(&stepCtx{Context: context.Background(), limit: 2}, prio, ev.eval(prio), 1000, rand.New(rand.NewPCG(1, 2)))
	if !stopped || ev.evals != 2 {
		t.Errorf("stopped %v after %d evaluations, want true after 2 (the start and one move)", stopped, ev.evals)
	}
}

// A deadline gone before the solve starts gives Smith's ordering and its
// MPS schedule alone: Fair skipped, FIFO and the root bound still given,
// the same schedule and intervals as the Smith candidate of a full solve.
func TestExpiredGivesSmith(t *testing.T) {
	in, req := deadlineInstance(t, 200)
	five := 5
	req.MaxIntervals = &five
	res, meta, err := run(&stepCtx{Context: context.Background(), limit: 1}, in, req, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OrderingSource != "smith" || len(res.Candidates) != 1 || res.RAPMethod != "skipped" {
		t.Errorf("source %q, candidates %v, rap_method %q: want Smith's alone, RAP skipped", res.OrderingSource, res.Candidates, res.RAPMethod)
	}
	if meta.Status != solver.StatusTimeout {
		t.Errorf("status %q, want timeout", meta.Status)
	}
	if !res.Baselines.Fair.Skipped || res.Baselines.Fair.Objective != nil || res.Baselines.FIFO.Objective == nil {
		t.Errorf("baselines %+v: want Fair skipped, FIFO given", res.Baselines)
	}
	if meta.Objective == nil || *meta.Objective != res.Objective || meta.Bound == nil || *meta.Bound > res.Objective || *meta.Bound != math.Min(in.rootBound(), res.Objective) {
		t.Errorf("objective %v, bound %v: want the result's objective and the root bound below it", meta.Objective, meta.Bound)
	}
	if gap := solver.RelGap(*meta.Objective, *meta.Bound); !(gap > 0 && gap < 1) {
		t.Errorf("gap %g, want in (0, 1)", gap)
	}
	body, err := res.AppendJSON([]byte(`{"result":`))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := solver.DecodeAny(append(body, `,"meta":{"status":"timeout","elapsed_ms":1,"solver":"flex/smith","version":"x","input_sha256":"0000000000000000000000000000000000000000000000000000000000000000","seed":0}}`...))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := solver.NewRunner(nil, 0)
	if vs := r.Schemas().Validate(Problem().ResponseSchema, doc); len(vs) > 0 {
		t.Errorf("the answer violates the response schema: %+v", vs)
	}
	full, _, err := run(context.Background(), in, req, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	smith := math.NaN()
	for _, c := range full.Candidates {
		if c.Source == "smith" {
			smith = c.Objective
		}
	}
	if res.Objective != smith {
		t.Errorf("objective %g, the full solve's smith candidate %g", res.Objective, smith)
	}
	if *res.Baselines.FIFO.Objective != *full.Baselines.FIFO.Objective {
		t.Errorf("FIFO %g, the full solve's %g", *res.Baselines.FIFO.Objective, *full.Baselines.FIFO.Objective)
	}
	comp := make([]float64, in.N())
	for j, jo := range res.Jobs {
		comp[j] = jo.Completion
	}
	if in.Objective(comp) != res.Objective {
		t.Errorf("completions give %g, objective %g", in.Objective(comp), res.Objective)
	}
	// The intervals are those of Smith's MPS run, replayed in full.
	prio := sortedBy(in.N(), in.smithKey)
	rec := &mpsRecord{}
	in.mps(prio, false, newMPSWork(in.N()), make([]float64, in.N()), rec)
	want := in.intervalsOut(in.intervalsFromRecord(rec, comp, 5), in.idOrder())
	if !reflect.DeepEqual(res.Intervals, want) || !res.IntervalsCut {
		t.Errorf("intervals differ from Smith's MPS run (cut %v)", res.IntervalsCut)
	}
}

// A deadline nearer than the paper path's first answer needs counts as
// gone; a far one or none does not.
func TestDeadlineNearlyGone(t *testing.T) {
	const n = 100000
	near, cancel := context.WithTimeout(context.Background(), time.Duration(n)*firstAnswerPerJob/2)
	defer cancel()
	far, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want bool
	}{{"near", near, true}, {"far", far, false}, {"none", context.Background(), false}} {
		if got := deadlineNearlyGone(c.ctx, n); got != c.want {
			t.Errorf("%s deadline: nearly gone %v, want %v", c.name, got, c.want)
		}
	}
}

// Problem.Decode builds the instance alongside validation (PreBuild), and
// Solve uses that instance (here one with a single job, whatever raw
// says); a request that does not build reports its error from Solve.
func TestDecodeBuilds(t *testing.T) {
	one := []byte(`{"slots":4,"metric":"weighted_response_time","jobs":[{"id":"a","work":4,"min":1,"max":4}]}`)
	v, err := Problem().Decode(one)
	if err != nil {
		t.Fatal(err)
	}
	two := []byte(`{"slots":4,"metric":"weighted_response_time","jobs":[{"id":"a","work":4,"min":1,"max":4},{"id":"b","work":4,"min":1,"max":4}]}`)
	res, _, err := Problem().Solve(context.Background(), two, solver.Options{Decoded: v})
	if err != nil || len(res.(*Result).Jobs) != 1 {
		t.Fatalf("Solve ignored the built instance: %v, %v", res, err)
	}
	bad := []byte(`{"slots":4,"metric":"no_such_metric","jobs":[{"id":"a","work":4,"min":1,"max":4}]}`)
	w, err := Problem().Decode(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Problem().Solve(context.Background(), bad, solver.Options{Decoded: w}); err == nil {
		t.Fatal("Solve accepted an unknown metric")
	}
}
