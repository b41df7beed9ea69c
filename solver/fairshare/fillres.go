package fairshare

import (
	"cmp"
	"math"
	"slices"
)

// rpsTree answers rPS-DSF's bestOn: a segment tree over frameworks whose
// nodes hold, per resource, the smallest demand d_{n,r} and the smallest
// weighted demand x_n·d_{n,r}/φ_n below them (+Inf for a capped
// framework). A framework's criterion on a copy with residual res is
// max_r x_n·d_{n,r}/φ_n/res_r, so a node's weighted demands bound every
// criterion below it from below, and its demands say whether anything
// below it can fit. Both hold per framework, whatever the copy, so one
// tree serves every group: the frameworks δ allows everywhere share one
// tree, and each group has its own for the frameworks restricted to some
// groups (f.rpsIn lists each framework's trees, the ones to update when
// it receives a task). The leaves are in kdOrder: neighbours have similar
// demand directions, so a node's componentwise minima are close to each
// of its frameworks' values and the bounds prune well.
type rpsTree struct {
	f       *filler
	members []int   // leaf k is framework members[k]
	leaf    []int32 // framework -> leaf, -1 when absent
	size    int     // leaves, a power of two
	minD    []float64
	wd      []float64
	// lo and hi are the smallest and largest framework index below each
	// node (static), for the framework tie-break.
	lo, hi []int32
}

// initRPSTrees builds the shared tree and the per-group trees.
func (f *filler) initRPSTrees() {
	G := len(f.in.groups)
	var shared []int
	restricted := make([][]int, G)
	for n := range f.in.fws {
		if f.capN[n] < 1 {
			continue
		}
		var gs []int
		for g, gr := range f.in.groups {
			if f.allows(n, gr.members[0]) {
				gs = append(gs, g)
			}
		}
		if len(gs) == G {
			shared = append(shared, n)
			continue
		}
		for _, g := range gs {
			restricted[g] = append(restricted[g], n)
		}
	}
	f.rpsIn = make([][]*rpsTree, len(f.in.fws))
	f.invBuf = make([]float64, f.R)
	f.rpsShared = f.newRPSTree(shared)
	f.rpsGroup = make([]*rpsTree, G)
	for g, m := range restricted {
		if len(m) > 0 {
			f.rpsGroup[g] = f.newRPSTree(m)
		}
	}
}

func (f *filler) newRPSTree(members []int) *rpsTree {
	R := f.R
	t := &rpsTree{f: f, members: f.kdOrder(members), leaf: make([]int32, len(f.in.fws)), size: 1}
	for t.size < len(members) {
		t.size *= 2
	}
	for n := range t.leaf {
		t.leaf[n] = -1
	}
	t.minD = make([]float64, 2*t.size*R)
	t.wd = make([]float64, 2*t.size*R)
	t.lo, t.hi = make([]int32, 2*t.size), make([]int32, 2*t.size)
	for k := range t.size {
		n := -1
		t.lo[t.size+k], t.hi[t.size+k] = math.MaxInt32, -1
		if k < len(t.members) {
			n = t.members[k]
			t.leaf[n] = int32(k)
			t.lo[t.size+k], t.hi[t.size+k] = int32(n), int32(n)
			f.rpsIn[n] = append(f.rpsIn[n], t)
		}
		t.setLeaf(k, n)
	}
	for v := t.size - 1; v >= 1; v-- {
		t.pull(v)
		t.lo[v], t.hi[v] = min(t.lo[2*v], t.lo[2*v+1]), max(t.hi[2*v], t.hi[2*v+1])
	}
	return t
}

// setLeaf writes framework n's demands and weighted demands at leaf k
// (+Inf when there is no framework or it is capped).
func (t *rpsTree) setLeaf(k, n int) {
	f, v := t.f, t.size+k
	d, w := t.minD[v*f.R:(v+1)*f.R], t.wd[v*f.R:(v+1)*f.R]
	if n < 0 || f.x[n] >= f.capN[n] {
		for r := range d {
			d[r], w[r] = inf, inf
		}
		return
	}
	copy(d, f.in.fws[n].d)
	for r := range w {
		w[r] = f.x[n] * d[r] / f.in.fws[n].phi
	}
}

func (t *rpsTree) pull(v int) {
	R := t.f.R
	pullMin(t.minD, v, R)
	pullMin(t.wd, v, R)
}

// pullMin sets node v's R values in a to the componentwise minimum of its
// children's.
func pullMin(a []float64, v, R int) {
	d, l, r := a[v*R:(v+1)*R], a[2*v*R:(2*v+1)*R], a[(2*v+1)*R:(2*v+2)*R]
	for k := range d {
		d[k] = min(l[k], r[k])
	}
}

// update refreshes framework n's leaf after it received tasks.
func (t *rpsTree) update(n int) {
	k := int(t.leaf[n])
	t.setLeaf(k, n)
	for v := (t.size + k) / 2; v >= 1; v /= 2 {
		t.pull(v)
	}
}

