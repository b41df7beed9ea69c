package assign

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/internal/tetristest"
	"github.com/xflex/xflex/vecpack"
)

// scoreTol compares hand-computed scores: they are short sums of products
// of small decimals, exact to ~1e-15.
const scoreTol = 1e-12

func run(t *testing.T, body string) *Result {
	t.Helper()
	return tetristest.Result[Result](t, Problem(), []byte(body))
}

func TestAlignmentHandComputed(t *testing.T) {
	// cap (10 cpu, 20 mem), free (5, 10): normalised free (0.5, 0.5).
	// t1 = (2, 4) → (0.2, 0.2)·(0.5, 0.5) = 0.2; t2 = (4, 2) → (0.4, 0.1) → 0.25.
	// t2 goes first; then free (1, 8) and t1 needs 2 cpu: unplaced on cpu.
	res := run(t, `{"machines":[{"name":"m","capacity":{"cpu":10,"mem":20},"free":{"cpu":5,"mem":10}}],
	  "tasks":[{"id":"t1","job":"a","demand":{"cpu":2,"mem":4}},{"id":"t2","job":"b","demand":{"cpu":4,"mem":2}}],
	  "knobs":{"fairness":0,"epsilon":0}}`)
	if len(res.Assignments) != 1 || res.Assignments[0].Task != "t2" {
		t.Fatalf("assignments %+v, want t2 only", res.Assignments)
	}
	if a := res.Assignments[0].Alignment; math.Abs(a-0.25) > scoreTol {
		t.Errorf("alignment %v, want 0.25", a)
	}
	if len(res.Unplaced) != 1 || res.Unplaced[0].Task != "t1" || res.Unplaced[0].Resource != "cpu" ||
		res.Unplaced[0].Machine != "m" || res.Unplaced[0].Need != 2 || res.Unplaced[0].Free != 1 {
		t.Fatalf("unplaced %+v, want t1 short of cpu on m (need 2, free 1)", res.Unplaced)
	}
	if res.Unplaced[0].Blocked["cpu"] != 1 {
		t.Errorf("blocked %v, want cpu on 1 machine", res.Unplaced[0].Blocked)
	}
}

func TestRemotePenaltyHandComputed(t *testing.T) {
	// x reads 50 from B. Visiting A first: local demand cpu 1 + net_in 50,
	// a = 1/4·4/4 + 50/100·100/100 = 0.75, score 0.75·(1−0.2) = 0.6; B then
	// has disk_read and net_out 50 free. y (cpu 2) on A after x:
	// free cpu 3 → a = 2/4·3/4 = 0.375.
	res := run(t, `{"machines":[
	   {"name":"A","capacity":{"cpu":4,"disk_read":100,"net_in":100,"net_out":100}},
	   {"name":"B","capacity":{"cpu":4,"disk_read":100,"net_in":100,"net_out":100}}],
	  "tasks":[{"id":"x","job":"j","demand":{"cpu":1},"inputs":[{"machine":"B","rate":50}]},
	           {"id":"y","job":"j","demand":{"cpu":2}}],
	  "knobs":{"fairness":0,"epsilon":0,"remote_penalty":0.2}}`)
	if len(res.Assignments) != 2 {
		t.Fatalf("assignments %+v", res.Assignments)
	}
	x, y := res.Assignments[0], res.Assignments[1]
	if x.Task != "x" || x.Machine != "A" || !x.Remote || math.Abs(x.Alignment-0.75) > scoreTol || math.Abs(x.Score-0.6) > scoreTol {
		t.Errorf("x = %+v, want remote on A, alignment 0.75, score 0.6", x)
	}
	if y.Task != "y" || y.Machine != "A" || math.Abs(y.Alignment-0.375) > scoreTol {
		t.Errorf("y = %+v, want A with alignment 0.375", y)
	}
	b := res.Machines[1].Free
	if b["disk_read"] != 50 || b["net_out"] != 50 || b["net_in"] != 100 {
		t.Errorf("B free %v, want disk_read 50, net_out 50, net_in 100", b)
	}
}

