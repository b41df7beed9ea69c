package tetris

import (
	"context"
	"math"
	"sort"

	"github.com/xflex/xflex/vecpack"
)

// Failure kinds of refRound.eval.
const (
	fitOK = iota
	failLocal
	failRemote
)

// refRoundRun is the straightforward round (the engine before per-fill
// caching of representatives and local demands), kept as the reference the
// optimised Round must match placement for placement.
//
// Original doc: Round runs one scheduling round over machines in the given visit order and
// returns the placements in the order they were made. It mutates machine
// Free, job Alloc, group Count and member placed flags.
func refRoundRun(ctx context.Context, machines []Machine, order []int, groups []*Group, jobs []Job, cfg Config) ([]Placement, error) {
	r := newRefRound(machines, groups, jobs, cfg)
	var out []Placement
	for i, m := range order {
		if i%16 == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = r.fill(m, out)
	}
	return out, nil
}

type refRound struct {
	ms    []Machine
	gs    []*Group
	js    []Job
	cfg   Config
	d     int
	mask  []bool
	local [][][2]int // machine -> (group, member) with an input there
	pend  []int      // pending members per job
	npend int        // jobs with pending members
	best  []cand     // per job
	bestP []cand     // per job, promoted only
	nf    []float64  // normalised masked free of the machine
	dem   []float64  // scratch: local demand
	nd    []float64  // scratch: normalised masked demand
	need  []Input    // scratch: remote needs
	jl    []int
	sh    []float64 // scratch: dominant share per job
	// scratch for fill: groups and local members still able to fit the
	// machine, and jobs offered a candidate in the current pick.
	alive   []int
	loc     [][2]int
	touched []int
	// order lists the jobs with pending tasks by dominant share (ties by
	// index); sh caches each job's share. Only a placed job's share
	// changes, so the order is kept by moving that one job.
	order []int
	// Per-group cache of the normalised demand on the machine being filled
	// (valid when ndStamp equals fills; nil ndc: the machine lacks a
	// resource the group needs).
	fills    int
	ndStamp  []int
	ndc      [][]float64
	ndBuf    [][]float64
	ndRemote []bool
	sorted   [][]int // per resource: groups by demand (see byDemand)
}

func newRefRound(ms []Machine, gs []*Group, js []Job, cfg Config) *refRound {
	d := dims(ms)
	mask := cfg.mask(d)
	r := &refRound{ms: ms, gs: gs, js: js, cfg: cfg, d: d, mask: mask,
		local: make([][][2]int, len(ms)), pend: make([]int, len(js)),
		best: make([]cand, len(js)), sh: make([]float64, len(js)), bestP: make([]cand, len(js)),
		nf: make([]float64, d), dem: make([]float64, d), nd: make([]float64, d),
		ndStamp: make([]int, len(gs)), ndc: make([][]float64, len(gs)), ndBuf: make([][]float64, len(gs)),
		ndRemote: make([]bool, len(gs))}
	for gi, g := range gs {
		r.pend[g.Job] += g.Count
		g.round++
		if g.ByMachine != nil {
			g.skip = nil
			continue
		}
		if g.Members != nil {
			// Skip pointers over placed and dead members for this round.
			g.skip = make([]int32, len(g.Members)+1)
			for mi := range g.skip {
				g.skip[mi] = int32(mi)
				if mi < len(g.Members) && g.Members[mi].placed {
					g.skip[mi] = int32(mi + 1)
				}
			}
		}
		for mi := range g.Members {
			mem := &g.Members[mi]
			if mem.placed {
				continue
			}
			for k, in := range mem.Inputs {
				if !hasInput(mem.Inputs[:k], in.Machine) {
					r.local[in.Machine] = append(r.local[in.Machine], [2]int{gi, mi})
				}
			}
		}
	}
	for j, p := range r.pend {
		if p > 0 {
			r.npend++
			r.sh[j] = r.share(j)
			r.order = append(r.order, j)
		}
	}
	sort.Slice(r.order, func(a, b int) bool { return r.shareLess(r.order[a], r.order[b]) })
	return r
}

