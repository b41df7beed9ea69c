package simulate

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
	"github.com/xflex/xflex/solver/tetris/internal/tetristest"
)

// eventTol compares simulated times with hand-computed ones: they are sums
// of a few unit durations and quotients like 1/(1/2), exact to ~1e-15.
const eventTol = 1e-9

func simRun(t *testing.T, req *Request) *Result {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return tetristest.Result[Result](t, Problem(), raw)
}

func load(t *testing.T, name string) *Request {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

func near(a, b float64) bool { return math.Abs(a-b) <= eventTol*math.Max(1, math.Abs(b)) }

func completions(res *Result) map[string]float64 {
	out := map[string]float64{}
	for _, j := range res.Jobs {
		out[j.ID] = j.Completion
	}
	return out
}

func checkJobs(t *testing.T, res *Result, makespan, avg float64, want map[string]float64) {
	t.Helper()
	if !near(res.Makespan, makespan) || !near(res.AvgCompletion, avg) {
		t.Errorf("%s: makespan %v avg %v, want %v and %v", res.Policy, res.Makespan, res.AvgCompletion, makespan, avg)
	}
	got := completions(res)
	for id, c := range want {
		if !near(got[id], c) {
			t.Errorf("%s: job %s completes at %v, want %v", res.Policy, id, got[id], c)
		}
	}
}

// Figure 1 of the paper: 18 cores, 36 GB, 3 Gbps as one machine. DRF
// finishes every job at 6t; packing finishes them at 2t, 3t and 4t (the
// paper lists A, B, C; Tetris serves B first because it has less remaining
// work, which the paper notes gives the same gains for any permutation).
func TestFigure1(t *testing.T) {
	req := load(t, "figure1.json")
	res := simRun(t, req)
	checkJobs(t, res, 4, 3, map[string]float64{"B": 2, "C": 3, "A": 4})
	if res.Fair == nil || !near(res.Fair.Makespan, 6) || !near(res.Fair.AvgCompletion, 6) {
		t.Fatalf("fair (drf) run %+v, want makespan 6 and average 6", res.Fair)
	}
	if !near(res.Fair.MakespanReduction, 1.0/3) || !near(res.Fair.AvgReduction, 0.5) || res.Fair.SlowedFraction != 0 {
		t.Errorf("reductions %+v, want 33%% makespan, 50%% average, nobody slowed", res.Fair)
	}
	// DRF on CPU and memory only runs all nine reducers together at 1/3
	// Gbps each, 3t per reducer: still 6t (§2.1).
	for _, fr := range [][]string{{"cpu", "memory", "net"}, {"cpu", "memory"}} {
		req.Policy, req.FairResources, req.FairPolicy = PolicyDRF, fr, PolicyNone
		checkJobs(t, simRun(t, req), 6, 6, map[string]float64{"A": 6, "B": 6, "C": 6})
	}
}

// Three machines of a third the size. The paper says DRF then finishes all
// jobs at 7t. Replaying its footnote-5 DRF (one container per machine
// heartbeat, shares by attained service, network included) reproduces the
// footnote's map schedule exactly — map phases end at 3t, 3t and 4t — but a
// work-conserving scheduler starts A's and B's reducers at 3t, overlapping
// C's last map, so the last job finishes at 6t, not 7t. The paper's 7t adds
// the 3t reduce block of Fig. 1(a) after the last map; that claim fails here
// and is kept as this test. DRF on current shares does better still (5t);
// packing keeps 4t.
func TestFigure1ThreeMachines(t *testing.T) {
	req := load(t, "figure1-three-machines.json")
	req.FairPolicy = PolicyNone
	res := simRun(t, req)
	mapEnd := map[string]float64{}
	for _, j := range res.Jobs {
		mapEnd[j.ID] = j.Stages[0].Finish
	}
	for id, want := range map[string]float64{"A": 3, "B": 3, "C": 4} {
		if !near(mapEnd[id], want) {
			t.Errorf("DRF (footnote 5): %s's maps end at %v, want %v", id, mapEnd[id], want)
		}
	}
	checkJobs(t, res, 6, 5, map[string]float64{"A": 4, "B": 5, "C": 6})
	if res.Makespan >= 7 {
		t.Errorf("makespan %v: the paper's 7t holds after all; update the docs", res.Makespan)
	}
	req.FairShare = "current"
	checkJobs(t, simRun(t, req), 5, 13.0/3, map[string]float64{"A": 3, "B": 5, "C": 5})
	req.Policy = PolicyTetris
	checkJobs(t, simRun(t, req), 4, 3, map[string]float64{"B": 2, "C": 3, "A": 4})
	// Packing on CPU and memory only piles the (CPU- and memory-free)
	// reducers onto the first machine and over-allocates its NIC.
	req.Policy = PolicyTetrisCPUMem
	if res := simRun(t, req); res.Makespan <= 4 || res.Overalloc["net"] <= 0 || res.Tasks.MaxStretch <= 1 {
		t.Errorf("tetris-cpu-mem: makespan %v, net over-allocation %v, max stretch %v; want worse than 4 with an over-allocated NIC",
			res.Makespan, res.Overalloc["net"], res.Tasks.MaxStretch)
	}
}

// Two reducers that can each use the whole NIC take twice as long together
// (§1): DRF on CPU and memory runs both at once (both finish at 2), Tetris
// runs them one after the other (1 and 2).
func TestOverAllocationSlowsSharedNIC(t *testing.T) {
	req := &Request{
		Machines: []MachineReq{{Name: "m", Capacity: map[string]float64{"cpu": 4, "memory": 8, "net": 1}}},
		Jobs: []JobReq{
			{ID: "a", Stages: []StageReq{{Name: "r", Tasks: 1, Demand: map[string]float64{"cpu": 1, "net": 1}, Duration: 1}}},
			{ID: "b", Stages: []StageReq{{Name: "r", Tasks: 1, Demand: map[string]float64{"cpu": 1, "net": 1}, Duration: 1}}},
		},
		Policy: PolicyDRF, FairPolicy: PolicyNone,
	}
	res := simRun(t, req)
	checkJobs(t, res, 2, 2, map[string]float64{"a": 2, "b": 2})
	if !near(res.Tasks.AvgStretch, 2) || !near(res.Overalloc["net"], 1) {
		t.Errorf("stretch %v, net over-allocation %v; want 2 and 1", res.Tasks.AvgStretch, res.Overalloc["net"])
	}
	if !near(res.AvgUtil["net"], 1) {
		t.Errorf("net utilization %v, want 1 (the NIC is busy, just shared)", res.AvgUtil["net"])
	}
	// With interference 0.5 the doubly demanded NIC delivers 1/1.5 of its
	// capacity: each reducer runs at 1/3 and both end at 3.
	half := 0.5
	req.Interference = &half
	checkJobs(t, simRun(t, req), 3, 3, map[string]float64{"a": 3, "b": 3})
	req.Interference = nil
	req.Policy = PolicyTetris
	checkJobs(t, simRun(t, req), 2, 1.5, map[string]float64{"a": 1, "b": 2})
	// Rates change mid-run: x (2 units of work) runs alone until y arrives
	// at 1; both then get half the NIC and have 1 unit left: both end at 3.
	req.Policy = PolicyDRF
	req.Jobs[0].Stages[0].Duration = 2
	req.Jobs[1].Arrival = 1
	checkJobs(t, simRun(t, req), 3, 2.5, map[string]float64{"a": 3, "b": 3})
}

func TestSlotAndCapacityPolicies(t *testing.T) {
	// Slots of 2 GB: the 4 GB machine holds two 1 GB tasks regardless of
	// their CPU, so three 2-core tasks on 2 cores run two at a time at half
	// speed: 0..2 for two tasks (rate 1/2), then the third alone: 3.
	req := &Request{
		Machines: []MachineReq{{Name: "m", Capacity: map[string]float64{"cpu": 2, "memory": 4}}},
		Jobs:     []JobReq{{ID: "a", Stages: []StageReq{{Name: "s", Tasks: 3, Demand: map[string]float64{"cpu": 2, "memory": 1}, Duration: 1}}}},
		Policy:   PolicySlotFair, FairPolicy: PolicyNone,
	}
	checkJobs(t, simRun(t, req), 3, 3, map[string]float64{"a": 3})
	// Capacity: FIFO within the queue: the earlier job gets both slots.
	req.Policy = PolicyCapacity
	req.Jobs = []JobReq{
		{ID: "late", Arrival: 0.5, Stages: []StageReq{{Name: "s", Tasks: 2, Demand: map[string]float64{"cpu": 1, "memory": 2}, Duration: 1}}},
		{ID: "early", Arrival: 0, Stages: []StageReq{{Name: "s", Tasks: 4, Demand: map[string]float64{"cpu": 1, "memory": 2}, Duration: 1}}},
	}
	checkJobs(t, simRun(t, req), 3, 2.25, map[string]float64{"early": 2, "late": 3})
	// Slot-fair splits the slots between the two jobs from 1 on.
	req.Policy = PolicySlotFair
	// At 1 both have no slot: the tie goes to the first listed job ("late"),
	// then "early"; both finish at 3.
	checkJobs(t, simRun(t, req), 3, 2.75, map[string]float64{"early": 3, "late": 3})
}

// Random traces under every policy: every job finishes, barriers hold
// (a stage ends no earlier than its predecessors' end plus its duration),
// the makespan respects the lower bound, and Tetris never over-allocates.
func TestRandomTraces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	pols := []string{PolicyTetris, PolicyTetrisCPUMem, PolicyDRF, PolicySlotFair, PolicyCapacity}
	for it := 0; it < 40; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(6), 1+rng.IntN(3), 0.01, 600*rng.Float64(), pols[it%len(pols)])
		// A random extra DAG edge shape: a third stage after both.
		if it%3 == 0 && len(req.Jobs) > 0 {
			j := &req.Jobs[0]
			j.Stages = append(j.Stages, StageReq{Name: "final", Tasks: 2, Demand: map[string]float64{"cpu": 1, "memory": 1}, Duration: 3, After: []string{"map", "reduce"}})
		}
		if it%2 == 0 {
			f := rng.Float64()
			req.Knobs = &Knobs{Fairness: &f}
		}
		res := runBuilt(t, req)
		if len(res.Jobs) != len(req.Jobs) {
			t.Fatalf("%d of %d jobs finished", len(res.Jobs), len(req.Jobs))
		}
		if res.Makespan < res.MakespanLB*(1-eventTol) {
			t.Fatalf("makespan %v below the lower bound %v", res.Makespan, res.MakespanLB)
		}
		for ji, jo := range res.Jobs {
			jr := req.Jobs[ji]
			end := map[string]float64{}
			for _, s := range jo.Stages {
				end[s.Name] = s.Finish
			}
			for _, st := range jr.Stages {
				earliest := jr.Arrival
				for _, a := range st.After {
					earliest = math.Max(earliest, end[a])
				}
				if end[st.Name] < earliest+st.Duration-eventTol*math.Max(1, earliest) {
					t.Fatalf("%s job %s stage %s ends at %v before %v + %v", res.Policy, jr.ID, st.Name, end[st.Name], earliest, st.Duration)
				}
			}
		}
		if res.Policy == PolicyTetris {
			checkNoOverallocation(t, res)
		}
	}
}