func TestLocalPreferredOverRemote(t *testing.T) {
	// Same task on B (its input machine): local demand cpu 1 + disk_read
	// 50: a = 0.25 + 0.5 = 0.75 without penalty; a competing input-free task
	// with a = 0.7 loses to it on B but wins against the remote variant
	// (0.75·0.9 = 0.675) on A.
	res := run(t, `{"machines":[
	   {"name":"A","capacity":{"cpu":4,"disk_read":100,"net_in":100,"net_out":100}}],
	  "tasks":[{"id":"x","job":"j","demand":{"cpu":1},"inputs":[{"machine":"A","rate":50}]}],
	  "knobs":{"epsilon":0}}`)
	if len(res.Assignments) != 1 || res.Assignments[0].Remote || math.Abs(res.Assignments[0].Alignment-0.75) > scoreTol {
		t.Fatalf("assignments %+v, want local with alignment 0.75", res.Assignments)
	}
	res = run(t, `{"machines":[
	   {"name":"A","capacity":{"cpu":4,"disk_read":100,"net_in":100,"net_out":100},"free":{"cpu":1,"disk_read":100,"net_in":100,"net_out":100}},
	   {"name":"B","capacity":{"cpu":4,"disk_read":100,"net_in":100,"net_out":100},"free":{"cpu":1,"disk_read":100,"net_in":100,"net_out":100}}],
	  "tasks":[{"id":"x","job":"j","demand":{"cpu":1},"inputs":[{"machine":"B","rate":50}]},
	           {"id":"z","job":"k","demand":{"cpu":1,"net_in":70}}],
	  "knobs":{"epsilon":0,"fairness":0}}`)
	// On A: x remote a = 1/4·1/4 + 0.5 = 0.5625·0.9 = 0.50625; z a = 0.0625 + 0.7 = 0.7625 → z.
	// On B: x local a = 0.0625 + 0.5 = 0.5625 → x.
	want := map[string]string{"z": "A", "x": "B"}
	for _, a := range res.Assignments {
		if want[a.Task] != a.Machine {
			t.Errorf("%s on %s, want %s", a.Task, a.Machine, want[a.Task])
		}
	}
	if len(res.Assignments) != 2 {
		t.Fatalf("assignments %+v", res.Assignments)
	}
}

// replay checks a round independently: every assignment, applied in order
// to the request's free vectors with placement-adjusted demands, fits; no
// unplaced task fits on any filled machine (every machine, or the
// heartbeat's) afterwards; and, when fairness is strict, the
// chosen job has the least dominant share among jobs with a fitting task.
func replay(t *testing.T, req *Request, res *Result, strict bool) {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	mi := map[string]int{}
	for i, m := range req.Machines {
		mi[m.Name] = i
	}
	ti := map[string]int{}
	for i, tk := range req.Tasks {
		ti[tk.ID] = i
	}
	res2 := in.Resources
	ri := map[string]int{}
	for i, r := range res2 {
		ri[r] = i
	}
	free := make([][]float64, len(req.Machines))
	for i := range free {
		free[i] = append([]float64(nil), in.Machines[i].Free...)
	}
	// Instance.Build does not mutate; its Machines still hold initial free.
	alloc := map[string][]float64{}
	for j, id := range in.JobIDs {
		alloc[id] = append([]float64(nil), in.Jobs[j].Alloc...)
	}
	total := in.Total
	demandOn := func(task TaskReq, m int) (loc []float64, rem map[int]float64) {
		loc = make([]float64, len(res2))
		for r, x := range task.Demand {
			loc[ri[r]] += x
		}
		rem = map[int]float64{}
		for _, ip := range task.Inputs {
			im := mi[ip.Machine]
			if im == m {
				loc[ri["disk_read"]] += ip.Rate
			} else {
				loc[ri["net_in"]] += ip.Rate
				rem[im] += ip.Rate
			}
		}
		return
	}
	fits := func(task TaskReq, m int) bool {
		loc, rem := demandOn(task, m)
		if !vecpack.Fits(loc, free[m]) {
			return false
		}
		for im, x := range rem {
			if !vecpack.Fits([]float64{x, x}, []float64{free[im][ri["disk_read"]], free[im][ri["net_out"]]}) {
				return false
			}
		}
		return true
	}
	share := func(job string) float64 {
		s := 0.0
		for k, a := range alloc[job] {
			if total[k] > 0 {
				s = math.Max(s, a/total[k])
			}
		}
		return s
	}
	placed := map[string]bool{}
	for n, a := range res.Assignments {
		task := req.Tasks[ti[a.Task]]
		m := mi[a.Machine]
		if !fits(task, m) {
			t.Fatalf("assignment %d (%s on %s) exceeds free resources", n, a.Task, a.Machine)
		}
		if strict {
			minShare := math.Inf(1)
			for _, tk := range req.Tasks {
				if !placed[tk.ID] && fits(tk, m) {
					minShare = math.Min(minShare, share(tk.Job))
				}
			}
			if share(task.Job) > minShare+1e-9 {
				t.Fatalf("f=1: assignment %d gives %s to job %s (share %v) while a job with share %v had a fitting task",
					n, a.Machine, task.Job, share(task.Job), minShare)
			}
		}
		loc, rem := demandOn(task, m)
		for k, x := range loc {
			free[m][k] -= x
			alloc[task.Job][k] += x
		}
		for im, x := range rem {
			free[im][ri["disk_read"]] -= x
			free[im][ri["net_out"]] -= x
			alloc[task.Job][ri["disk_read"]] += x
			alloc[task.Job][ri["net_out"]] += x
		}
		placed[a.Task] = true
	}
	for _, u := range res.Unplaced {
		if placed[u.Task] {
			t.Fatalf("task %s both placed and unplaced", u.Task)
		}
		if !res.Summary.Complete {
			continue // a round cut short by the budget leaves fitting tasks
		}
		task := req.Tasks[ti[u.Task]]
		for m := range free {
			if offered(req, m) && fits(task, m) {
				t.Fatalf("unplaced task %s fits on %s after the round", u.Task, req.Machines[m].Name)
			}
		}
		if len(u.Shortfalls) == 0 || u.Need <= u.Free {
			t.Fatalf("unplaced %s has no shortfall: %+v", u.Task, u)
		}
	}
	if len(placed)+len(res.Unplaced) != len(req.Tasks) {
		t.Fatalf("%d placed + %d unplaced != %d tasks", len(placed), len(res.Unplaced), len(req.Tasks))
	}
}

