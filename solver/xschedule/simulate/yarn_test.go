package simulate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// solveFile solves a testdata request, edited by edit, and returns the
// result.
func solveFile(t *testing.T, file string, edit func(*Request)) *Result {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&req)
	}
	raw, err = json.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := Problem().Solve(context.Background(), raw, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v.(*Result)
}

// firstGrant is a request's first grant time in a run (-1: none).
func firstGrant(r Run, id string) float64 {
	for _, q := range r.Requests {
		if q.ID == id && q.FirstGrant != nil {
			return *q.FirstGrant
		}
	}
	return -1
}

// TestYarnReservationBlocksSmallerAsk: on one node of 4 cpu with 3 in
// use (u1 holds 2 for 10 s, big 1 for 100 s), big asks for 3 at t=2 and
// reserves the node; small, whose dominant share (0) is lower than
// big's, asks for 1 at t=3, which fits the free cpu, but the reservation
// keeps the node for big: big gets its 3 when u1's 2 come back, small
// only when big's first container ends at 100. DRF's best fit (no
// reservations) serves small at once.
func TestYarnReservationBlocksSmallerAsk(t *testing.T) {
	res := solveFile(t, "yarn.json", nil)
	if got := firstGrant(res.Baselines.DRF, "small-0"); got != 3 {
		t.Errorf("drf: small granted at %g, want 3 (it fits at once)", got)
	}
	for _, r := range []*Run{res.Baselines.YarnFair, res.Baselines.YarnCapacity} {
		if r == nil {
			t.Fatal("a YARN baseline asked for is missing")
		}
		if got, want := firstGrant(*r, "big-1"), firstGrant(*r, "u1-0")+10; got != want {
			t.Errorf("big's reserved ask granted at %g, want %g (u1's release)", got, want)
		}
		if got := firstGrant(*r, "small-0"); got != 100 {
			t.Errorf("small granted at %g, want 100 (the node is reserved for big, then full)", got)
		}
	}
}

// TestYarnCapacityFIFO: two users ask for 8 containers of 1 cpu on one
// node of 4, first at 0 and second at 0.5, each held 10 s. The Capacity
// Scheduler (FIFO) serves every container of the first before any of
// the second; the Fair Scheduler alternates (the second's dominant share
// is lower as soon as the first holds one).
func TestYarnCapacityFIFO(t *testing.T) {
	res := solveFile(t, "yarn.json", func(r *Request) {
		r.Apps = []assign.App{{Name: "first"}, {Name: "second"}}
		r.Containers = []Container{{ID: "c0", Node: "n0", Size: []float64{4}, Owner: "first"}}
		r.Requests = []Ask{
			{ID: "first-0", App: "first", Count: 8, Size: []float64{1}, Arrival: 0, Duration: 10},
			{ID: "second-0", App: "second", Count: 8, Size: []float64{1}, Arrival: 0.5, Duration: 10},
		}
	})
	c, f := res.Baselines.YarnCapacity, res.Baselines.YarnFair
	if got := firstGrant(*c, "second-0"); got != 20 {
		t.Errorf("yarn_capacity: second's first grant at %g, want 20 (after all of first's)", got)
	}
	if got := *c.Requests[0].LastGrant; got != 10 {
		t.Errorf("yarn_capacity: first's last grant at %g, want 10", got)
	}
	if got := firstGrant(*f, "second-0"); got != 1 {
		t.Errorf("yarn_fair: second's first grant at %g, want 1 (lower dominant share at the next heartbeat)", got)
	}
}

// TestLatencies: one job of 2 tasks of 10 s on 3 free containers.
// X-Schedule's master asks for its AM and tasks at once and starts them
// at 0 (response 10); a baseline's job asks for its tasks once its AM is
// granted, served from the next round (11; yarn_fair places one
// container per heartbeat, 12). With an AM start-up of 5 s and a launch
// of 2 s, X-Schedule's tasks start when the AM is up, at 5 (15); a
// baseline's job asks at 5, is granted then and starts its tasks at 7
// (17; yarn_fair's second at 8).
func TestLatencies(t *testing.T) {
	edit := func(am, launch float64) func(*Request) {
		return func(r *Request) {
			r.Apps = []assign.App{{Name: "a"}}
			r.Containers = []Container{{ID: "c0", Node: "n0", Size: []float64{1}, Owner: "a"},
				{ID: "c1", Node: "n0", Size: []float64{1}, Owner: "a"}, {ID: "c2", Node: "n0", Size: []float64{1}, Owner: "a"}}
			r.Requests = []Ask{}
			r.Masters = []MasterIn{{App: "a", Policy: "fifo", TaskSize: []float64{1}, Jobs: []MasterJobIn{{ID: "j", Tasks: 2, TaskDuration: 10}}}}
			r.Settings = &Settings{AMLatency: &am, LaunchLatency: &launch}
		}
	}
	for _, tc := range []struct {
		am, launch             float64
		x, drf, fair, capacity float64
	}{{0, 0, 10, 11, 12, 11}, {5, 2, 15, 17, 18, 17}} {
		res := solveFile(t, "yarn.json", edit(tc.am, tc.launch))
		for _, c := range []struct {
			name string
			r    Run
			want float64
		}{{"xschedule", res.Run, tc.x}, {"drf", res.Baselines.DRF, tc.drf}, {"yarn_fair", *res.Baselines.YarnFair, tc.fair},
			{"yarn_capacity", *res.Baselines.YarnCapacity, tc.capacity}} {
			if got := *c.r.Masters[0].AvgResponse; got != c.want {
				t.Errorf("latencies %g/%g, %s: response %g, want %g", tc.am, tc.launch, c.name, got, c.want)
			}
		}
	}
}

// TestYarnAssignMultiple: with assign_multiple a Fair Scheduler
// heartbeat fills the node (first gets all 4 cpu at 0, second none
// until they come back at 10); without it one container per heartbeat
// lets second in at 1. A jitter heartbeat order on one node changes
// nothing.
func TestYarnAssignMultiple(t *testing.T) {
	for _, tc := range []struct {
		multiple bool
		order    string
		first    int // first's grants at 0
		second   float64
	}{{false, "", 1, 1}, {true, "", 4, 10}, {true, "jitter", 4, 10}} {
		res := solveFile(t, "yarn.json", func(r *Request) {
			r.Apps = []assign.App{{Name: "first"}, {Name: "second"}}
			r.Containers = []Container{{ID: "c0", Node: "n0", Size: []float64{4}, Owner: "first"}}
			r.Requests = []Ask{
				{ID: "first-0", App: "first", Count: 8, Size: []float64{1}, Arrival: 0, Duration: 10},
				{ID: "second-0", App: "second", Count: 8, Size: []float64{1}, Arrival: 0.5, Duration: 10},
			}
			m := tc.multiple
			r.Settings = &Settings{AssignMultiple: &m, HeartbeatOrder: tc.order}
		})
		f := *res.Baselines.YarnFair
		at0 := 0
		for _, e := range f.Events {
			if e.Kind == KindGrant && e.T == 0 {
				at0++
			}
		}
		if at0 != tc.first || firstGrant(f, "second-0") != tc.second {
			t.Errorf("assign_multiple %v %s: %d grants at 0, second first served at %g; want %d and %g",
				tc.multiple, tc.order, at0, firstGrant(f, "second-0"), tc.first, tc.second)
		}
	}
}