// runBuilt builds req and runs it directly (no JSON round trip), failing
// unless every job finishes with status feasible.
func runBuilt(t *testing.T, req *Request) *Result {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	res, meta, err := in.Run(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", in.Policy, err)
	}
	if meta.Status != solver.StatusFeasible || !res.Complete {
		t.Fatalf("%s: status %s, complete %v", in.Policy, meta.Status, res.Complete)
	}
	return res
}

// checkNoOverallocation: tetris checks every resource, remote ones
// included, so none is ever over-allocated and no task runs slower than
// its nominal duration.
func checkNoOverallocation(t *testing.T, res *Result) {
	t.Helper()
	for r, o := range res.Overalloc {
		if o > 0 {
			t.Fatalf("tetris over-allocated %s (%v)", r, o)
		}
	}
	if !near(res.Tasks.AvgStretch, 1) {
		t.Fatalf("tetris tasks stretched (%v) without over-allocation", res.Tasks.AvgStretch)
	}
}

func TestTestdata(t *testing.T) { tetristest.Testdata(t, Problem(), 3) }

func TestBadInput(t *testing.T) {
	m := `"machines":[{"name":"m","capacity":{"cpu":4,"memory":8}}]`
	st := func(s string) string { return `{` + m + `,"jobs":[{"id":"j","arrival":0,"stages":[` + s + `]}]}` }
	cases := []struct {
		name, body string
		kind       solver.Kind
		ptr        string
	}{
		{"unknown stage in after", st(`{"name":"a","tasks":1,"demand":{"cpu":1},"duration":1,"after":["zz"]}`), solver.KindInvalid, "/jobs/0/stages/0/after/0"},
		{"cycle", st(`{"name":"a","tasks":1,"demand":{"cpu":1},"duration":1,"after":["b"]},{"name":"b","tasks":1,"demand":{"cpu":1},"duration":1,"after":["a"]}`), solver.KindInvalid, "/jobs/0/stages/0/after"},
		{"self loop", st(`{"name":"a","tasks":1,"demand":{"cpu":1},"duration":1,"after":["a"]}`), solver.KindInvalid, "/jobs/0/stages/0/after/0"},
		{"negative demand", st(`{"name":"a","tasks":1,"demand":{"cpu":-1},"duration":1}`), solver.KindSchema, "/jobs/0/stages/0/demand/cpu"},
		{"zero duration", st(`{"name":"a","tasks":1,"demand":{"cpu":1},"duration":0}`), solver.KindSchema, "/jobs/0/stages/0/duration"},
		{"duplicate stage", st(`{"name":"a","tasks":1,"demand":{},"duration":1},{"name":"a","tasks":1,"demand":{},"duration":1}`), solver.KindInvalid, "/jobs/0/stages/1/name"},
		{"demand too large", st(`{"name":"a","tasks":1,"demand":{"cpu":5},"duration":1}`), solver.KindInvalid, "/jobs/0/stages/0/demand"},
		{"unknown resource", st(`{"name":"a","tasks":1,"demand":{"gpu":1},"duration":1}`), solver.KindInvalid, "/jobs/0/stages/0/demand/gpu"},
		{"duplicate job", `{` + m + `,"jobs":[{"id":"j","arrival":0,"stages":[]},{"id":"j","arrival":0,"stages":[]}]}`, solver.KindInvalid, "/jobs/1/id"},
		{"duplicate machine", `{"machines":[{"name":"m","capacity":{"cpu":1}},{"name":"m","capacity":{"cpu":1}}],"jobs":[]}`, solver.KindInvalid, "/machines/1/name"},
		{"slots without memory", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"jobs":[],"policy":"slot-fair"}`, solver.KindInvalid, "/roles/memory"},
		{"unknown fair resource", `{` + m + `,"jobs":[],"fair_resources":["net"]}`, solver.KindInvalid, "/fair_resources/0"},
		{"unknown queue", `{` + m + `,"jobs":[{"id":"j","arrival":0,"queue":"q2","stages":[]}],"queues":[{"name":"q1","capacity":1}]}`, solver.KindInvalid, "/jobs/0/queue"},
		{"slots too small", `{"machines":[{"name":"m","capacity":{"cpu":4,"memory":4}}],"policy":"slot-fair","slot_memory":3,"jobs":[{"id":"j","arrival":0,"stages":[{"name":"a","tasks":1,"demand":{"memory":3.5},"duration":1}]}]}`, solver.KindInfeasible, "/jobs/0/stages/0/demand"},
		{"bad policy", `{` + m + `,"jobs":[],"policy":"fifo"}`, solver.KindSchema, "/policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { tetristest.ExpectViolation(t, Problem(), c.body, c.kind, c.ptr) })
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, err := Generate(5, map[string]string{"jobs": "4", "machines": "3"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(5, map[string]string{"jobs": "4", "machines": "3"})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("Generate is not deterministic")
	}
	if _, err := Generate(1, map[string]string{"jobs": "x"}); err == nil || !strings.Contains(err.Error(), "jobs") {
		t.Fatalf("bad param accepted: %v", err)
	}
	solvertest.Check(t, Problem(), ja)
}

func FuzzSimulate(f *testing.F) {
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":2,"memory":4,"net":1}}],"jobs":[{"id":"a","arrival":0,"stages":[{"name":"s","tasks":2,"demand":{"cpu":1,"net":1},"duration":1}]}],"policy":"drf"}`))
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":2}}],"jobs":[{"id":"a","arrival":1,"stages":[{"name":"s","tasks":1,"demand":{},"duration":1,"after":["t"]},{"name":"t","tasks":0,"demand":{},"duration":1}]}]}`))
	// Numbers whose float64 decides: 0 from 1e-400, subnormal, beyond the
	// range, integers written with a fraction or an exponent.
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":4,"memory":4}}],"jobs":[{"id":"a","arrival":0,"stages":[{"name":"s","tasks":1,"demand":{"cpu":1},"duration":1e-400}]}]}`))
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":2e0,"memory":1e-400}}],"jobs":[{"id":"a","arrival":1e-400,"stages":[{"name":"s","tasks":1.0,"demand":{"cpu":5e-324},"duration":1e-400}]}]}`))
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":1E2}}],"jobs":[{"id":"a","arrival":0,"weight":2.2250738585072014e-308,"stages":[{"name":"s","tasks":1e1,"demand":{"cpu":1e-300},"duration":1e15}]}],"slot_memory":1e-320,"interference":1e309}`))
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":1e15,"memory":1e15}}],"jobs":[{"id":"a","arrival":1e15,"stages":[{"name":"s","tasks":3,"demand":{"cpu":1e15},"duration":2.2250738585072014e-308,"input_rate":1e15}]}],"queues":[{"name":"default","capacity":1e-310}]}`))
	// A small budget bounds traces with huge task counts (they come back
	// as timeouts). The body is re-encoded from json.Number leaves, so
	// every number reaches the Runner as written.
	tetristest.Fuzz(f, Problem(), 1<<12, func(raw []byte) []byte {
		doc, err := solver.DecodeAny(raw)
		m, ok := doc.(map[string]any)
		if err != nil || !ok {
			return raw
		}
		m["budget_ms"] = 200
		body, _ := json.Marshal(m)
		return body
	})
}

