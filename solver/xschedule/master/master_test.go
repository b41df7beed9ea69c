package master

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomJobs makes n jobs with 1..maxTasks tasks, durations in [1, 5]
// (integers when intDur, so events coincide) and arrivals in [0, spread].
func randomJobs(rng *rand.Rand, n, maxTasks int, spread float64, intDur bool) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		d := 1 + 4*rng.Float64()
		if intDur {
			d = float64(1 + rng.IntN(5))
		}
		arr := math.Round(spread*rng.Float64()*4) / 4
		jobs[i] = Job{ID: fmt.Sprintf("j%d", i), Arrival: arr, Tasks: 1 + rng.IntN(maxTasks), TaskDuration: d}
	}
	return jobs
}

func mustNew(t *testing.T, cfg Config, jobs []Job) *Master {
	t.Helper()
	m, err := New(cfg, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkRuns checks a finished master's runs against its jobs: every task
// completes exactly once (lost runs aside), a run lasts its task's
// duration and starts no earlier than its job's arrival, no container
// runs two tasks at once, and each job completes at its last run's end.
func checkRuns(t *testing.T, m *Master, jobs []Job) {
	t.Helper()
	byJob := map[string]Job{}
	for _, j := range jobs {
		byJob[j.ID] = j
	}
	done, last := map[string]int{}, map[string]float64{}
	perContainer := map[string][]TaskRun{}
	for _, r := range m.Runs() {
		j := byJob[r.Job]
		if r.Start < j.Arrival {
			t.Fatalf("run %+v starts before its job arrives at %g", r, j.Arrival)
		}
		if !r.Lost {
			if math.Abs(r.End-r.Start-j.TaskDuration) > 1e-9 {
				t.Fatalf("run %+v does not last %g", r, j.TaskDuration)
			}
			done[r.Job]++
			last[r.Job] = math.Max(last[r.Job], r.End)
		}
		perContainer[r.Container] = append(perContainer[r.Container], r)
	}
	for c, rs := range perContainer {
		for k := 1; k < len(rs); k++ {
			if rs[k].Start < rs[k-1].End {
				t.Fatalf("container %s runs %+v before %+v ends", c, rs[k], rs[k-1])
			}
		}
	}
	for _, r := range m.Results() {
		if done[r.ID] != r.Tasks {
			t.Fatalf("job %s: %d tasks completed, want %d", r.ID, done[r.ID], r.Tasks)
		}
		if r.Completion != last[r.ID] || r.Response != r.Completion-r.Arrival {
			t.Fatalf("job %s: completion %g response %g, last run ends %g", r.ID, r.Completion, r.Response, last[r.ID])
		}
	}
}

func TestPoolRunsEveryTaskOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		jobs := randomJobs(rng, 1+rng.IntN(8), 12, 20, trial%2 == 0)
		for _, p := range []Policy{FIFO, Fair, Flex} {
			m := mustNew(t, Config{Policy: p, Seed: 1}, jobs)
			n := 1 + rng.IntN(10)
			st, err := Pool{Containers: n}.Run([]*Master{m})
			if err != nil {
				t.Fatal(err)
			}
			checkRuns(t, m, jobs)
			if m.Makespan() != st.End {
				t.Fatalf("trial %d %s: makespan %g, pool ended at %g", trial, p, m.Makespan(), st.End)
			}
			work := 0.0
			for _, j := range jobs {
				work += float64(j.Tasks) * j.TaskDuration
			}
			if math.Abs(st.Busy-work) > 1e-6*work {
				t.Fatalf("trial %d %s: busy %g container-s, tasks need %g (containers held idle)", trial, p, st.Busy, work)
			}
		}
	}
}

// TestPoolWorkConserving: on one master a container is never idle while a
// task waits, so with all jobs at time 0 and every duration 1 the pool
// finishes at ⌈tasks/containers⌉ under every policy.
func TestPoolWorkConserving(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		jobs := randomJobs(rng, 1+rng.IntN(6), 10, 0, true)
		total := 0
		for i := range jobs {
			jobs[i].TaskDuration = 1
			total += jobs[i].Tasks
		}
		n := 1 + rng.IntN(8)
		for _, p := range []Policy{FIFO, Fair, Flex} {
			m := mustNew(t, Config{Policy: p}, jobs)
			if _, err := (Pool{Containers: n}).Run([]*Master{m}); err != nil {
				t.Fatal(err)
			}
			if want := math.Ceil(float64(total) / float64(n)); m.Makespan() != want {
				t.Fatalf("%s: %d tasks on %d containers end at %g, want %g", p, total, n, m.Makespan(), want)
			}
		}
	}
}

