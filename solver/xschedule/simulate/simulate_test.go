package simulate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestTestdata: every testdata request and the example solve, twice
// alike, within the response schema.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	files = append(files, filepath.Join("..", "..", "..", "examples", "xschedule-simulate.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := solvertest.Check(t, Problem(), raw)
		if out["meta"].(map[string]any)["status"] != string(solver.StatusFeasible) {
			t.Errorf("%s: status %v", f, out["meta"])
		}
	}
}

// TestBadInput: semantic errors are 422s naming the pointer, by
// xschedule/assign's checks at the simulator's pointers.
func TestBadInput(t *testing.T) {
	cases := []struct {
		file    string
		edit    func(m map[string]any)
		pointer string
		kind    solver.Kind
	}{
		{"", func(m map[string]any) { at(m, "requests", 0)["app"] = "nobody" }, "/requests/0/app", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "containers", 1)["node"] = "n9" }, "/containers/1/node", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "containers", 1)["owner"] = "nobody" }, "/containers/1/owner", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "requests", 1)["size"] = []any{5, 1} }, "/requests/1/size", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "apps", 0)["sharing_bound"] = -1 }, "/apps/0/sharing_bound", solver.KindSchema},
		{"", func(m map[string]any) { at(m, "requests", 1)["id"] = "web-1" }, "/requests/1/id", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "requests", 3)["host"] = "n9" }, "/requests/3/host", solver.KindInvalid},
		{"", func(m map[string]any) { at(m, "requests", 3)["duration"] = 0 }, "/requests/3/duration", solver.KindSchema},
		{"", func(m map[string]any) { at(m, "containers", 6)["size"] = []any{8, 16} }, "/containers/4/node", solver.KindInvalid},
		{"placement.json", func(m map[string]any) {
			n := at(m, "placement", "result", "nodes", 0)
			c := n["containers"].([]any)
			n["containers"] = append(c, c...)
		}, "/placement/result/nodes/0/name", solver.KindInvalid},
	}
	for _, tc := range cases {
		path := filepath.Join("..", "..", "..", "examples", "xschedule-simulate.json")
		if tc.file != "" {
			path = filepath.Join("testdata", tc.file)
		}
		var m map[string]any
		raw, _ := os.ReadFile(path)
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		tc.edit(m)
		raw, _ = json.Marshal(m)
		e := solvertest.ExpectError(t, Problem(), raw, tc.kind)
		found := false
		for _, v := range e.Violations {
			found = found || v.Pointer == tc.pointer
		}
		if !found {
			t.Errorf("want pointer %s, violations %+v", tc.pointer, e.Violations)
		}
	}
}

