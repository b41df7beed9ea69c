package xschedule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// BurstySetting is the workload where the paper says sharing should
// help: two applications own 16 containers of (1, 1) each on two nodes;
// "light" (a FIFO master asking owned_only) runs a 2-task job of 10 s
// tasks every 30 s for 600 s, so most of its containers sit idle;
// "bursty" (a FIFO master) runs three 40-task jobs of 20 s tasks at 0,
// 200 and 400 s, more than its 15 task containers hold. Share makes
// bursty ask owned_first (it borrows light's idle containers) instead of
// owned_only; both applications have sharing bound 0 (light takes its
// containers back on demand) and notices of Grace seconds.
type BurstySetting struct {
	Share bool
	Grace float64
	// Readings are X-Schedule's readings (nil: the defaults).
	Readings *assign.Readings
}

// BurstyOutcome is each application's average job response time (s)
// and the run's preemptions.
type BurstyOutcome struct {
	Light, Bursty float64
	Preemptions   int
}

// BurstyRequest is the simulation of s.
func BurstyRequest(s BurstySetting) *simulate.Request {
	req := &simulate.Request{Resources: []string{"cpu", "mem"}, Requests: []simulate.Ask{}}
	for n := range 2 {
		req.Nodes = append(req.Nodes, assign.Node{Name: fmt.Sprintf("n%d", n), Rack: "r0", Capacity: []float64{16, 16}})
	}
	apps := []string{"light", "bursty"}
	for k := range 32 {
		req.Containers = append(req.Containers, simulate.Container{ID: fmt.Sprintf("c%d", k), Node: fmt.Sprintf("n%d", k%2),
			Size: []float64{1, 1}, Owner: apps[k%2]})
	}
	var light, bursty []simulate.MasterJobIn
	for i := range 20 {
		light = append(light, simulate.MasterJobIn{ID: fmt.Sprintf("l%d", i), Arrival: 30 * float64(i), Tasks: 2, TaskDuration: 10})
	}
	for i := range 3 {
		bursty = append(bursty, simulate.MasterJobIn{ID: fmt.Sprintf("b%d", i), Arrival: 200 * float64(i), Tasks: 40, TaskDuration: 20})
	}
	typ := assign.OwnedOnly
	if s.Share {
		typ = assign.OwnedFirst
	}
	for _, a := range apps {
		req.Apps = append(req.Apps, assign.App{Name: a, Mode: assign.ModeShare})
	}
	req.Masters = []simulate.MasterIn{
		{App: "light", Policy: "fifo", TaskSize: []float64{1, 1}, Type: assign.OwnedOnly, Jobs: light},
		{App: "bursty", Policy: "fifo", TaskSize: []float64{1, 1}, Type: typ, Jobs: bursty},
	}
	grace := s.Grace
	req.Settings = &simulate.Settings{Settings: assign.Settings{GracePeriod: &grace, Readings: s.Readings}}
	return req
}

// RunBursty simulates s through POST /v1/xschedule/simulate's solver.
func RunBursty(ctx context.Context, s BurstySetting) (BurstyOutcome, error) {
	raw, err := json.Marshal(BurstyRequest(s))
	if err != nil {
		return BurstyOutcome{}, err
	}
	v, _, err := simulate.Problem().Solve(ctx, raw, solver.Options{})
	if err != nil {
		return BurstyOutcome{}, err
	}
	res := v.(*simulate.Result)
	out := BurstyOutcome{Preemptions: res.Summary.Preemptions}
	for _, m := range res.Masters {
		if m.AvgResponse == nil {
			return out, fmt.Errorf("bursty %+v: %s did not finish (%s at %g)", s, m.App, res.Ended, res.Until)
		}
		switch m.App {
		case "light":
			out.Light = *m.AvgResponse
		case "bursty":
			out.Bursty = *m.AvgResponse
		}
	}
	return out, nil
}

// BurstyReport prints the bursty/light workload with and without
// sharing, for notices of 0 and 5 s, under the default readings and the
// literal ones.
func BurstyReport(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "\n| readings | grace | bursty ART shared / alone | light ART shared / alone | preemptions |\n|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		r    *assign.Readings
	}{{"default", nil}, {"literal", assign.ReadingsLiteral()}} {
		for _, g := range []float64{0, 5} {
			alone, err := RunBursty(ctx, BurstySetting{Grace: g, Readings: r.r})
			if err != nil {
				return err
			}
			shared, err := RunBursty(ctx, BurstySetting{Share: true, Grace: g, Readings: r.r})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "| %s | %g s | %.1f / %.1f | %.1f / %.1f | %d |\n", r.name, g, shared.Bursty, alone.Bursty, shared.Light, alone.Light, shared.Preemptions)
		}
	}
	return nil
}