// TestFIFOOrder: no task of a job starts while an earlier job (by arrival,
// then input order) still has a task that has not started.
func TestFIFOOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 40 {
		jobs := randomJobs(rng, 2+rng.IntN(6), 10, 10, false)
		m := mustNew(t, Config{Policy: FIFO}, jobs)
		if _, err := (Pool{Containers: 1 + rng.IntN(6)}).Run([]*Master{m}); err != nil {
			t.Fatal(err)
		}
		order := slices.Clone(jobs)
		slices.SortStableFunc(order, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) })
		lastStart := map[string]float64{}
		firstStart := map[string]float64{}
		for _, r := range m.Runs() {
			lastStart[r.Job] = math.Max(lastStart[r.Job], r.Start)
			if _, ok := firstStart[r.Job]; !ok {
				firstStart[r.Job] = r.Start
			}
		}
		for a := range order {
			for b := a + 1; b < len(order); b++ {
				if firstStart[order[b].ID] < lastStart[order[a].ID] {
					t.Fatalf("job %s starts at %g before job %s's last task starts at %g", order[b].ID, firstStart[order[b].ID], order[a].ID, lastStart[order[a].ID])
				}
			}
		}
	}
}

// TestFairSplit: jobs all at time 0 with equal durations; at every start
// time the jobs that still have waiting tasks run within one task of each
// other and no job runs more than one task above them (the max-min fair
// split of the containers, each job capped by its tasks).
func TestFairSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 40 {
		jobs := randomJobs(rng, 2+rng.IntN(5), 15, 0, true)
		for i := range jobs {
			jobs[i].TaskDuration = 2
		}
		m := mustNew(t, Config{Policy: Fair}, jobs)
		if _, err := (Pool{Containers: 1 + rng.IntN(12)}).Run([]*Master{m}); err != nil {
			t.Fatal(err)
		}
		runs := m.Runs()
		for _, r := range runs {
			s := r.Start
			running, started := map[string]int{}, map[string]int{}
			for _, q := range runs {
				if q.Start <= s {
					started[q.Job]++
					if q.End > s {
						running[q.Job]++
					}
				}
			}
			lo, hi := math.MaxInt, 0
			for _, j := range jobs {
				hi = max(hi, running[j.ID])
				if started[j.ID] < j.Tasks {
					lo = min(lo, running[j.ID])
				}
			}
			if lo != math.MaxInt && hi > lo+1 {
				t.Fatalf("at %g a job with waiting tasks runs %d, another runs %d", s, lo, hi)
			}
		}
	}
}

// TestFlexBatchOptimal: jobs at time 0 whose tasks are multiples of the
// containers, equal durations. Running them one after another, smallest
// first, each on every container is optimal for the average response
// time (it meets the single-machine SPT bound Σ_k Σ_{i≤k} W_i/S), and Flex
// must reach it; FIFO in input order (largest first) and Fair do not.
func TestFlexBatchOptimal(t *testing.T) {
	const S, d = 4, 3.0
	sizes := []int{5, 1, 3, 2, 1} // in waves of S tasks
	var jobs []Job
	for i, w := range sizes {
		jobs = append(jobs, Job{ID: fmt.Sprintf("j%d", i), Tasks: w * S, TaskDuration: d})
	}
	sorted := slices.Sorted(slices.Values(sizes))
	bound, acc := 0.0, 0.0
	for _, w := range sorted {
		acc += float64(w) * d
		bound += acc
	}
	sum := func(p Policy) float64 {
		m := mustNew(t, Config{Policy: p}, jobs)
		if _, err := (Pool{Containers: S}).Run([]*Master{m}); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, r := range m.Results() {
			s += r.Response
		}
		return s
	}
	if got := sum(Flex); math.Abs(got-bound) > 1e-9 {
		t.Fatalf("flex: total response %g, optimum %g", got, bound)
	}
	for _, p := range []Policy{FIFO, Fair} {
		if got := sum(p); got <= bound+1e-9 {
			t.Fatalf("%s: total response %g reaches the optimum %g on an instance built to defeat it", p, got, bound)
		}
	}
}