// at walks a decoded JSON document to an object.
func at(m map[string]any, path ...any) map[string]any {
	var cur any = m
	for _, p := range path {
		switch k := p.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur.(map[string]any)
}

// stopAfter is a context whose Err turns DeadlineExceeded after n
// calls: a budget that runs out at a deterministic point.
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Err() error {
	if c.n <= 0 {
		return context.DeadlineExceeded
	}
	c.n--
	return nil
}

// TestBudget: a run cut short says how far it got, with status timeout
// and what it simulated so far; an expired budget answers at time 0.
func TestBudget(t *testing.T) {
	raw, _ := os.ReadFile(filepath.Join("testdata", "gen-default.json"))
	p := Problem()
	full, meta, err := p.Solve(context.Background(), raw, solver.Options{})
	if err != nil || meta.Status != solver.StatusFeasible {
		t.Fatalf("full run: %v %v", meta.Status, err)
	}
	fr := full.(*Result)
	cut, meta, err := p.Solve(&stopAfter{context.Background(), 60}, raw, solver.Options{})
	if err != nil || meta.Status != solver.StatusTimeout {
		t.Fatalf("cut run: %v %v", meta.Status, err)
	}
	r := cut.(*Result)
	if r.Ended != EndBudget || r.Baselines.DRF.Ended != EndBudget || !(r.Until > 0 && r.Until < fr.Until) {
		t.Errorf("cut run ended %s at %g (DRF %s), full run at %g", r.Ended, r.Until, r.Baselines.DRF.Ended, fr.Until)
	}
	if r.Summary.Granted == 0 || r.Summary.Granted >= fr.Summary.Granted {
		t.Errorf("cut run granted %d, full run %d", r.Summary.Granted, fr.Summary.Granted)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	out, meta, err := p.Solve(ctx, raw, solver.Options{})
	if err != nil || meta.Status != solver.StatusTimeout || out.(*Result).Until != 0 {
		t.Errorf("expired budget: %v %v %+v", meta.Status, err, out.(*Result).Summary)
	}
}

// TestLimits: events beyond max_events are counted, series stop at
// max_points with truncated set.
func TestLimits(t *testing.T) {
	v, _ := Generate(3, nil)
	req := v.(*Request)
	ev, pts := 10, 5
	req.Limits = &Limits{MaxEvents: &ev, MaxPoints: &pts}
	r := simulate(t, req)
	if len(r.Events) != ev || r.Dropped == 0 {
		t.Errorf("%d events listed, %d dropped", len(r.Events), r.Dropped)
	}
	if len(r.Utilization.Points) != pts || !r.Utilization.Truncated {
		t.Errorf("utilisation: %d points, truncated %v", len(r.Utilization.Points), r.Utilization.Truncated)
	}
	for _, s := range r.Imbalance {
		if len(s.Points) > pts {
			t.Errorf("pair (%s, %s): %d points", s.A, s.B, len(s.Points))
		}
	}
}

// TestTinyInterval: an interval tiny against the time (rounds at
// multiples floats cannot count) still moves time on, so a budget ends
// the run (the round index once overflowed int64 and the loop spun).
func TestTinyInterval(t *testing.T) {
	v, _ := Generate(2, map[string]string{"requests": "5"})
	req := v.(*Request)
	iv := 1e-300
	req.Settings.SchedulingInterval = &iv
	for i := range req.Requests {
		req.Requests[i].Arrival += 1e6
	}
	// More than the cluster holds: pending while containers are in use,
	// so rounds are due.
	req.Requests[0].Count = 1000
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	out, meta, err := solve(&stopAfter{context.Background(), 2000}, solver.Built[Request, *Instance]{Req: req, In: in}, solver.Options{})
	if err != nil || meta.Status != solver.StatusTimeout || out.(*Result).Until < 1e6 {
		t.Fatalf("status %v, error %v, until %g", meta.Status, err, out.(*Result).Until)
	}
}

// TestHugeCounts: memory follows the number of asks, not their counts
// (100 requests of a million containers each once held 800 MB of ask
// times).
func TestHugeCounts(t *testing.T) {
	v, _ := Generate(1, map[string]string{"requests": "100"})
	req := v.(*Request)
	for i := range req.Requests {
		req.Requests[i].Count = 1000000
	}
	h := 50.0
	req.Horizon = &h
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := simulate(t, req)
	runtime.ReadMemStats(&after)
	if r.Summary.Asked < 10000000 || r.Summary.Waiting == 0 {
		t.Errorf("summary %+v", r.Summary)
	}
	if mb := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20); mb > 64 {
		t.Errorf("allocated %.0f MB", mb)
	}
}

// TestLate: a run stops while the time left still covers writing what
// it recorded (encodeItem per item).
func TestLate(t *testing.T) {
	s := &sim{rec: &recorder{count: 1000}}
	if s.late() {
		t.Error("late without a deadline")
	}
	s.deadline = time.Now().Add(time.Hour)
	if s.late() {
		t.Error("late with an hour left for 1000 items")
	}
	s.deadline = time.Now().Add(time.Millisecond)
	if !s.late() {
		t.Errorf("not late with 1 ms left for 1000 items of %v", encodeItem)
	}
}

// TestSubnormalGrace: a grace period too short to move the clock
// (5e-324 s, a legal positive value) preempts at once, as grace 0 does;
// the simulator once took such a preemption for the end of a notice and
// popped a promise that was never made (a panic, found by the bad-input
// sweep).
func TestSubnormalGrace(t *testing.T) {
	run := func(grace float64) Summary {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "xschedule-simulate.json"))
		if err != nil {
			t.Fatal(err)
		}
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		req.Settings.GracePeriod = &grace
		return simulate(t, &req).Summary
	}
	tiny, zero := run(5e-324), run(0)
	if tiny.Preemptions == 0 || tiny != zero {
		t.Errorf("grace 5e-324: %+v; grace 0: %+v", tiny, zero)
	}
}