// A budget that has run out returns the partial simulation with status
// timeout and the unfinished jobs listed.
func TestTimeoutPartial(t *testing.T) {
	req := load(t, "figure1.json")
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, meta, err := in.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Status != solver.StatusTimeout || res.Complete || len(res.Unfinished) != 3 {
		t.Fatalf("status %s complete %v unfinished %v", meta.Status, res.Complete, res.Unfinished)
	}
}

func ioMachine(name string, cpu, disk float64) MachineReq {
	return MachineReq{Name: name, Capacity: map[string]float64{"cpu": cpu, "memory": 8, "disk_read": disk, "net_in": 1000, "net_out": 1000}}
}

// Two tasks read 100 MB/s each from B, whose disks give 100 MB/s and which
// has no core to run them. DRF (CPU and memory) runs both on A at once:
// B's disks are shared, both at half speed, both end at 2. Tetris checks
// B's free disk read bandwidth before a remote placement: one runs, the
// other waits: 1 and 2.
func TestRemoteReadsContend(t *testing.T) {
	stage := func() []StageReq {
		return []StageReq{{Name: "map", Tasks: 1, Demand: map[string]float64{"cpu": 1, "memory": 1}, Duration: 1,
			InputRate: 100, InputMachines: []string{"B"}}}
	}
	req := &Request{
		Machines: []MachineReq{ioMachine("A", 4, 1000), ioMachine("B", 0.5, 100)},
		Jobs:     []JobReq{{ID: "a", Stages: stage()}, {ID: "b", Stages: stage()}},
		Policy:   PolicyDRF, FairPolicy: PolicyNone,
	}
	res := simRun(t, req)
	checkJobs(t, res, 2, 2, map[string]float64{"a": 2, "b": 2})
	if res.Overalloc["disk_read"] <= 0 || !near(res.Tasks.AvgStretch, 2) {
		t.Errorf("drf: disk over-allocation %v, stretch %v; want B's disks over-allocated, stretch 2", res.Overalloc["disk_read"], res.Tasks.AvgStretch)
	}
	req.Policy = PolicyTetris
	res = simRun(t, req)
	checkJobs(t, res, 2, 1.5, map[string]float64{"a": 1, "b": 2})
	if res.Overalloc["disk_read"] != 0 || res.AvgUtil["net_out"] <= 0 {
		t.Errorf("tetris: disk over-allocation %v (want 0), net_out use %v (want > 0: remote reads)", res.Overalloc["disk_read"], res.AvgUtil["net_out"])
	}
}