// TestFlexNeverBelowBound: on random instances no policy beats the
// preemptive single-machine bound for the total response time of jobs
// all at time 0 (a sanity check of the accounting), and Flex is within
// the bound's reach of FIFO and Fair: never worse than both.
func TestFlexNeverBelowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	worse := 0
	for range 40 {
		jobs := randomJobs(rng, 2+rng.IntN(6), 20, 0, true)
		S := 1 + rng.IntN(8)
		works := make([]float64, len(jobs))
		for i, j := range jobs {
			works[i] = float64(j.Tasks) * j.TaskDuration
		}
		slices.Sort(works)
		bound, acc := 0.0, 0.0
		for _, w := range works {
			acc += w / float64(S)
			bound += acc
		}
		got := map[Policy]float64{}
		for _, p := range []Policy{FIFO, Fair, Flex} {
			m := mustNew(t, Config{Policy: p}, jobs)
			if _, err := (Pool{Containers: S}).Run([]*Master{m}); err != nil {
				t.Fatal(err)
			}
			for _, r := range m.Results() {
				got[p] += r.Response
			}
			if got[p] < bound-1e-9 {
				t.Fatalf("%s: total response %g below the bound %g", p, got[p], bound)
			}
		}
		if got[Flex] > got[FIFO]+1e-9 && got[Flex] > got[Fair]+1e-9 {
			worse++
		}
	}
	if worse > 0 {
		t.Fatalf("flex worse than both fifo and fair on %d of 40 instances", worse)
	}
}

// TestRevokedTaskRestarts: a container revoked mid-task loses the task,
// which runs again from the start; the job still completes every task.
func TestRevokedTaskRestarts(t *testing.T) {
	jobs := []Job{{ID: "a", Tasks: 3, TaskDuration: 10}}
	for _, p := range []Policy{FIFO, Fair, Flex} {
		m := mustNew(t, Config{Policy: p}, jobs)
		want, rel := m.Step(0)
		if want != 3 || len(rel) != 0 {
			t.Fatalf("%s: step(0) = %d, %v; want 3 containers, none released", p, want, rel)
		}
		for _, id := range []string{"x", "y", "z"} {
			m.Granted(0, id)
		}
		m.Revoked(4, "y")
		if want, _ := m.Step(4); want != 3 {
			t.Fatalf("%s: after a revocation the master wants %d containers, want 3", p, want)
		}
		m.Granted(4, "w")
		for w := m.Wake(); !math.IsInf(w, 1); w = m.Wake() {
			m.Step(w)
		}
		checkRuns(t, m, jobs)
		r := m.Results()[0]
		if r.Restarts != 1 || r.Completion != 14 {
			t.Fatalf("%s: restarts %d completion %g, want 1 and 14", p, r.Restarts, r.Completion)
		}
		lost := slices.IndexFunc(m.Runs(), func(r TaskRun) bool { return r.Lost })
		if lost < 0 || m.Runs()[lost].Container != "y" || m.Runs()[lost].End != 4 {
			t.Fatalf("%s: runs %+v: want the run on y lost at 4", p, m.Runs())
		}
	}
}

// TestAMDeadlockAndShare: job-level AMs can take every container of a
// pool and wait forever; the AM share cap prevents it.
func TestAMDeadlockAndShare(t *testing.T) {
	var ms []*Master
	mk := func() []*Master {
		ms = nil
		for i := range 3 {
			ms = append(ms, mustNew(t, Config{Policy: FIFO, AM: true}, []Job{{ID: fmt.Sprint(i), Tasks: 2, TaskDuration: 1}}))
		}
		return ms
	}
	if _, err := (Pool{Containers: 3}).Run(mk()); err == nil || !strings.Contains(err.Error(), "waits forever") {
		t.Fatalf("3 AMs on 3 containers: err %v, want a deadlock", err)
	}
	st, err := Pool{Containers: 3, AMShare: 0.5}.Run(mk())
	if err != nil {
		t.Fatal(err)
	}
	// One AM at a time (⌊1.5⌋): each job holds its AM and two task
	// containers for 1 s, in turn.
	for i, m := range ms {
		if r := m.Results()[0]; r.Completion != float64(i+1) {
			t.Fatalf("job %d completes at %g, want %d", i, r.Completion, i+1)
		}
	}
	if st.Busy != 9 {
		t.Fatalf("busy %g container-s, want 9 (3 jobs × (AM + 2 tasks) × 1 s)", st.Busy)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	ok := Job{ID: "a", Tasks: 1, TaskDuration: 1}
	for _, c := range []struct {
		cfg  Config
		jobs []Job
		want string
	}{
		{Config{Policy: 7}, []Job{ok}, "policy"},
		{Config{Metric: "tardy"}, []Job{ok}, "metric"},
		{Config{Interval: -1}, []Job{ok}, "interval"},
		{Config{}, []Job{ok, ok}, "duplicate"},
		{Config{}, []Job{{ID: "", Tasks: 1, TaskDuration: 1}}, "empty id"},
		{Config{}, []Job{{ID: "a", Tasks: 0, TaskDuration: 1}}, "tasks"},
		{Config{}, []Job{{ID: "a", Tasks: 1, TaskDuration: math.Inf(1)}}, "duration"},
		{Config{}, []Job{{ID: "a", Arrival: math.NaN(), Tasks: 1, TaskDuration: 1}}, "arrival"},
	} {
		if _, err := New(c.cfg, c.jobs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v, %+v) = %v, want an error about %s", c.cfg, c.jobs, err, c.want)
		}
	}
}

func TestPoolDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	jobs := randomJobs(rng, 8, 15, 10, false)
	var first []JobResult
	for k := range 3 {
		m := mustNew(t, Config{Policy: Flex, Seed: 4}, jobs)
		if _, err := (Pool{Containers: 5}).Run([]*Master{m}); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			first = m.Results()
		} else if !slices.Equal(first, m.Results()) {
			t.Fatalf("run %d differs: %+v vs %+v", k, m.Results(), first)
		}
	}
}

// TestAMContainer: with Config.AM the first container is the AM, which
// runs no task and goes back when the last job ends.
func TestAMContainer(t *testing.T) {
	m := mustNew(t, Config{Policy: Fair, AM: true}, []Job{{ID: "a", Tasks: 1, TaskDuration: 2}})
	if m.NeedsAM() {
		t.Fatal("needs an AM before any job arrived")
	}
	if want, _ := m.Step(0); want != 2 || !m.NeedsAM() {
		t.Fatalf("want %d needs AM %v: want 2 (AM + task) and true", want, m.NeedsAM())
	}
	m.Granted(0, "am")
	m.Granted(0, "t")
	if m.AMContainer() != "am" || m.NeedsAM() || len(m.Runs()) != 1 || m.Runs()[0].Container != "t" {
		t.Fatalf("AM %q runs %+v: want the AM on am and the task on t", m.AMContainer(), m.Runs())
	}
	_, rel := m.Step(2)
	if !slices.Equal(rel, []string{"am", "t"}) || m.AMContainer() != "" || !m.Done() {
		t.Fatalf("at 2 released %v, AM %q, done %v: want both back and done", rel, m.AMContainer(), m.Done())
	}
}

// TestReleaseEachTask: two masters with a 12-task job each on a pool of 4,
// arriving at 0 and 0.5. The first takes every container; reusing them,
// it keeps them until its tasks run out (done at 3, the other at 6).
// Giving each back at its task's end, DRF splits the pool 2/2 from the
// first task end on: the first is done at 5, the other at 6.
func TestReleaseEachTask(t *testing.T) {
	run := func(release bool) (float64, float64) {
		var ms []*Master
		for i := range 2 {
			ms = append(ms, mustNew(t, Config{Policy: FIFO, ReleaseEachTask: release}, []Job{{ID: fmt.Sprint(i), Arrival: float64(i) / 2, Tasks: 12, TaskDuration: 1}}))
		}
		if _, err := (Pool{Containers: 4}).Run(ms); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			r := m.Results()[0]
			checkRuns(t, m, []Job{{ID: r.ID, Arrival: r.Arrival, Tasks: 12, TaskDuration: 1}})
		}
		return ms[0].Makespan(), ms[1].Makespan()
	}
	if a, b := run(false); a != 3 || b != 6 {
		t.Fatalf("reuse: makespans %g and %g, want 3 and 6", a, b)
	}
	if a, b := run(true); a != 5 || b != 6 {
		t.Fatalf("release: makespans %g and %g, want 5 and 6", a, b)
	}
}

// TestNotice: a container under notice finishes its task, takes no new
// one and goes back; an idle one goes back at once; the AM stays.
func TestNotice(t *testing.T) {
	m := mustNew(t, Config{Policy: FIFO, AM: true}, []Job{{ID: "a", Tasks: 4, TaskDuration: 2}})
	m.Step(0)
	for _, id := range []string{"am", "x", "y"} {
		m.Granted(0, id)
	}
	m.Notice(1, "x")
	m.Notice(1, "am")
	if w := m.Wake(); w != 2 {
		t.Fatalf("wake %g after the notice, want 2 (the tasks' end)", w)
	}
	_, rel := m.Step(2)
	if !slices.Equal(rel, []string{"x"}) || m.AMContainer() != "am" {
		t.Fatalf("at 2 released %v, AM %q: want x back (its task done), the AM kept", rel, m.AMContainer())
	}
	runs := m.Runs()
	if len(runs) != 3 || runs[2].Container != "y" {
		t.Fatalf("runs %+v: want the third task on y, none more on x", runs)
	}
	m.Granted(2, "z")
	m.Notice(2, "z") // z took the last task: it finishes, then goes back
	if _, rel := m.Step(2); len(rel) != 0 {
		t.Fatalf("released %v with z's task running", rel)
	}
	for w := m.Wake(); !math.IsInf(w, 1); w = m.Wake() {
		m.Step(w)
	}
	if !m.Done() || m.Makespan() != 4 {
		t.Fatalf("done %v makespan %g, want done at 4", m.Done(), m.Makespan())
	}
}
