package simulate

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// runSim builds and solves req without a deadline.
func runSim(t *testing.T, req *Request) *Result {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := solve(context.Background(), solver.Built[Request, *Instance]{Req: req, In: in}, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.(*Result)
}

// smallMasters is two applications of 4 containers of [1, 1] on one
// node: a runs a master with the given policy and type over three jobs,
// b only a trace request at time 5 for 4 containers held 10 s.
func smallMasters(policy, typ string, bound, grace float64) *Request {
	req := &Request{Resources: []string{"cpu", "mem"}, Nodes: []assign.Node{{Name: "n", Rack: "r", Capacity: []float64{8, 8}}},
		Apps:     []assign.App{{Name: "a", Mode: assign.ModeShare, SharingBound: bound}, {Name: "b", Mode: assign.ModeShare, SharingBound: bound}},
		Requests: []Ask{{ID: "b1", App: "b", Count: 4, Size: []float64{1, 1}, Arrival: 5, Duration: 10}},
		Masters: []MasterIn{{App: "a", Policy: policy, TaskSize: []float64{1, 1}, Type: typ, Jobs: []MasterJobIn{
			{ID: "big", Arrival: 0, Tasks: 12, TaskDuration: 3}, {ID: "s1", Arrival: 1, Tasks: 2, TaskDuration: 2}, {ID: "s2", Arrival: 2, Tasks: 1, TaskDuration: 4}}}},
		Settings: &Settings{Settings: assign.Settings{GracePeriod: &grace}}}
	for k := range 8 {
		owner := "a"
		if k >= 4 {
			owner = "b"
		}
		req.Containers = append(req.Containers, Container{ID: string(rune('0' + k)), Node: "n", Size: []float64{1, 1}, Owner: owner})
	}
	return req
}

// checkMasterOut checks that every job completed after it arrived, no
// earlier than its tasks' duration allows, and the summary agrees.
func checkMasterOut(t *testing.T, o MasterOut, jobs []MasterJobIn) {
	t.Helper()
	if o.Completed != len(jobs) || o.AvgResponse == nil || o.Makespan == nil {
		t.Fatalf("%s/%s: %d of %d jobs completed (%+v)", o.App, o.Policy, o.Completed, len(jobs), o)
	}
	sum, mk := 0.0, 0.0
	for k, j := range o.Jobs {
		in := jobs[k]
		if j.ID != in.ID || *j.Completion < in.Arrival+in.TaskDuration || *j.Response != *j.Completion-in.Arrival {
			t.Fatalf("%s/%s job %+v for input %+v", o.App, o.Policy, j, in)
		}
		sum += *j.Response
		mk = max(mk, *j.Completion)
	}
	if math.Abs(*o.AvgResponse-sum/float64(len(jobs))) > 1e-9 || *o.Makespan != mk {
		t.Fatalf("%s/%s: avg %g makespan %g, jobs say %g and %g", o.App, o.Policy, *o.AvgResponse, *o.Makespan, sum/float64(len(jobs)), mk)
	}
}

func TestMastersCompleteEveryJob(t *testing.T) {
	for _, p := range []string{"fifo", "fair", "flex"} {
		for _, typ := range []string{"owned_only", "owned_first"} {
			req := smallMasters(p, typ, 0, 0)
			res := runSim(t, req)
			if len(res.Masters) != 1 || res.Masters[0].Policy != p || len(res.Baselines.DRF.Masters) != 1 || res.Baselines.DRF.Masters[0].Policy != "drf" {
				t.Fatalf("%s %s: masters %+v, drf %+v", p, typ, res.Masters, res.Baselines.DRF.Masters)
			}
			checkMasterOut(t, res.Masters[0], req.Masters[0].Jobs)
			checkMasterOut(t, res.Baselines.DRF.Masters[0], req.Masters[0].Jobs)
			// The AM holds one of a's 4 containers: 3 run tasks.
			if typ == "owned_only" && *res.Masters[0].Makespan < 12*3/3+2*2/3 {
				t.Fatalf("%s owned_only: makespan %g below the 3-container bound", p, *res.Masters[0].Makespan)
			}
		}
	}
}

// TestMasterBorrowsAndLosesWork: with owned_first the master borrows b's
// idle containers; b's request at 5 reclaims them at once (bound 0, grace
// 0), the tasks there lose their work and run again, and every job still
// completes. owned_only borrows nothing and loses nothing.
func TestMasterBorrowsAndLosesWork(t *testing.T) {
	restarts := func(r *Result) int {
		n := 0
		for _, j := range r.Masters[0].Jobs {
			n += j.Restarts
		}
		return n
	}
	first := runSim(t, smallMasters("fifo", "owned_first", 0, 0))
	if first.Summary.Preemptions == 0 || restarts(first) == 0 || first.Apps[0].Borrowed == 0 {
		t.Fatalf("owned_first: %d preemptions, %d restarts, borrowed %g: want the master to borrow and lose work", first.Summary.Preemptions, restarts(first), first.Apps[0].Borrowed)
	}
	only := runSim(t, smallMasters("fifo", "owned_only", 0, 0))
	if only.Summary.Preemptions != 0 || restarts(only) != 0 || only.Apps[0].Borrowed != 0 {
		t.Fatalf("owned_only: %d preemptions, %d restarts, borrowed %g", only.Summary.Preemptions, restarts(only), only.Apps[0].Borrowed)
	}
	if *first.Masters[0].Makespan >= *only.Masters[0].Makespan {
		t.Fatalf("borrowing b's idle containers did not help: makespan %g against %g", *first.Masters[0].Makespan, *only.Masters[0].Makespan)
	}
}

// TestDRFAMGate: under DRF each job is a user with its own AM; with the AM
// share at one container's, one job runs at a time, in arrival order.
func TestDRFAMGate(t *testing.T) {
	req := smallMasters("fair", "owned_only", 0, 0)
	req.Requests = []Ask{}
	share := 1.0 / 8
	req.Settings.AMShare = &share
	res := runSim(t, req)
	jobs := res.Baselines.DRF.Masters[0].Jobs
	// Rounds run each second: a job's AM is granted in the round at the
	// time it may ask, its tasks (asked then) in the next round. big: AM at
	// 0, 7 task containers at 1, 12 tasks of 3 s in two waves, done at 7;
	// s1: AM at 7, tasks at 8, done at 10; s2: AM at 10, task 11-15.
	want := []float64{7, 10, 15}
	for k, j := range jobs {
		if j.Completion == nil || *j.Completion != want[k] {
			t.Fatalf("DRF job %s completes at %v, want %g", j.ID, *j.Completion, want[k])
		}
	}
	// With the default share (4 AMs) s1's AM is granted at 1 (DRF serves
	// the poorer user first), big gets the other 6. Reusing its containers
	// big keeps them until its tasks run out at 7: s1's tasks run 7-9.
	// Giving each back at its task's end, big's 6 come back at 4 and DRF
	// shares them: s1's tasks run 4-6.
	for _, c := range []struct {
		release bool
		want    float64
	}{{false, 9}, {true, 6}} {
		req := smallMasters("fair", "owned_only", 0, 0)
		req.Requests = []Ask{}
		req.Masters[0].ReleaseEachTask = c.release
		s1 := runSim(t, req).Baselines.DRF.Masters[0].Jobs[1]
		if *s1.Completion != c.want {
			t.Fatalf("release %v: s1 completes at %g, want %g", c.release, *s1.Completion, c.want)
		}
	}
}

// TestTable1OwnedOnly runs the paper's Table 1 through the simulator with
// no borrowing (owned_only): every job of the three masters and of the
// 93 DRF users completes; 375 tasks of 36 s on 25 task containers end no
// earlier than 540 s; Flex's average response time is the lowest of the
// three masters, and DRF's makespan the longest.
func TestTable1OwnedOnly(t *testing.T) {
	req := Table1Request(36, 0, 1, 0, 0, "owned_only", "owned_only")
	res := runSim(t, req)
	if len(res.Masters) != 3 || len(res.Baselines.DRF.Masters) != 3 {
		t.Fatalf("masters %d, drf %d: want 3 each", len(res.Masters), len(res.Baselines.DRF.Masters))
	}
	for k, o := range append(slices.Clone(res.Masters), res.Baselines.DRF.Masters...) {
		checkMasterOut(t, o, req.Masters[k%3].Jobs)
		if *o.Makespan < 540 {
			t.Fatalf("%s/%s makespan %g below 540", o.App, o.Policy, *o.Makespan)
		}
	}
	art := func(o MasterOut) float64 { return *o.AvgResponse }
	if f := art(res.Masters[0]); f >= art(res.Masters[1]) || f >= art(res.Masters[2]) {
		t.Fatalf("flex %g, fair %g, fifo %g: flex not the lowest", f, art(res.Masters[1]), art(res.Masters[2]))
	}
	for k := range 3 {
		if *res.Baselines.DRF.Masters[k].Makespan <= *res.Masters[k].Makespan {
			t.Fatalf("drf makespan %g not above %s's %g", *res.Baselines.DRF.Masters[k].Makespan, res.Masters[k].App, *res.Masters[k].Makespan)
		}
	}
}

func TestMastersBadInput(t *testing.T) {
	for _, c := range []struct {
		edit func(r *Request)
		ptr  string
		want string
	}{
		{func(r *Request) { r.Masters[0].App = "zz" }, "/masters/0/app", "unknown application"},
		{func(r *Request) { r.Masters = append(r.Masters, r.Masters[0]) }, "/masters/1/app", "already has a master"},
		{func(r *Request) { r.Masters[0].TaskSize = []float64{9, 1} }, "/masters/0/task_size", "larger than every container"},
		{func(r *Request) { r.Masters[0].TaskSize = []float64{1} }, "/masters/0/task_size", "1 sizes for 2 resources"},
		{func(r *Request) { r.Masters[0].Metric = "stretch" }, "/masters/0/metric", "policy flex"},
		{func(r *Request) { r.Masters[0].Jobs[1].ID = "big" }, "/masters/0/jobs/1/id", "duplicate job id"},
		{func(r *Request) { r.Requests[0].ID = "a#master" }, "/masters/0/app", "trace request"},
		{func(r *Request) { r.Requests[0].ID = "a#s2" }, "/masters/0/jobs/2/id", "already used"},
	} {
		req := smallMasters("fifo", "owned_first", 0, 0)
		c.edit(req)
		body, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		xe := solvertest.ExpectError(t, Problem(), body, solver.KindInvalid)
		if !slices.ContainsFunc(xe.Violations, func(v solver.Violation) bool {
			return v.Pointer == c.ptr && strings.Contains(v.Message, c.want)
		}) {
			t.Errorf("want %q at %s, got %+v", c.want, c.ptr, xe.Violations)
		}
	}
}

// TestMasterAsksAgainAfterExpiry: with patience, a master's container
// requests that wait too long expire; giving containers back after each
// task, the master must ask again or its last tasks never run. (A
// patience below the scheduling interval expires every ask not made at a
// round's time before the next round, the master's too.)
func TestMasterAsksAgainAfterExpiry(t *testing.T) {
	req := smallMasters("fifo", "owned_only", 0, 0)
	req.Masters[0].ReleaseEachTask = true
	patience := 1.5
	req.Settings.Patience = &patience
	res := runSim(t, req)
	if res.Apps[0].Expired == 0 {
		t.Fatalf("no request of a expired: the test does not exercise expiry")
	}
	checkMasterOut(t, res.Masters[0], req.Masters[0].Jobs)
	checkMasterOut(t, res.Baselines.DRF.Masters[0], req.Masters[0].Jobs)
}

// TestMasterHonoursNotices: with a grace period longer than a task, a
// master told of a notice lets the running task finish, starts none
// there and gives the container back: nothing is lost. (Not told, it
// would start tasks on the noticed containers and lose them at the kill.)
func TestMasterHonoursNotices(t *testing.T) {
	req := smallMasters("fifo", "owned_first", 0, 10)
	req.Masters[0].Jobs[0].Tasks = 40 // still running when the notices end
	res := runSim(t, req)
	lost := 0
	for _, j := range res.Masters[0].Jobs {
		lost += j.Restarts
	}
	if res.Apps[0].Borrowed == 0 || lost != 0 || res.Summary.Preemptions != 0 {
		t.Fatalf("borrowed %g, %d tasks lost, %d preemptions: want borrowing and every notice honoured", res.Apps[0].Borrowed, lost, res.Summary.Preemptions)
	}
	checkMasterOut(t, res.Masters[0], req.Masters[0].Jobs)
}

// TestMasterOverflowAsks: with type owned_only and overflow_type
// non_owned, the master asks for its application's 4 containers under
// "a#master" and borrows b's idle ones under "a#borrow"; each ask is
// served only from its side, and every job completes.
func TestMasterOverflowAsks(t *testing.T) {
	req := smallMasters("flex", "owned_only", 0, 10)
	req.Masters[0].OverflowType = "non_owned"
	res := runSim(t, req)
	byID := map[string]RequestOut{}
	for _, r := range res.Requests {
		byID[r.ID] = r
	}
	own, borrow := byID["a#master"], byID["a#borrow"]
	if own.Granted == 0 || borrow.Granted == 0 || len(own.Owners) != 1 || own.Owners["a"] == 0 || len(borrow.Owners) != 1 || borrow.Owners["b"] == 0 {
		t.Fatalf("a#master %+v, a#borrow %+v: want own containers under the first, b's under the second", own, borrow)
	}
	checkMasterOut(t, res.Masters[0], req.Masters[0].Jobs)
}