// The baselines prefer a task whose input is on the offered machine, so
// with inputs on B and A and one core each both tasks read locally: no
// network is used.
func TestBaselinesPreferLocalInput(t *testing.T) {
	req := &Request{
		Machines: []MachineReq{ioMachine("A", 1, 100), ioMachine("B", 1, 100)},
		Jobs: []JobReq{{ID: "a", Stages: []StageReq{{Name: "map", Tasks: 2, Demand: map[string]float64{"cpu": 1, "memory": 1},
			Duration: 1, InputRate: 60, InputMachines: []string{"B", "A"}}}}},
		FairPolicy: PolicyNone,
	}
	for _, pol := range []string{PolicyDRF, PolicySlotFair, PolicyCapacity, PolicyTetris} {
		req.Policy = pol
		res := simRun(t, req)
		checkJobs(t, res, 1, 1, map[string]float64{"a": 1})
		if res.AvgUtil["net_in"] != 0 || !near(res.AvgUtil["disk_read"], 0.6) {
			t.Errorf("%s: net_in %v disk_read %v; want local reads only (0 and 0.6)", pol, res.AvgUtil["net_in"], res.AvgUtil["disk_read"])
		}
	}
}

// Random traces whose map tasks read their blocks from seeded machines:
// every policy finishes every job, and tetris never over-allocates,
// remote resources included.
func TestRandomTracesWithInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pols := []string{PolicyTetris, PolicyTetrisCPUMem, PolicyDRF, PolicySlotFair, PolicyCapacity}
	for it := 0; it < 25; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(5), 1+rng.IntN(4), 0.01, 300*rng.Float64(), pols[it%len(pols)])
		WithInputs(req)
		seed := int64(it)
		req.Seed = &seed
		if res := runBuilt(t, req); res.Policy == PolicyTetris {
			checkNoOverallocation(t, res)
		}
	}
}

