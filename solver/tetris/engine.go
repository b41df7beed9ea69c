// Package tetris is the scheduling core of Tetris (Grandl et al., "Multi-
// Resource Packing for Cluster Schedulers", SIGCOMM 2014), shared by the two
// problems built on it: solver/tetris/assign (one heartbeat round, as a
// resource manager would call it) and solver/tetris/simulate (a trace-driven
// what-if simulator).
//
// One round (Round) visits machines in a given order and fills each one
// (§3.2: "this process is repeated until the machine cannot accommodate any
// further tasks"). Each pick on machine m:
//
//  1. Feasibility: a pending task is a candidate only if its placement-
//     adjusted peak demand fits m's free resources and, when it reads input
//     remotely, the disk-read and network-out bandwidth it needs is free at
//     every machine holding that input (§3.2 "Incorporating task
//     placement"). Over-allocation of the checked resources is impossible.
//  2. Ranking: score = a·(1−penalty if remote) − ε·p, where a is the
//     alignment (vecpack.Alignment: the dot product of demand and free
//     capacity, both normalised by m's capacity) and p is the job's
//     remaining work (§3.3.1). The paper writes a + ε·p but states that jobs
//     with less remaining work go first; the sign here implements the stated
//     intent (a larger p lowers the score).
//  3. Fairness (§3.4): jobs holding a candidate are ordered by weighted
//     dominant share, least first; only the first ⌈(1−f)·|J|⌉ of them may
//     receive m, |J| being the number of jobs with pending tasks. f = 0 is
//     pure packing; f → 1 leaves only the job furthest below its share.
//  4. Barrier hint (§3.5): among the eligible jobs, tasks of stages whose
//     finished fraction reached b are preferred over all others.
//
// Ties are broken by group index, then member index (the caller's order),
// so a round is deterministic.
//
// Besides the round (engine.go), its explanations (explain.go) and the
// scores (score.go), the package holds what both problems decode the same
// way (request.go: machines, resources, roles, knobs). The paper's workload
// and the generators' parameters are in solver/tetris/workload.
package tetris

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// ShareTieTol treats two dominant shares as equal when they differ by less
// than this: shares are sums of at most ~1e6 demands over capacities, so
// 1e-12 absolute is far above round-off noise yet far below any real
// difference of one task's share.
const ShareTieTol = 1e-12

// ceilTol keeps ⌈(1−f)·|J|⌉ from jumping up on round-off (e.g.
// (1−0.7)·10 = 3.0000000000000004): the product is at most ~1e6, so 1e-9
// is far below one job.
const ceilTol = 1e-9

// Input is one portion of a task's input: while it runs the task reads Rate
// (in disk-read / network units) from Machine.
type Input struct {
	Machine int
	Rate    float64
}

// Roles locate the resources that placement adjusts; -1 means the resource
// does not exist (then no input may have a positive rate).
type Roles struct {
	DiskRead, NetIn, NetOut int
}

// Member is one pending task of a Group.
type Member struct {
	// Inputs lists where the task's input lives; empty means no input
	// bandwidth beyond the group's Demand.
	Inputs []Input
	placed bool
	// deadAt marks (with the group's round number) a member whose remote
	// reads no longer fit in that round: free capacity only shrinks during
	// a round, so it cannot fit on any machine that does not hold its
	// input. 32 bits keep a member in 32 bytes (the round reads members
	// scattered over 10,000s of them); round numbers wrap only after 2³²
	// rounds of one group.
	deadAt int32
}

// Placed reports whether the member was assigned in a round.
func (m *Member) Placed() bool { return m.placed }

// Take marks member mi as placed by a scheduler other than Round (the
// simulator's baseline policies), keeping Count in step.
func (g *Group) Take(mi int) {
	if !g.Members[mi].placed {
		g.Members[mi].placed = true
		g.Count--
	}
}