// prepMachine caches m's normalised free vector over the checked resources.
func (r *refRound) prepMachine(m int) {
	mc := r.ms[m]
	for k := 0; k < r.d; k++ {
		r.nf[k] = 0
		if r.mask[k] && mc.Cap[k] > 0 {
			r.nf[k] = mc.Free[k] / mc.Cap[k]
		}
	}
}

// eval scores member mi of group gi (mi = -1: anonymous) on machine m.
// local says the member holds input on m (it came from the local index);
// otherwise its normalised demand on m is the group's, cached for the fill
// of m (free capacity changes between picks, demand does not).
func (r *refRound) eval(gi, mi, m int, local bool) (cand, int) {
	g := r.gs[gi]
	var inputs []Input
	if mi >= 0 {
		inputs = g.Members[mi].Inputs
	}
	remote := false
	nd := r.nd
	if !local && r.ndStamp[gi] == r.fills {
		nd, remote = r.ndc[gi], r.ndRemote[gi]
		if nd == nil {
			return cand{}, failLocal
		}
	} else {
		remote = LocalDemand(g, inputs, m, r.cfg.Roles, r.dem)
		mc := r.ms[m]
		absent := false
		for k := 0; k < r.d; k++ {
			nd[k] = 0
			x := r.dem[k]
			if x > 0 && mc.Cap[k] <= 0 {
				// A machine without the resource at all never takes the
				// task (not even when the resource is unchecked).
				absent = true
				break
			}
			if r.mask[k] && mc.Cap[k] > 0 {
				nd[k] = x / mc.Cap[k]
			}
		}
		if !local {
			r.ndStamp[gi], r.ndRemote[gi] = r.fills, remote
			r.ndc[gi] = nil
			if !absent {
				if cap(r.ndBuf[gi]) < r.d {
					r.ndBuf[gi] = make([]float64, r.d)
				}
				r.ndc[gi] = append(r.ndBuf[gi][:0], nd...)
			}
		}
		if absent {
			return cand{}, failLocal
		}
	}
	// Alignment is -Inf unless the demand fits (vecpack.Fits on the
	// capacity-normalised vectors, the same test as in raw units scaled by
	// 1/capacity); unchecked resources are 0 in both vectors.
	a := vecpack.Alignment(nd, r.nf)
	if math.IsInf(a, -1) {
		return cand{}, failLocal
	}
	if remote && !r.remoteFits(inputs, m) {
		return cand{}, failRemote
	}
	s := a
	if remote {
		s *= 1 - r.cfg.RemotePenalty
	}
	s -= r.cfg.Epsilon * r.js[g.Job].Work
	return cand{g: gi, mi: mi, align: a, score: s, remote: remote, promoted: g.Promoted, ok: true}, fitOK
}

// remoteFits checks disk read and network out at every remote input machine.
func (r *refRound) remoteFits(inputs []Input, m int) bool {
	r.need = RemoteNeeds(inputs, m, r.need)
	ro := r.cfg.Roles
	for _, n := range r.need {
		f := r.ms[n.Machine].Free
		c := r.ms[n.Machine].Cap
		for _, k := range [2]int{ro.DiskRead, ro.NetOut} {
			if k >= 0 && r.mask[k] && n.Rate > fitLimit(f[k], c[k]) {
				return false
			}
		}
	}
	return true
}

// share is job j's weighted dominant share over the masked resources.
func (r *refRound) share(j int) float64 {
	s := 0.0
	for k, a := range r.js[j].Alloc {
		if r.mask[k] && r.cfg.Total[k] > 0 {
			s = math.Max(s, a/r.cfg.Total[k])
		}
	}
	w := r.js[j].Weight
	if w <= 0 {
		w = 1
	}
	return s / w
}

func (r *refRound) offer(c cand) {
	j := r.gs[c.g].Job
	if !r.best[j].ok && !r.bestP[j].ok {
		r.touched = append(r.touched, j)
	}
	if c.better(r.best[j]) {
		r.best[j] = c
	}
	if c.promoted && c.better(r.bestP[j]) {
		r.bestP[j] = c
	}
}