// offered reports whether machine m is filled by req's round.
func offered(req *Request, m int) bool {
	if req.Heartbeat == nil {
		return true
	}
	for _, n := range req.Heartbeat {
		if n == req.Machines[m].Name {
			return true
		}
	}
	return false
}

func solveReq(t *testing.T, req *Request) *Result {
	t.Helper()
	raw, _ := json.Marshal(req)
	resp, meta, err := Solve(context.Background(), raw, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Status != solver.StatusFeasible {
		t.Fatalf("status %s", meta.Status)
	}
	return resp.(*Result)
}

func TestRandomNeverExceedsFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 150; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(6), rng.IntN(60), 1+rng.IntN(5), rng.Float64(), rng.Float64())
		f := rng.Float64()
		req.Knobs = &Knobs{Fairness: &f}
		replay(t, req, solveReq(t, req), false)
	}
}

func TestStrictFairnessPicksFurthestJob(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	one, b := 1.0, 1.0
	for it := 0; it < 120; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(4), rng.IntN(50), 2+rng.IntN(4), rng.Float64(), rng.Float64())
		req.Knobs = &Knobs{Fairness: &one, Barrier: &b}
		replay(t, req, solveReq(t, req), true)
	}
}

func TestBarrierPromotesLastTasks(t *testing.T) {
	// Job a's stage is 95% done: its task is promoted past b = 0.9 and goes
	// first even though b's task aligns better.
	body := `{"machines":[{"name":"m","capacity":{"cpu":4,"mem":8}}],
	  "tasks":[{"id":"ta","job":"a","stage":"map","demand":{"cpu":1,"mem":1}},{"id":"tb","job":"b","stage":"map","demand":{"cpu":3,"mem":7}}],
	  "jobs":[{"id":"a","stages":[{"name":"map","tasks":20,"finished":19}]}],
	  "knobs":{"fairness":0,"epsilon":0}}`
	res := run(t, body)
	if res.Assignments[0].Task != "ta" || !res.Assignments[0].Promoted {
		t.Fatalf("first assignment %+v, want promoted ta", res.Assignments[0])
	}
	res = run(t, strings.Replace(body, `"epsilon":0`, `"epsilon":0,"barrier":1`, 1))
	if res.Assignments[0].Task != "tb" {
		t.Fatalf("with b = 1 first assignment %+v, want tb (best alignment)", res.Assignments[0])
	}
}

func TestSRTFPrefersLessRemainingWork(t *testing.T) {
	// Same demand, job b has far less remaining work: with ε > 0 it goes first.
	body := `{"machines":[{"name":"m","capacity":{"cpu":1}}],
	  "tasks":[{"id":"ta","job":"a","demand":{"cpu":1}},{"id":"tb","job":"b","demand":{"cpu":1}}],
	  "jobs":[{"id":"a","remaining_work":10},{"id":"b","remaining_work":1}],"knobs":{"fairness":0}}`
	res := run(t, body)
	if res.Assignments[0].Task != "tb" {
		t.Fatalf("assignment %+v, want tb", res.Assignments)
	}
	// auto ε = ā/p̄: ā = 1·1 = 1, p̄ = 5.5.
	if math.Abs(res.Knobs.Epsilon-1/5.5) > scoreTol || !res.Knobs.EpsilonAuto {
		t.Errorf("epsilon %v, want 1/5.5", res.Knobs.Epsilon)
	}
}