// Group is a set of interchangeable pending tasks: one job, one stage, the
// same peak demand. Members may differ in input locations.
type Group struct {
	Job int
	// Demand is the peak demand when the task reads nothing remotely (the
	// input portions are added per placement, see LocalDemand).
	Demand []float64
	// Promoted marks a stage past the barrier threshold b (§3.5).
	Promoted bool
	// Members lists the tasks individually; when nil the group stands for
	// Count anonymous tasks without inputs (the simulator's case).
	Members []Member
	// Count is the number of pending (unplaced) tasks.
	Count int
	// ByMachine, when set, lists per machine the members with input there
	// (placed ones may remain; they are skipped). A caller that keeps it
	// across rounds (the simulator) spares Round a scan of every member.
	ByMachine [][]int32

	cursor int   // every member before it is placed
	round  int32 // rounds seen, for deadAt
	// skip, when set (groups without ByMachine, rebuilt each round), maps a
	// member index to the next member not yet placed or dead this round,
	// with path compression, so scans never revisit them.
	skip []int32
}

// nextLive is the first member at or after i not known placed or dead in
// this round (len(Members) if none).
func (g *Group) nextLive(i int) int {
	if g.skip == nil || i >= len(g.Members) {
		return i
	}
	root := i
	for int(g.skip[root]) != root {
		root = int(g.skip[root])
	}
	for int(g.skip[i]) != root {
		nx := int(g.skip[i])
		g.skip[i] = int32(root)
		i = nx
	}
	return root
}

// removeLive drops member i from the skip structure.
func (g *Group) removeLive(i int) {
	if g.skip != nil {
		g.skip[i] = int32(i + 1)
	}
}

// Job is the per-job state a round reads and updates.
type Job struct {
	// Alloc is the job's current allocation (summed over machines), used
	// for its dominant share; a round adds what it places.
	Alloc []float64
	// Weight scales the fair share (default 1).
	Weight float64
	// Work is the remaining work p of §3.3.1.
	Work float64
}

// Machine is a machine's capacity and free resources; a round subtracts
// what it places from Free.
type Machine struct {
	Cap  []float64
	Free []float64
}

// Config holds the knobs of a round.
type Config struct {
	// Fairness is f in [0, 1].
	Fairness float64
	// Epsilon weighs remaining work against alignment (already resolved;
	// see AutoEpsilon).
	Epsilon float64
	// RemotePenalty is the fraction of alignment lost by a remote read.
	RemotePenalty float64
	// Mask selects the resources checked for fit and scored; nil means all.
	// The simulator's cpu-and-memory variant masks out disk and network,
	// which lets them be over-allocated.
	Mask []bool
	// Total is the cluster's capacity per resource (dominant shares).
	Total []float64
	Roles Roles
}

// Placement is one task placed by a round. Its indices are 32-bit (see
// maxRoundSize) and it carries no demand vectors (LocalDemand and
// RemoteNeeds give them from the task's inputs): a cold start places
// thousands of tasks in one round, and at 48 bytes instead of 112 the
// round writes (and zeroes) 0.3 MB less for 4,521 placements, which
// measured 3-5% of the round's time.
type Placement struct {
	Group, Member int32 // Member is -1 for anonymous groups
	Machine       int32
	// Rank is the job's position among the jobs that could use the
	// machine (0 = furthest below its fair share) and Share its dominant
	// share just before the placement.
	Rank      int32
	Share     float64
	Alignment float64
	Score     float64
	Remote    bool
	Promoted  bool
}

// Round runs one scheduling round over machines in the given visit order and
// returns the placements in the order they were made. It mutates machine
// Free, job Alloc, group Count and member placed flags.
func Round(ctx context.Context, machines []Machine, order []int, groups []*Group, jobs []Job, cfg Config) ([]Placement, error) {
	if err := checkSize(machines, groups, jobs); err != nil {
		return nil, err
	}
	r := newRound(machines, groups, jobs, cfg)
	var out []Placement
	reserved := false
	for i, m := range order {
		if i%16 == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = r.fill(m, out)
		if !reserved && len(out) > 0 {
			// Room for as many placements per machine as so far (at most
			// every pending task), sparing the doublings of append.
			reserved = true
			pending := 0
			for _, p := range r.jobs.pending {
				pending += p
			}
			if n := len(out) + min(pending, len(out)*(len(order)-i-1)/(i+1)); n > cap(out) {
				out = append(make([]Placement, 0, n), out...)
			}
		}
	}
	return out, nil
}