// fill places tasks on machine m until none fits. Free capacity only
// shrinks while m is filled, so a group (or an indexed local member) that
// does not fit m once is dropped for the rest of m's fill.
func (r *refRound) fill(m int, out []Placement) []Placement {
	r.fills++
	alive := r.alive[:0]
	// Pre-filter: a group fits m only if its base demand (placement only
	// adds input bandwidth to it) fits m's free amount of the scarcest
	// checked resource; byDemand lists groups by that demand, so the
	// candidates are a prefix found by binary search.
	free := r.ms[m].Free
	scarce, frac := -1, math.Inf(1)
	for k := 0; k < r.d; k++ {
		if r.mask[k] && r.ms[m].Cap[k] > 0 {
			if f := free[k] / r.ms[m].Cap[k]; f < frac {
				scarce, frac = k, f
			}
		}
	}
	lim := math.Inf(1)
	if scarce >= 0 {
		byD := r.byDemand(scarce)
		lim = fitLimit(free[scarce], r.ms[m].Cap[scarce])
		n := sort.Search(len(byD), func(i int) bool { return r.gs[byD[i]].Demand[scarce] > lim })
		for _, gi := range byD[:n] {
			if r.gs[gi].Count > 0 {
				alive = append(alive, gi)
			}
		}
	} else {
		for gi, g := range r.gs {
			if g.Count > 0 {
				alive = append(alive, gi)
			}
		}
	}
	loc := r.loc[:0]
	for _, gm := range r.local[m] {
		g := r.gs[gm[0]]
		if !g.Members[gm[1]].placed && (scarce < 0 || g.Demand[scarce] <= lim) {
			loc = append(loc, gm)
		}
	}
	for _, gi := range alive {
		if g := r.gs[gi]; g.ByMachine != nil {
			for _, mi := range g.ByMachine[m] {
				if !g.Members[mi].placed {
					loc = append(loc, [2]int{gi, int(mi)})
				}
			}
		}
	}
	defer func() { r.alive, r.loc = alive[:0], loc[:0] }()
	for {
		r.prepMachine(m)
		for _, j := range r.touched {
			r.best[j], r.bestP[j] = cand{}, cand{}
		}
		r.touched = r.touched[:0]
		keep := loc[:0]
		for _, gm := range loc {
			if r.gs[gm[0]].Members[gm[1]].placed {
				continue
			}
			c, fail := r.eval(gm[0], gm[1], m, true)
			if fail == failLocal {
				continue
			}
			keep = append(keep, gm)
			if fail == fitOK {
				r.offer(c)
			}
		}
		loc = keep
		keepG := alive[:0]
		for _, gi := range alive {
			g := r.gs[gi]
			if g.Count == 0 {
				continue
			}
			if g.Members == nil {
				c, fail := r.eval(gi, -1, m, false)
				if fail == failLocal {
					continue
				}
				keepG = append(keepG, gi)
				r.offer(c)
				continue
			}
			// The first pending member with no input on m whose remote
			// reads fit stands for the whole group: all such members have
			// the same demand on m (members on m come from the local
			// index above).
			drop := false
			for mi := g.nextLive(g.cursor); mi < len(g.Members); mi = g.nextLive(mi + 1) {
				mem := &g.Members[mi]
				if mem.placed {
					if mi == g.cursor {
						g.cursor++
					}
					continue
				}
				if mem.deadAt == g.round {
					continue
				}
				if hasInput(mem.Inputs, m) {
					continue
				}
				c, fail := r.eval(gi, mi, m, false)
				if fail == failRemote {
					mem.deadAt = g.round
					g.removeLive(mi)
					continue
				}
				if fail == failLocal {
					drop = true
				} else {
					r.offer(c)
				}
				break
			}
			if !drop {
				keepG = append(keepG, gi)
			}
		}
		alive = keepG
		if len(r.touched) == 0 {
			return out
		}
		k := int(math.Ceil((1-r.cfg.Fairness)*float64(r.npend) - ceilTol))
		if k < 1 {
			k = 1
		}
		// Eligible: the first k jobs, in share order, that hold a candidate.
		r.jl = r.jl[:0]
		if k >= len(r.touched) {
			r.jl = append(r.jl, r.touched...)
		} else {
			for _, j := range r.order {
				if r.best[j].ok {
					r.jl = append(r.jl, j)
					if len(r.jl) == k {
						break
					}
				}
			}
		}
		var pick cand
		for _, j := range r.jl {
			if r.bestP[j].better(pick) {
				pick = r.bestP[j]
			}
		}
		if !pick.ok {
			for _, j := range r.jl {
				if r.best[j].better(pick) {
					pick = r.best[j]
				}
			}
		}
		pj := r.gs[pick.g].Job
		rank := 0
		for _, j := range r.touched {
			if r.shareLess(j, pj) {
				rank++
			}
		}
		out = append(out, r.apply(pick, m, r.sh[pj], rank))
		r.reorder(pj)
	}
}