// kdOrder returns members ordered so that frameworks whose demands point
// in similar directions are neighbours: a k-d split of the demand
// directions (each demand relative to the cluster's total capacity,
// scaled to a largest component of 1), each time on the coordinate with
// the widest range, at the median. Only the bounds' tightness depends on
// the order, never the answer.
func (f *filler) kdOrder(members []int) []int {
	R := f.R
	total := make([]float64, R)
	for _, s := range f.in.servers {
		for r, c := range s.cap {
			total[r] += c * float64(s.count)
		}
	}
	u := make([]float64, len(f.in.fws)*R)
	for _, n := range members {
		v := u[n*R : (n+1)*R]
		m := 0.0
		for r, d := range f.in.fws[n].d {
			if total[r] > 0 {
				v[r] = d / total[r]
			}
			m = max(m, v[r])
		}
		for r := range v {
			if m > 0 {
				v[r] /= m
			}
		}
	}
	out := slices.Clone(members)
	kdSplit(out, u, R)
	return out
}

// kdSplit orders a (frameworks, coordinates u, R per framework) by
// recursive median splits on the widest coordinate.
func kdSplit(a []int, u []float64, R int) {
	if len(a) <= 2 {
		return
	}
	br, bw := 0, -1.0
	for r := range R {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, n := range a {
			lo, hi = min(lo, u[n*R+r]), max(hi, u[n*R+r])
		}
		if hi-lo > bw {
			br, bw = r, hi-lo
		}
	}
	slices.SortFunc(a, func(x, y int) int {
		if c := cmp.Compare(u[x*R+br], u[y*R+br]); c != 0 {
			return c
		}
		return x - y
	})
	mid := len(a) / 2
	kdSplit(a[:mid], u, R)
	kdSplit(a[mid:], u, R)
}

// rpsSearch is one bestOn walk over copy i's trees.
type rpsSearch struct {
	f        *filler
	i        int // the copy
	res, cap []float64
	inv      []float64 // 1/res_r, at most the largest float
	best     int
	bc       float64
	// cut: a node whose bound exceeds it loses to the best found beyond
	// the tie tolerance (+Inf until a best is found).
	cut float64
}

// bestRPS returns the smallest-criterion framework that fits on copy i,
// or -1, walking the shared tree and copy i's group tree, the one with
// the smaller root bound first. A seed framework (-1 for none), likely
// good on the copy, starts the walk as the best found when it fits, so
// that the walk prunes from its first node.
func (f *filler) bestRPS(i, seed int) (int, float64) {
	j := int(f.srvOf[i])
	s := rpsSearch{f: f, i: i, res: f.res[i*f.R : (i+1)*f.R], cap: f.in.servers[j].cap, inv: f.invBuf, best: -1, cut: inf}
	if seed >= 0 && f.fitsOn(seed, i) {
		s.best, s.bc = seed, f.crit(seed, i)
		s.cut = lossCut(s.bc)
	}
	for r, v := range s.res {
		// Capped so that 0·inv is 0 and an overflow errs low.
		s.inv[r] = min(1/v, math.MaxFloat64)
	}
	a, b := f.rpsShared, f.rpsGroup[f.groupOf[i]]
	la, lb := s.bound(a, 1), inf
	if b != nil {
		lb = s.bound(b, 1)
	}
	if lb < la {
		a, b, la, lb = b, a, lb, la
	}
	s.visit(a, 1, la)
	if b != nil {
		s.visit(b, 1, lb)
	}
	return s.best, s.bc
}

// bound is a lower bound on the criterion on the copy of every framework
// below node v: max_r of the node's weighted demand over the residual. It
// is computed in another order of operations than crit (a product with
// the reciprocal), so it is shrunk by 1e-14 (far more than its round-off,
// far less than the tie tolerance).
func (s *rpsSearch) bound(t *rpsTree, v int) float64 {
	R := s.f.R
	m := 0.0
	for r, w := range t.wd[v*R : (v+1)*R] {
		m = max(m, w*s.inv[r])
	}
	return m * (1 - boundShrink)
}

// visit walks node v (whose bound is lb): it skips the node when nothing
// below it fits or every framework below loses to the best found, by a
// criterion beyond the tie tolerance or, with a criterion at least the
// best's, by the tie-break (frameworks yet without a task all tie at 0),
// and visits the child with the smaller bound first.
func (s *rpsSearch) visit(t *rpsTree, v int, lb float64) {
	f := s.f
	if lb > s.cut || (s.best >= 0 && lb >= s.bc && s.losesTie(t, v)) {
		return
	}
	if !fits(t.minD[v*f.R:(v+1)*f.R], s.res, s.cap) {
		return
	}
	if v >= t.size {
		// δ allows n on the copy: the shared tree's frameworks are allowed
		// everywhere, a group tree's on the group.
		n := t.members[v-t.size]
		c := f.crit(n, s.i)
		if s.best < 0 || f.better(c, n, s.i, s.bc, s.best, s.i) {
			s.best, s.bc = n, c
			s.cut = lossCut(c)
		}
		return
	}
	a, b := 2*v, 2*v+1
	la, lb2 := s.bound(t, a), s.bound(t, b)
	if lb2 < la {
		a, b, la, lb2 = b, a, lb2, la
	}
	s.visit(t, a, la)
	s.visit(t, b, lb2)
}

// losesTie reports whether every framework below node v loses a tie to
// the best found.
func (s *rpsSearch) losesTie(t *rpsTree, v int) bool {
	if s.f.o.tie == TieLowest {
		return int(t.lo[v]) > s.best
	}
	return int(t.hi[v]) < s.best
}

// lossCut is a value above which every criterion exceeds c beyond the tie
// tolerance: lb > c/(1−tieRel) means lb−c > tieRel·lb; the extra 1e-15
// covers the round-off of the division.
func lossCut(c float64) float64 {
	return c / (1 - tieRel) * (1 + divRoundOff)
}