// maxRoundSize bounds the members (and anonymous tasks), machines and
// jobs of a round: the round keeps indices and counts in 32 bits (gcache,
// localRef). Both problems' limits are far below it (a million tasks).
const maxRoundSize = math.MaxInt32

// checkSize refuses a round larger than maxRoundSize.
func checkSize(machines []Machine, groups []*Group, jobs []Job) error {
	n := 0
	for _, g := range groups {
		// Compared before adding, so a huge Count cannot wrap the sum.
		c := max(len(g.Members), g.Count)
		if c >= maxRoundSize-n {
			return fmt.Errorf("tetris: a round takes fewer than %d tasks", maxRoundSize)
		}
		n += c
	}
	if len(machines) >= maxRoundSize || len(jobs) >= maxRoundSize {
		return fmt.Errorf("tetris: a round takes fewer than %d machines and jobs", maxRoundSize)
	}
	return nil
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

// round is the state of one Round, one field per step of a pick (see
// round.go): what the caller passed, the jobs' shares and orders (fairness
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

// jobQueue is the per-job state of the fairness cut and the SRTF term.
type jobQueue struct {
	js          []Job     // the round's jobs (Alloc grows as tasks are placed)
	total       []float64 // the cluster's capacity per resource (Config.Total)
	fairness    float64   // f (Config.Fairness)
	penalty     float64   // the remote-read penalty (Config.RemotePenalty)
	pending     []int     // pending members per job
	jobsPending int       // jobs with pending members
	shares      []float64 // dominant share per job
	srtf        []float64 // ε·Work per job (Work does not change during a round)
	// shareRes lists the resources of dominant shares (masked, with a
	// positive cluster total), in index order.
	shareRes []int
	// order lists the jobs with pending tasks by dominant share (ties by
	// index); sh caches each job's share. Only a placed job's share
	// changes, so the order is kept by moving that one job. opos[j] is
	// job j's position in order (-1: not there).
	order    []int
	orderPos []int
	// vo lists the same jobs as order sorted by (share, index) exactly,
	// and vpos[j] is job j's position in it (-1: not there). order is
	// sorted by shareLess, which treats shares within ShareTieTol as equal
	// and so need not be transitive; vo is what rank counts in.
	exact, exactPos []int
}

// localIndex lists, per machine, the members with input there.
type localIndex struct {
	// localAll lists the members with input on each machine, machine by
	// machine (by group, member and input order within one), those of
	// machine m at localAll[localAt[m]:localAt[m+1]].
	localAll []localRef
	localAt  []int32
	// placedBits has bit mbase[gi]+mi set when member mi of group gi is
	// placed in this round: the fills test their local members here, not
	// in the members (a bit per member instead of a cache line).
	placedBits []uint64
	mbase      []int
}

// groupCache is what the round keeps per group across fills, flat for the
// fills' scans (engine_cache.go).
type groupCache struct {
	gs       []*Group
	ms       []Machine
	mask     []bool
	d        int
	roles    Roles
	cache    []groupState
	promoted []bool // barrier promotion per group
	// gdem is every group's Demand, d per group (the fills' pre-filter
	// reads it for each local member).
	baseDemand []float64
	// rdem[gi] is group gi's remote demand (nil until needed, see
	// remoteDem).
	remoteDemand [][]float64
	byBase       [][]int // per resource: groups by demand (see byDemand)
	// byRemote[k] lists the groups by remote demand of resource k,
	// largest first (see recheck and sortByRemote).
	byRemote [][]int32
	// capCls numbers the machines' distinct capacity vectors; cls is the
	// cache per capacity class.
	capClass []int
	classes  []classCache
}

// remoteState tracks where free capacity changed, so that a remote-fit
// check is redone only when it may no longer hold.
type remoteState struct {
	ms    []Machine
	mask  []bool
	roles Roles
	needs []Input // scratch: a task's remote reads aggregated per machine
	// remoteVer counts placements with remote reads and fills that placed
	// something: only they change free capacity at machines other than the
	// one being filled, so a remote-fit check stays valid while it is
	// unchanged.
	remoteVer int
	// chg[x] is remoteVer after the last placement that read remotely from
	// machine x, or after the last fill of x that placed something: a
	// remote-fit check made at version v still holds while none of the
	// task's input machines (other than the one being filled) has chg above
	// v.
	chg []int
}

// pickScratch is the machine being filled and the buffers of one pick.
type machineView struct {
	ms    []Machine
	mask  []bool
	d     int
	roles Roles
	// monotone: every normalised demand computed so far is non-negative
	// (and not NaN), so the machine being filled only loses free capacity
	// and every score only falls during a fill (see engine_fill.go).
	monotone bool
	free     []float64 // normalised masked free of the machine
	limit    []float64 // fit threshold per resource of the current pick
	scratch  []float64 // scratch: local demand
	alive    []int     // scratch for fill: groups that may fit the machine
	// pdem and pru are the demand on the machine and the remote reads of
	// the last placement (apply).
	placedDemand []float64
	placedReads  []Input
}

// dims is the number of resources of the machines' vectors.
func dims(ms []Machine) int {
	if len(ms) == 0 {
		return 0
	}
	return len(ms[0].Cap)
}

// mask is cfg.Mask, or all d resources when it is nil.
func (cfg Config) mask(d int) []bool {
	if cfg.Mask != nil {
		return cfg.Mask
	}
	mask := make([]bool, d)
	for i := range mask {
		mask[i] = true
	}
	return mask
}

// newRound sets up a round: the per-job and per-group state, the local
// members of each machine and the jobs' share orders.
func newRound(ms []Machine, gs []*Group, js []Job, cfg Config) *round {
	d := dims(ms)
	r := &round{in: roundInput{ms: ms, gs: gs, js: js, cfg: cfg, d: d, mask: cfg.mask(d)}}
	r.machine = machineView{ms: ms, mask: r.in.mask, d: d, roles: cfg.Roles, monotone: true, free: make([]float64, d), scratch: make([]float64, d), limit: make([]float64, d)}
	r.remote = remoteState{ms: ms, mask: r.in.mask, roles: cfg.Roles, chg: make([]int, len(ms))}
	r.cands.init(len(js), len(gs), len(ms), d)
	r.groups = newGroupCache(ms, gs, cfg, r.in.mask, d)
	r.jobs = newJobQueue(js, gs, cfg, r.in.mask)
	r.local = newLocalIndex(ms, gs, &r.groups)
	return r
}

// newGroupCache fills the per-group caches and starts each group's round.
func newGroupCache(ms []Machine, gs []*Group, cfg Config, mask []bool, d int) groupCache {
	c := groupCache{gs: gs, ms: ms, mask: mask, d: d, roles: cfg.Roles,
		cache: make([]groupState, len(gs)), promoted: make([]bool, len(gs)), baseDemand: make([]float64, len(gs)*d),
		capClass: capClasses(ms), classes: make([]classCache, maxCapClasses)}
	for gi, g := range gs {
		c.cache[gi] = groupState{gi: int32(gi), nmem: int32(len(g.Members)), job: int32(g.Job), count: int32(g.Count), promo: g.Promoted, anon: g.Members == nil,
			byMachine: g.ByMachine != nil, remote: len(g.Members) > 0 && len(g.Members[0].Inputs) > 0,
			input1: len(g.Members) > 0 && len(g.Members[0].Inputs) == 1,
			first:  -1, repMi: -1}
		c.promoted[gi] = g.Promoted
		copy(c.baseDemand[gi*d:(gi+1)*d], g.Demand)
		g.round++
	}
	return c
}

// newJobQueue sets the jobs' pending counts, SRTF terms and share
// resources, then lists the jobs with pending tasks in share order.
func newJobQueue(js []Job, gs []*Group, cfg Config, mask []bool) jobQueue {
	q := jobQueue{js: js, total: cfg.Total, fairness: cfg.Fairness, penalty: cfg.RemotePenalty}
	q.pending, q.shares, q.srtf = make([]int, len(js)), make([]float64, len(js)), make([]float64, len(js))
	for j := range js {
		q.srtf[j] = cfg.Epsilon * js[j].Work
	}
	for k := range min(len(mask), len(cfg.Total)) {
		if mask[k] && cfg.Total[k] > 0 {
			q.shareRes = append(q.shareRes, k)
		}
	}
	for _, g := range gs {
		q.pending[g.Job] += g.Count
	}
	q.initOrder()
	return q
}

// newLocalIndex lists the pending members with input on each machine (groups
// without ByMachine; the others list their own) and sets up the skip
// pointers over placed and dead members for this round.
func newLocalIndex(ms []Machine, gs []*Group, c *groupCache) localIndex {
	var l localIndex
	l.mbase = make([]int, len(gs))
	nmem := 0
	var refs []localRef
	var refAt []int32 // the machine of each of refs
	for gi, g := range gs {
		l.mbase[gi] = nmem
		nmem += len(g.Members)
		if g.ByMachine != nil {
			g.skip = nil
			continue
		}
		if g.Members != nil {
			g.skip = make([]int32, len(g.Members)+1)
			g.skip[len(g.Members)] = int32(len(g.Members))
		}
		for mi := range g.Members {
			mem := &g.Members[mi]
			g.skip[mi] = int32(mi)
			if mem.placed {
				g.skip[mi] = int32(mi + 1)
				continue
			}
			canon := c.canonLocal(gi, mem)
			for k, in := range mem.Inputs {
				if !hasInput(mem.Inputs[:k], in.Machine) {
					refs = append(refs, localRef{gi: int32(gi), mi: int32(mi), bit: int32(l.mbase[gi] + mi), canon: canon})
					refAt = append(refAt, int32(in.Machine))
				}
			}
		}
	}
	l.placedBits = make([]uint64, (nmem+63)/64)
	l.sortLocal(len(ms), refs, refAt)
	return l
}

// sortLocal is a counting sort of refs by machine into localAll (stable:
// each machine's list keeps the order of refs).
func (l *localIndex) sortLocal(nm int, refs []localRef, refAt []int32) {
	l.localAt = make([]int32, nm+1)
	for _, m := range refAt {
		l.localAt[m+1]++
	}
	for m := range nm {
		l.localAt[m+1] += l.localAt[m]
	}
	l.localAll = make([]localRef, len(refs))
	next := append([]int32(nil), l.localAt[:nm]...)
	for i, ref := range refs {
		m := refAt[i]
		l.localAll[next[m]] = ref
		next[m]++
	}
}

// initOrder lists the jobs with pending tasks by share, in both orders.
func (q *jobQueue) initOrder() {
	for j, p := range q.pending {
		if p > 0 {
			q.jobsPending++
			q.shares[j] = q.share(j)
			q.order = append(q.order, j)
		}
	}
	sort.Slice(q.order, func(a, b int) bool { return q.shareLess(q.order[a], q.order[b]) })
	q.orderPos = positions(q.order, len(q.js))
	q.exact = append([]int(nil), q.order...)
	sort.Slice(q.exact, func(a, b int) bool { return q.valueLess(q.exact[a], q.exact[b]) })
	q.exactPos = positions(q.exact, len(q.js))
}

// positions maps each of n jobs to its position in list (-1: not there).
func positions(list []int, n int) []int {
	pos := make([]int, n)
	for j := range pos {
		pos[j] = -1
	}
	for i, j := range list {
		pos[j] = i
	}
	return pos
}

// LocalDemand writes into out the demand of a task of g with the given
// inputs when placed on machine m: portions stored on m add disk read at m,
// the others add network in at m (they also need disk read and network out
// at their own machine, which RemoteNeeds lists). remote reports whether any
// portion is read remotely.
func LocalDemand(g *Group, inputs []Input, m int, roles Roles, out []float64) (remote bool) {
	copy(out, g.Demand)
	for _, in := range inputs {
		if in.Machine == m {
			if roles.DiskRead >= 0 {
				out[roles.DiskRead] += in.Rate
			}
			continue
		}
		remote = true
		if roles.NetIn >= 0 {
			out[roles.NetIn] += in.Rate
		}
	}
	return remote
}

// RemoteNeeds aggregates, per remote machine, the bandwidth a task placed on
// m reads from it (needed as disk read and network out there), appending to
// buf in first-occurrence order.
func RemoteNeeds(inputs []Input, m int, buf []Input) []Input {
	buf = buf[:0]
	for _, in := range inputs {
		if in.Machine == m {
			continue
		}
		found := false
		for k := range buf {
			if buf[k].Machine == in.Machine {
				buf[k].Rate += in.Rate
				found = true
				break
			}
		}
		if !found {
			buf = append(buf, in)
		}
	}
	return buf
}

// prepMachine caches m's normalised free vector over the checked resources
// and the fit threshold of each entry (fitLimit on normalised amounts).
func (v *machineView) prepMachine(m int) {
	mc := &v.ms[m]
	for k := 0; k < v.d; k++ {
		v.prepResource(mc, k)
	}
}

// prepResource is prepMachine for resource k of machine mc.
func (v *machineView) prepResource(mc *Machine, k int) {
	nf := 0.0
	if v.mask[k] && mc.Cap[k] > 0 {
		nf = mc.Free[k] / mc.Cap[k]
	}
	v.free[k] = nf
	v.limit[k] = fitLimit(nf, 1)
}

// demandOn writes into nd the normalised masked demand on machine m of a
// task of g with the given inputs; absent reports that m lacks a resource
// the task needs (a machine without the resource at all never takes the
// task, not even when the resource is unchecked).
func (v *machineView) demandOn(g *Group, inputs []Input, m int, nd []float64) (remote, absent bool) {
	remote = LocalDemand(g, inputs, m, v.roles, v.scratch)
	return remote, v.normalise(v.scratch, m, nd)
}

// normalise writes into nd the demand dem on machine m normalised by m's
// capacity over the checked resources; absent as for demandOn.
func (v *machineView) normalise(dem []float64, m int, nd []float64) (absent bool) {
	mc := v.ms[m]
	for k := 0; k < v.d; k++ {
		nd[k] = 0
		x := dem[k]
		if x > 0 && mc.Cap[k] <= 0 {
			return true
		}
		if v.mask[k] && mc.Cap[k] > 0 {
			nd[k] = x / mc.Cap[k]
			if !(nd[k] >= 0) {
				v.monotone = false
			}
		}
	}
	return false
}

// align is vecpack.Alignment(nd, nf) against the current pick's free vector
// (its fit thresholds precomputed by prepMachine); ok is false when nd does
// not fit.
func (v *machineView) align(nd []float64) (a float64, ok bool) {
	if !fitsAll(nd, v.limit) {
		return 0, false
	}
	nf := v.free[:len(nd)]
	for k, x := range nd {
		a += x * nf[k]
	}
	return a, true
}

// stale reports whether a remote-fit check of a task with the given inputs,
// placed on m, made at version ver (-1: never) may no longer hold: some
// input machine other than m lost free capacity since.
func (rs *remoteState) stale(inputs []Input, m, ver int) bool {
	for _, in := range inputs {
		if in.Machine != m && rs.chg[in.Machine] > ver {
			return true
		}
	}
	return false
}

// remoteFits checks disk read and network out at every remote input machine.
func (rs *remoteState) remoteFits(inputs []Input, m int) bool {
	if len(inputs) == 1 {
		// The common case needs no aggregation.
		return inputs[0].Machine == m || rs.needFits(inputs[0])
	}
	rs.needs = RemoteNeeds(inputs, m, rs.needs)
	for _, n := range rs.needs {
		if !rs.needFits(n) {
			return false
		}
	}
	return true
}

// needFits is the fitLimit test of the need's rate, as disk read and network out
// where checked, against the free amounts at its machine.
func (rs *remoteState) needFits(n Input) bool {
	f := rs.ms[n.Machine].Free
	ro := rs.roles
	if ro.DiskRead >= 0 && rs.mask[ro.DiskRead] {
		if n.Rate > fitLimit(f[ro.DiskRead], rs.ms[n.Machine].Cap[ro.DiskRead]) {
			return false
		}
	}
	if ro.NetOut >= 0 && rs.mask[ro.NetOut] {
		if n.Rate > fitLimit(f[ro.NetOut], rs.ms[n.Machine].Cap[ro.NetOut]) {
			return false
		}
	}
	return true
}

// share is job j's weighted dominant share over the masked resources.
func (q *jobQueue) share(j int) float64 {
	s := 0.0
	alloc, total := q.js[j].Alloc, q.total
	for _, k := range q.shareRes {
		if k >= len(alloc) {
			break
		}
		s = max(s, alloc[k]/total[k]) // the builtin has math.Max's NaN and signed-zero rules
	}
	w := q.js[j].Weight
	if w <= 0 {
		w = 1
	}
	return s / w
}

// nextRep is the first member of g at or after from (a live index) that is
// pending, not dead this round and without input on m; len(Members) if
// none. It advances g.cursor over placed members.
func nextRep(g *Group, from, m int) int {
	for mi := from; mi < len(g.Members); mi = g.nextLive(mi + 1) {
		mem := &g.Members[mi]
		if mem.placed {
			if mi == g.cursor {
				g.cursor++
			}
			continue
		}
		if mem.deadAt == g.round || hasInput(mem.Inputs, m) {
			continue
		}
		return mi
	}
	return len(g.Members)
}

// byDemand returns the group indices sorted by demand of resource k (ties
// by index), built once per round per resource.
func (c *groupCache) byDemand(k int) []int {
	if c.byBase == nil {
		c.byBase = make([][]int, c.d)
	}
	if c.byBase[k] == nil {
		idx := make([]int, len(c.gs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return c.gs[idx[a]].Demand[k] < c.gs[idx[b]].Demand[k] })
		c.byBase[k] = idx
	}
	return c.byBase[k]
}

// shareLess orders jobs by dominant share, ties by index.
func (q *jobQueue) shareLess(a, b int) bool {
	sa, sb := q.shares[a], q.shares[b]
	if math.Abs(sa-sb) > ShareTieTol {
		return sa < sb
	}
	return a < b
}

// reorder refreshes job j's share after a placement (only the placed job's
// share changes) and moves it to its place in r.order, dropping it when it
// has nothing pending.
func (q *jobQueue) reorder(j int) {
	pos := q.orderPos[j]
	if pos < 0 {
		return
	}
	if q.pending[j] == 0 {
		drop(&q.order, q.orderPos, j)
		drop(&q.exact, q.exactPos, j)
		return
	}
	q.shares[j] = q.share(j)
	// shareLess(x, j) written out with j's share read once.
	sj := q.shares[j]
	for pos+1 < len(q.order) {
		x := q.order[pos+1]
		var less bool
		if sx := q.shares[x]; math.Abs(sx-sj) > ShareTieTol {
			less = sx < sj
		} else {
			less = x < j
		}
		if !less {
			break
		}
		q.order[pos], q.orderPos[x] = x, pos
		pos++
	}
	q.order[pos], q.orderPos[j] = j, pos
	// vo is strictly ordered: binary search for j's new place (later,
	// its share only grew).
	pos = q.exactPos[j]
	rest := q.exact[pos+1:]
	// sort.Search for the first job of rest not valueLess than j, written
	// out (no closure call per step).
	lo, hi := 0, len(rest)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		x := rest[h]
		if sx := q.shares[x]; sx < sj || (sx == sj && x < j) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	at := pos + lo
	for i, x := range rest[:lo] {
		q.exact[pos+i], q.exactPos[x] = x, pos+i
	}
	q.exact[at], q.exactPos[j] = j, at
}

// valueLess orders jobs by dominant share exactly, ties by index.
func (q *jobQueue) valueLess(a, b int) bool {
	if sa, sb := q.shares[a], q.shares[b]; sa != sb {
		return sa < sb
	}
	return a < b
}

// drop removes job j from list, keeping pos (positions in list) in step.
func drop(list *[]int, pos []int, j int) {
	p := pos[j]
	*list = append((*list)[:p], (*list)[p+1:]...)
	pos[j] = -1
	for i := p; i < len(*list); i++ {
		pos[(*list)[i]] = i
	}
}

// localRef is a member with input on a machine (round.localAll).
type localRef struct {
	gi, mi int32
	bit    int32 // the member's bit in round.placedBits
	// canon: the member reads one input entry, at member 0's rate bit
	// for bit, and so does member 0 (classLocalND is then its demand on
	// the machine holding the input).
	canon bool
}

// canonLocal reports localRef.canon for member mem of group gi: it reads
// one input entry, at member 0's rate, and so does member 0.
func (c *groupCache) canonLocal(gi int, mem *Member) bool {
	return len(mem.Inputs) == 1 && c.cache[gi].input1 && sameRates(mem.Inputs, c.gs[gi].Members[0].Inputs)
}

func hasInput(ins []Input, m int) bool {
	for _, in := range ins {
		if in.Machine == m {
			return true
		}
	}
	return false
}

// apply commits candidate c on machine m and writes its placement into p.
// The placement's demand on m and its remote reads are left in r.pdem and
// r.pru (nil when it reads nothing remotely) until the next apply.
func (r *round) apply(c cand, m int, share float64, rank int, p *Placement) {
	g := r.in.gs[c.g]
	var inputs []Input
	if c.mi >= 0 {
		g.Members[c.mi].placed = true
		b := r.local.mbase[c.g] + c.mi
		r.local.placedBits[b>>6] |= 1 << (b & 63)
		g.removeLive(c.mi)
		inputs = g.Members[c.mi].Inputs
	}
	if r.machine.placedDemand == nil {
		r.machine.placedDemand = make([]float64, r.in.d)
	}
	dem := r.machine.placedDemand
	LocalDemand(g, inputs, m, r.in.cfg.Roles, dem)
	job := &r.in.js[g.Job]
	for k, x := range dem {
		r.in.ms[m].Free[k] -= x
		job.Alloc[k] += x
	}
	var ru []Input
	if c.remote {
		// A copy: the rechecks that follow reuse r.need.
		r.remote.needs = RemoteNeeds(inputs, m, r.remote.needs)
		r.machine.placedReads = append(r.machine.placedReads[:0], r.remote.needs...)
		ru = r.machine.placedReads
		ro := r.in.cfg.Roles
		for _, n := range ru {
			f := r.in.ms[n.Machine].Free
			if ro.DiskRead >= 0 {
				f[ro.DiskRead] -= n.Rate
				job.Alloc[ro.DiskRead] += n.Rate
			}
			if ro.NetOut >= 0 {
				f[ro.NetOut] -= n.Rate
				job.Alloc[ro.NetOut] += n.Rate
			}
		}
	}
	g.Count--
	r.groups.cache[c.g].count--
	if c.mi >= 0 && int(r.groups.cache[c.g].first) == c.mi {
		r.groups.cache[c.g].first = -1
	}
	r.jobs.pending[g.Job]--
	if r.jobs.pending[g.Job] == 0 {
		r.jobs.jobsPending--
	}
	*p = Placement{Group: int32(c.g), Member: int32(c.mi), Machine: int32(m), Alignment: c.align, Score: c.score,
		Remote: c.remote, Promoted: c.promoted, Share: share, Rank: int32(rank)}
}