// byDemand returns the group indices sorted by demand of resource k (ties
// by index), built once per round per resource.
func (r *refRound) byDemand(k int) []int {
	if r.sorted == nil {
		r.sorted = make([][]int, r.d)
	}
	if r.sorted[k] == nil {
		idx := make([]int, len(r.gs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return r.gs[idx[a]].Demand[k] < r.gs[idx[b]].Demand[k] })
		r.sorted[k] = idx
	}
	return r.sorted[k]
}

// shareLess orders jobs by dominant share, ties by index.
func (r *refRound) shareLess(a, b int) bool {
	sa, sb := r.sh[a], r.sh[b]
	if math.Abs(sa-sb) > ShareTieTol {
		return sa < sb
	}
	return a < b
}

// reorder refreshes job j's share after a placement (only the placed job's
// share changes) and moves it to its place in r.order, dropping it when it
// has nothing pending.
func (r *refRound) reorder(j int) {
	pos := -1
	for i, x := range r.order {
		if x == j {
			pos = i
			break
		}
	}
	if pos < 0 {
		return
	}
	if r.pend[j] == 0 {
		r.order = append(r.order[:pos], r.order[pos+1:]...)
		return
	}
	r.sh[j] = r.share(j)
	for pos+1 < len(r.order) && r.shareLess(r.order[pos+1], j) {
		r.order[pos] = r.order[pos+1]
		pos++
	}
	r.order[pos] = j
}

// apply commits candidate c on machine m.
func (r *refRound) apply(c cand, m int, share float64, rank int) Placement {
	g := r.gs[c.g]
	var inputs []Input
	if c.mi >= 0 {
		g.Members[c.mi].placed = true
		g.removeLive(c.mi)
		inputs = g.Members[c.mi].Inputs
	}
	dem := make([]float64, r.d)
	LocalDemand(g, inputs, m, r.cfg.Roles, dem)
	job := &r.js[g.Job]
	for k, x := range dem {
		r.ms[m].Free[k] -= x
		job.Alloc[k] += x
	}
	var ru []Input
	if c.remote {
		ru = append(ru, RemoteNeeds(inputs, m, nil)...)
		ro := r.cfg.Roles
		for _, n := range ru {
			f := r.ms[n.Machine].Free
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
	r.pend[g.Job]--
	if r.pend[g.Job] == 0 {
		r.npend--
	}
	return Placement{Group: int32(c.g), Member: int32(c.mi), Machine: int32(m), Alignment: c.align, Score: c.score,
		Remote: c.remote, Promoted: c.promoted, Share: share, Rank: int32(rank)}
}

// better orders the reference's candidates: valid first, then by score,
// group and member (the tie-break the engine's heaps implement).
func (c cand) better(o cand) bool {
	if !o.ok {
		return c.ok
	}
	if !c.ok {
		return false
	}
	if c.score != o.score {
		return c.score > o.score
	}
	if c.g != o.g {
		return c.g < o.g
	}
	return c.mi < o.mi
}