func TestTestdata(t *testing.T) { tetristest.Testdata(t, Problem(), 1) }

func TestBadInput(t *testing.T) {
	cases := []struct {
		name, body string
		kind       solver.Kind
		ptr        string
	}{
		{"negative demand", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[{"id":"t","job":"j","demand":{"cpu":-1}}]}`, solver.KindSchema, "/tasks/0/demand/cpu"},
		{"duplicate task", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[{"id":"t","job":"j","demand":{}},{"id":"t","job":"j","demand":{}}]}`, solver.KindInvalid, "/tasks/1/id"},
		{"duplicate machine", `{"machines":[{"name":"m","capacity":{"cpu":1}},{"name":"m","capacity":{"cpu":1}}],"tasks":[]}`, solver.KindInvalid, "/machines/1/name"},
		{"duplicate job", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[],"jobs":[{"id":"a"},{"id":"a"}]}`, solver.KindInvalid, "/jobs/1/id"},
		{"unknown resource", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[{"id":"t","job":"j","demand":{"gpu":1}}]}`, solver.KindInvalid, "/tasks/0/demand/gpu"},
		{"unknown input machine", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[{"id":"t","job":"j","demand":{},"inputs":[{"machine":"x","rate":1}]}]}`, solver.KindInvalid, "/tasks/0/inputs/0/machine"},
		{"free above capacity", `{"machines":[{"name":"m","capacity":{"cpu":1},"free":{"cpu":2}}],"tasks":[]}`, solver.KindInvalid, "/machines/0/free/cpu"},
		{"finished above tasks", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[],"jobs":[{"id":"a","stages":[{"name":"s","tasks":1,"finished":2}]}]}`, solver.KindInvalid, "/jobs/0/stages/0/finished"},
		{"fairness above 1", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[],"knobs":{"fairness":2}}`, solver.KindSchema, "/knobs/fairness"},
		{"NaN-free unknown field", `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[],"bogus":1}`, solver.KindSchema, "/bogus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { tetristest.ExpectViolation(t, Problem(), c.body, c.kind, c.ptr) })
	}
}

func FuzzAssign(f *testing.F) {
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":4,"disk_read":10,"net_in":10,"net_out":10}}],"tasks":[{"id":"t","job":"j","demand":{"cpu":1},"inputs":[{"machine":"m","rate":3}]}]}`))
	f.Add([]byte(`{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[{"id":"t","job":"j","demand":{"cpu":2}}],"knobs":{"fairness":1}}`))
	tetristest.Fuzz(f, Problem(), 1<<14, nil)
}

// A budget that has already run out still gives a valid (empty) round with
// status timeout.
func TestTimeoutKeepsValidPlacements(t *testing.T) {
	req := GenerateRequest(rand.New(rand.NewPCG(3, 3)), 40, 400, 5, 0.5, 1)
	raw, _ := json.Marshal(req)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, meta, err := Solve(ctx, raw, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := resp.(*Result)
	if meta.Status != solver.StatusTimeout || res.Summary.Complete {
		t.Fatalf("status %s complete %v, want timeout", meta.Status, res.Summary.Complete)
	}
	replay(t, req, res, false)
}

// TestExpiredBudgetSkipsExplanations: once the budget is gone the round
// does not explain its unplaced tasks (a pass over the machines per group:
// 0.5 s past a 1 s budget at 10,000 machines and 50,000 tasks on main);
// each says so in its reason and meta.notes counts the groups.
func TestExpiredBudgetSkipsExplanations(t *testing.T) {
	req := GenerateRequest(rand.New(rand.NewPCG(3, 3)), 40, 400, 5, 0.5, 1)
	raw, _ := json.Marshal(req)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, meta, err := Solve(ctx, raw, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := resp.(*Result)
	if len(res.Unplaced) == 0 {
		t.Fatal("no unplaced tasks")
	}
	for _, u := range res.Unplaced {
		if u.Reason != "not explained: the budget ran out first" || u.Machine != "" || len(u.Shortfalls) != 0 {
			t.Fatalf("unplaced %+v explained after the budget ran out", u)
		}
	}
	if !strings.Contains(strings.Join(meta.Notes, "\n"), "were explained") {
		t.Fatalf("notes %q do not say explanations were skipped", meta.Notes)
	}
}
