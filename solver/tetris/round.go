package tetris

import "math"

// The round as a chain of steps.
//
// Round fills the machines in the caller's order (fill); a fill makes
// picks on its machine until no candidate is left, each pick the same
// chain of steps, one file a step, each with the invariant it keeps:
//
//  1. Candidates (round_candidates.go): at the fill's start every member
//     with input on the machine and every group (through a representative
//     member) is evaluated once and kept as an entry of the candidate set
//     if it fits; round_groups.go keeps what a group needs for this
//     across fills.
//  2. Feasibility (round_feasibility.go): the machine view's fit limits and
//     the remote reads' versions; after each placement the entries that no
//     longer fit are dropped for the rest of the fill (free capacity only
//     shrinks during a round).
//  3. Alignment score (round_score.go): a·(1−penalty if remote) − ε·p,
//     kept in two max-heaps (round_heap.go) whose snapshots are upper
//     bounds of the current scores.
//  4. SRTF, fairness and barrier (round_fairness.go): the SRTF term ε·p
//     per job; the jobs in dominant-share order and the fairness cut (the
//     first ⌈(1−f)·|J|⌉ jobs holding a candidate); promoted stages (the
//     barrier hint) in a heap of their own, tried first.
//  5. Pick (place, below): the current top of the promoted heap among the
//     eligible jobs, else of the other heap.
//  6. Commit (round_commit.go): the placement's demand leaves the machine
//     (and its remote reads the input machines), the job's share and
//     order move, and the entry placed advances to its next member.
//
// refRoundRun (engine_ref_test.go) is the straightforward round this one
// must match placement for placement (engine_equiv_test.go).
//
// The steps record no reasons on the hot path: why a task was left pending
// (which resource kept it out, and where) is worked out afterwards for the
// unplaced tasks alone by Explain (explain.go).

// round is the state of one Round, one field per step of a pick (see the
// top of this file), set up by newRound: what the caller passed, the jobs' shares and orders (fairness
// and SRTF), the members with input per machine and the per-group cache
// (candidates), the remote-read versions and the machine being filled
// (feasibility and alignment), and the candidates of the current fill.
type round struct {
	in      roundInput
	jobs    jobQueue
	local   localIndex
	groups  groupCache
	remote  remoteState
	machine machineView
	// fills counts the fills made (candidateSet.slot tells fills apart by it).
	fills int
	cands candidateSet
}

// roundInput is what the caller passed: the machines, groups and jobs the
// round mutates, its knobs, the number of resources d and the resources
// checked (cfg.Mask, or all).
type roundInput struct {
	ms   []Machine
	gs   []*Group
	js   []Job
	cfg  Config
	d    int
	mask []bool
}

// cand is the candidate a fill places: group g, member mi (-1 for an
// anonymous group), with its alignment and score on the machine.
type cand struct {
	g, mi    int
	align    float64
	score    float64
	remote   bool
	promoted bool
	ok       bool
}

// newRound sets up a round: the per-job and per-group state, the local
// members of each machine and the jobs' share orders.
func newRound(ms []Machine, gs []*Group, js []Job, cfg Config) *round {
	d := dims(ms)
	r := &round{in: roundInput{ms: ms, gs: gs, js: js, cfg: cfg, d: d, mask: cfg.mask(d)}}
	r.machine = machineView{ms: ms, mask: r.in.mask, d: d, roles: cfg.Roles, monotone: true,
		free: make([]float64, d), scratch: make([]float64, d), limit: make([]float64, d)}
	r.remote = remoteState{ms: ms, mask: r.in.mask, roles: cfg.Roles, chg: make([]int, len(ms))}
	r.cands.init(len(js), len(gs), len(ms), d)
	r.groups = newGroupCache(ms, gs, cfg, r.in.mask, d)
	r.jobs = newJobQueue(js, gs, cfg, r.in.mask)
	r.local = newLocalIndex(ms, gs, &r.groups)
	return r
}

// fill places tasks on machine m until none fits: the candidates once,
// then picks until no job holds one.
func (r *round) fill(m int, out []Placement) []Placement {
	r.fills++
	r.startFill(m)
	r.machine.prepMachine(m)
	r.addCandidates(m)
	for r.cands.jobsHolding > 0 {
		out = r.place(m, out)
	}
	r.endFill(m)
	return out
}

// startFill resets the fill's scratch for machine m: its entries start
// after the capacity class's cached demands (when m has a class).
func (r *round) startFill(m int) {
	fs := &r.cands
	fs.entries, fs.live, fs.rest = fs.entries[:0], fs.live[:0], fs.rest[:0]
	if cls := r.groups.capClass[m]; cls >= 0 {
		cc := r.groups.classCache(cls)
		fs.demands, fs.base, fs.shared = cc.nd, len(cc.nd), true
	} else {
		fs.demands, fs.base, fs.shared = fs.own[:0], 0, false
	}
	fs.promoted, fs.others = fs.promoted[:0], fs.others[:0]
	fs.step, fs.nlive = 0, 0
	fs.chk = fs.chk[:0]
	for k := range fs.ptr {
		fs.ptr[k], fs.stop[k], fs.restMax[k] = 0, math.Inf(1), math.Inf(1)
		if r.in.mask[k] && r.in.ms[m].Cap[k] > 0 {
			fs.chk = append(fs.chk, k)
		}
	}
}

// place makes one pick on m and commits it (steps 3 to 6), then drops the
// entries that no longer fit m (step 2 again).
func (r *round) place(m int, out []Placement) []Placement {
	t := r.pick()
	out = append(out, Placement{})
	reads := r.commit(t, m, &out[len(out)-1])
	r.recheck(m, reads, int(t.e))
	return out
}

// pick is steps 3 to 5: the fairness cut (which jobs may receive m), then
// the current best score among their entries, promoted stages first (the
// barrier hint).
func (r *round) pick() hnode {
	fs := &r.cands
	cut := r.jobs.cutAt(fs)
	fs.unpark(&r.jobs, &r.machine, cut)
	if !r.machine.monotone {
		fs.refreshAll(&r.jobs, &r.machine)
	}
	t, ok := fs.top(&r.jobs, &r.machine, &fs.promoted, cut)
	if !ok {
		t, ok = fs.top(&r.jobs, &r.machine, &fs.others, cut)
	}
	if !ok {
		// Some job holds a live candidate and k ≥ 1, so some eligible
		// job does, and its entries are in a heap (parked ones were
		// restored above).
		panic("tetris: no eligible candidate although a job holds one")
	}
	return t
}

// endFill marks m changed when the fill placed something and clears the
// fill's per-machine lists, keeping the larger demand array.
func (r *round) endFill(m int) {
	fs := &r.cands
	if fs.step > 0 {
		// m lost capacity: remote-read checks of members reading from m,
		// kept across fills (groupState.repVer), are stale.
		r.remote.remoteVer++
		r.remote.chg[m] = r.remote.remoteVer
	}
	for _, j := range fs.parkedJobs {
		fs.parked[j] = fs.parked[j][:0]
	}
	fs.parkedJobs = fs.parkedJobs[:0]
	for _, x := range fs.inUsed {
		fs.byIn[x] = fs.byIn[x][:0]
	}
	fs.inUsed = fs.inUsed[:0]
	if cls := r.groups.capClass[m]; cls < 0 {
		fs.own = fs.demands[:0]
	} else if !fs.shared {
		// Keep the larger array for the class's next fills, with the
		// cache's current values.
		cc := &r.groups.classes[cls]
		copy(fs.demands[:fs.base], cc.nd)
		cc.nd = fs.demands[:fs.base]
	}
	fs.demands = nil
}
