package simulate

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
)

// TestIncrementalSameRuns: the simulator's shortcuts (expire scanning
// the queue only when the patience cut passes the oldest ask, compact
// only after a grant or an expiry, a
// utilization point updated for the one application that changed, DRF
// keeping each ask's best-fit node up to date) give runs byte for
// byte equal to the reference that scans and rebuilds everything every
// time, under X-Schedule, DRF and YARN on random traces with patience.
func TestIncrementalSameRuns(t *testing.T) {
	expired := 0
	for seed := range int64(30) {
		params := map[string]string{"nodes": strconv.Itoa(4 + int(seed%9)), "apps": strconv.Itoa(2 + int(seed%3)),
			"garbo": strconv.Itoa(int(seed % 2)), "requests": "150", "max_count": "6", "span": "200", "max_duration": "80"}
		fast, fastN := incrementalRuns(t, seed, params, false)
		ref, _ := incrementalRuns(t, seed, params, true)
		for i := range ref {
			if fast[i] != ref[i] {
				t.Fatalf("seed %d run %d: the shortcuts recorded\n%s\nthe reference\n%s", seed, i, fast[i], ref[i])
			}
		}
		expired += fastN
	}
	if expired == 0 {
		t.Fatal("no request expired: patience was never exercised")
	}
}

// incrementalRuns runs the generated trace of seed under X-Schedule and
// each baseline (reference: without the shortcuts) and returns each
// run's JSON and how many requests expired.
func incrementalRuns(t *testing.T, seed int64, params map[string]string, reference bool) ([]string, int) {
	t.Helper()
	v, err := Generate(seed, params)
	if err != nil {
		t.Fatal(err)
	}
	req := v.(*Request)
	patience := 5.0 + float64(seed%4)*10
	if req.Settings == nil {
		req.Settings = &Settings{}
	}
	req.Settings.Patience = &patience
	req.Baselines = []string{"drf", "yarn_fair"}
	in, err := Build(req)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	ctx := context.Background()
	var out []string
	expired := 0
	add := func(s *sim) {
		s.scanAll, s.rec.rebuild = reference, reference
		if d, ok := s.sched.(*drf); ok {
			d.remember = !reference
		}
		if y, ok := s.sched.(*yarn); ok {
			y.remember = !reference
			y.clock = func() float64 { return s.now }
		}
		end, err := s.run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s.rec.run.Ended, s.rec.run.Packing = end, s.sched.packing()
		b, err := json.Marshal(struct {
			Run    Run
			Series []PairSeries
		}{s.rec.run, s.rec.pairSeries()})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
		for _, r := range s.rec.order {
			expired += r.Expired
		}
	}
	x := newXsched(in.model, in.req.Requests)
	add(in.newSim(ctx, x, x, nil, 0))
	for _, b := range in.baselines() {
		sched, interval := in.baselineScheduler(b)
		s := in.newSim(ctx, sched, nil, &b, 0)
		s.interval = interval
		add(s)
	}
	return out, expired
}
