package assign

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/internal/tetristest"
)

func names(req *Request, idx ...int) []string {
	out := make([]string, len(idx))
	for i, m := range idx {
		out[i] = req.Machines[m].Name
	}
	return out
}

// A heartbeat listing every machine in request order is the default round,
// field for field.
func TestHeartbeatAllMachinesIsDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for it := 0; it < 60; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(8), rng.IntN(80), 1+rng.IntN(5), rng.Float64(), rng.Float64())
		want := solveReq(t, req)
		all := make([]int, len(req.Machines))
		for i := range all {
			all[i] = i
		}
		req.Heartbeat = names(req, all...)
		got := solveReq(t, req)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("instance %d: heartbeat of every machine differs from the default round", it)
		}
	}
}

// Only heartbeat machines receive tasks, in heartbeat order; the round is
// the default round of a request whose machines are reordered (heartbeat
// first) when the heartbeat lists every machine; no free vector is
// exceeded; and unplaced tasks are explained against heartbeat machines
// only (their placement machine and blocked counts).
func TestHeartbeatSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	for it := 0; it < 120; it++ {
		req := GenerateRequest(rng, 2+rng.IntN(7), rng.IntN(80), 1+rng.IntN(5), 0.5*rng.Float64(), rng.Float64())
		perm := rng.Perm(len(req.Machines))
		k := 1 + rng.IntN(len(perm)) // an empty list would be dropped by omitempty: TestHeartbeatEmpty
		req.Heartbeat = names(req, perm[:k]...)
		res := solveReq(t, req)
		replay(t, req, res, false)
		pos := map[string]int{}
		for i, n := range req.Heartbeat {
			pos[n] = i
		}
		last := -1
		for _, a := range res.Assignments {
			p, ok := pos[a.Machine]
			if !ok {
				t.Fatalf("instance %d: task %s placed on %s, not in heartbeat %v", it, a.Task, a.Machine, req.Heartbeat)
			}
			if p < last {
				t.Fatalf("instance %d: machine %s filled after a later heartbeat machine", it, a.Machine)
			}
			last = p
		}
		for _, u := range res.Unplaced {
			if _, ok := pos[u.Machine]; !ok && !isInputMachine(req, u) {
				t.Fatalf("instance %d: task %s explained at %s, not a heartbeat machine", it, u.Task, u.Machine)
			}
			for r, n := range u.Blocked {
				if n > k {
					t.Fatalf("instance %d: %s blocked on %d machines, heartbeat has %d", it, r, n, k)
				}
			}
			if !strings.Contains(u.Reason, " of "+itoa(k)+" machines") {
				t.Fatalf("instance %d: reason %q does not count the %d heartbeat machines", it, u.Reason, k)
			}
		}
		if len(res.Assignments)+res.Summary.Unplaced != len(req.Tasks) {
			t.Fatalf("instance %d: %d placed + %d unplaced != %d tasks", it, len(res.Assignments), res.Summary.Unplaced, len(req.Tasks))
		}
	}
}

// isInputMachine reports whether u's worst shortfall is at one of its
// task's input machines (a remote read), which need not be in the
// heartbeat.
func isInputMachine(req *Request, u Unplaced) bool {
	for _, t := range req.Tasks {
		if t.ID != u.Task {
			continue
		}
		for _, in := range t.Inputs {
			if in.Machine == u.Machine {
				return true
			}
		}
	}
	return false
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A one-machine heartbeat on machine 0 makes exactly the placements the
// default round makes on machine 0 (which it fills first).
func TestHeartbeatOneMachineIsFirstFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	for it := 0; it < 80; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(6), rng.IntN(80), 1+rng.IntN(5), rng.Float64(), rng.Float64())
		full := solveReq(t, req)
		req.Heartbeat = names(req, 0)
		one := solveReq(t, req)
		var want []Assignment
		for _, a := range full.Assignments {
			if a.Machine == req.Machines[0].Name {
				want = append(want, a)
			}
		}
		if !reflect.DeepEqual(one.Assignments, want) && !(len(want) == 0 && len(one.Assignments) == 0) {
			t.Fatalf("instance %d: one-machine heartbeat placed %v, the full round's first fill %v", it, one.Assignments, want)
		}
	}
}

// An empty heartbeat fills nothing and says so for every task.
func TestHeartbeatEmpty(t *testing.T) {
	res := run(t, `{"machines":[{"name":"m","capacity":{"cpu":2}}],"tasks":[{"id":"a","job":"j","demand":{"cpu":1}},{"id":"b","job":"j","demand":{"cpu":1}}],"heartbeat":[]}`)
	if len(res.Assignments) != 0 || len(res.Unplaced) != 2 || !res.Summary.Complete {
		t.Fatalf("empty heartbeat: %+v", res)
	}
	for _, u := range res.Unplaced {
		if u.Reason != "no machine in the heartbeat" || u.Machine != "" {
			t.Fatalf("empty heartbeat: unplaced %+v", u)
		}
	}
}

func TestHeartbeatBadNames(t *testing.T) {
	base := `{"machines":[{"name":"m","capacity":{"cpu":1}},{"name":"n","capacity":{"cpu":1}}],"tasks":[],"heartbeat":%s}`
	cases := []struct {
		name, hb string
		kind     solver.Kind
		ptr      string
	}{
		{"unknown", `["m","x"]`, solver.KindInvalid, "/heartbeat/1"},
		{"twice", `["n","m","n"]`, solver.KindInvalid, "/heartbeat/2"},
		{"not a name", `["m",""]`, solver.KindSchema, "/heartbeat/1"},
		{"not an array", `"m"`, solver.KindSchema, "/heartbeat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tetristest.ExpectViolation(t, Problem(), strings.Replace(base, "%s", c.hb, 1), c.kind, c.ptr)
		})
	}
}

// Capacities so small that demand/capacity overflows are refused with a
// pointer (before, the response held infinities and could not be encoded),
// and so is an automatic ε that overflows.
func TestExtremeScalesRefused(t *testing.T) {
	tetristest.ExpectViolation(t, Problem(), `{"machines":[{"name":"m","capacity":{"cpu":1e-300}}],"tasks":[{"id":"t","job":"j","demand":{"cpu":1e15}}]}`,
		solver.KindInvalid, "/machines/0/capacity/cpu")
	// ā ≈ 1e15·(1e-100/1e-200)/2 from the small machine, p̄ = 1e15/5e14·1e-300.
	tetristest.ExpectViolation(t, Problem(), `{"machines":[{"name":"m","capacity":{"cpu":1e-100}},{"name":"n","capacity":{"cpu":1e15}}],
	  "tasks":[{"id":"t","job":"j","demand":{"cpu":1e15},"duration":1e-300}]}`,
		solver.KindInvalid, "/knobs")
}