// stepCtx is a context whose Err reports Canceled from its limit-th call
// on: a budget cut at an exact point of the simulation, with no clock.
type stepCtx struct {
	context.Context
	calls, limit int
}

func (c *stepCtx) Err() error {
	c.calls++
	if c.calls >= c.limit {
		return context.Canceled
	}
	return nil
}

// A budget cut at any point of a feasible trace gives the partial answer
// with status timeout, never "some tasks fit no machine" (issue 15,
// defect 3: a scheduling round cut short left tasks unplaced with no
// event pending, which the loop read as infeasible), and never a complete
// answer once the cut was seen (a cut round is not the policy's schedule).
func TestCutBudgetIsTimeout(t *testing.T) {
	for _, pol := range []string{PolicyTetris, PolicyDRF} {
		req := load(t, "figure1.json")
		req.Policy = pol
		in, err := Build(req)
		if err != nil {
			t.Fatal(err)
		}
		ref, _, err := in.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cuts := 0
		for limit := 1; ; limit++ {
			ctx := &stepCtx{Context: context.Background(), limit: limit}
			res, meta, err := in.Run(ctx)
			if err != nil {
				t.Fatalf("%s, cut at check %d: %v", pol, limit, err)
			}
			if ctx.calls < limit {
				break // finished before the cut
			}
			cuts++
			switch {
			case meta.Status == solver.StatusTimeout && !res.Complete:
			case meta.Status == solver.StatusFeasible && res.Complete && res.Fair == nil:
				// Cut during the fair-policy run: the policy's own run
				// must be the uncut one.
				if !reflect.DeepEqual(completions(res), completions(ref)) {
					t.Fatalf("%s, cut at check %d: completions %v, uncut %v", pol, limit, completions(res), completions(ref))
				}
			default:
				t.Fatalf("%s, cut at check %d: status %s, complete %v, fair %v", pol, limit, meta.Status, res.Complete, res.Fair != nil)
			}
		}
		if cuts == 0 {
			t.Fatalf("%s: no cut point exercised", pol)
		}
	}
}
