package fairshare

import "math"

var inf = math.Inf(1)

// fitTree answers bestOn for the copies of one group: a segment tree over
// the group's possible frameworks (index order) whose nodes hold the
// smallest key and the componentwise smallest demand below them (a capped
// framework counts as +Inf). A branch-and-bound walk skips every subtree
// whose smallest demand does not fit the copy, or whose smallest key
// already loses to the best found beyond the tie tolerance; a framework's
// criterion on a copy is its key (DRF, TSF and PS-DSF), so the walk
// returns exactly the scan's answer. (rPS-DSF, whose criterion follows
// the residual, has its own trees, fillres.go.)
type fitTree struct {
	f       *filler
	h       int   // key class
	members []int // leaf k is framework members[k]
	leaf    []int32
	size    int       // leaves, a power of two
	key     []float64 // per node
	minD    []float64 // per node, R values
}

func newFitTree(f *filler, h int, members []int) *fitTree {
	t := &fitTree{f: f, h: h, members: members, leaf: make([]int32, len(f.in.fws)), size: 1}
	for t.size < len(members) {
		t.size *= 2
	}
	for n := range t.leaf {
		t.leaf[n] = -1
	}
	t.key = make([]float64, 2*t.size)
	t.minD = make([]float64, 2*t.size*f.R)
	for k := range t.size {
		n := -1
		if k < len(members) {
			n = members[k]
			t.leaf[n] = int32(k)
		}
		t.setLeaf(k, n)
	}
	for v := t.size - 1; v >= 1; v-- {
		t.pull(v)
	}
	return t
}

// setLeaf writes framework n's key and demand at leaf k (+Inf when there
// is no framework or it is capped).
func (t *fitTree) setLeaf(k, n int) {
	f, v := t.f, t.size+k
	d := t.minD[v*f.R : (v+1)*f.R]
	if n < 0 || f.x[n] >= f.capN[n] {
		t.key[v] = inf
		for r := range d {
			d[r] = inf
		}
		return
	}
	t.key[v] = f.key(n, t.h)
	copy(d, f.dflat[n*f.R:(n+1)*f.R])
}

func (t *fitTree) pull(v int) {
	R := t.f.R
	t.key[v] = min(t.key[2*v], t.key[2*v+1])
	pullMin(t.minD, v, R)
}

// update refreshes framework n's leaf after it received tasks.
func (t *fitTree) update(n int) {
	k := t.leaf[n]
	if k < 0 {
		return
	}
	t.setLeaf(int(k), n)
	for v := (t.size + int(k)) / 2; v >= 1; v /= 2 {
		t.pull(v)
	}
}

// treeSearch is one walk's state.
type treeSearch struct {
	t        *fitTree
	i        int
	res, cap []float64
	best     int
	bc       float64
}

// best returns the smallest-criterion framework that fits on copy i, or -1.
func (t *fitTree) best(i int) (int, float64) {
	f := t.f
	s := treeSearch{t: t, i: i, res: f.res[i*f.R : (i+1)*f.R], cap: f.in.servers[f.srvOf[i]].cap, best: -1}
	s.visit(1)
	return s.best, s.bc
}

func (s *treeSearch) visit(v int) {
	t, f := s.t, s.t.f
	if t.key[v] == inf || (s.best >= 0 && s.loses(v)) {
		return
	}
	if !fits(t.minD[v*f.R:(v+1)*f.R], s.res, s.cap) {
		return
	}
	if v >= t.size {
		n := t.members[v-t.size]
		if !f.allows(n, int(f.srvOf[s.i])) {
			return
		}
		c := t.key[v]
		if s.best < 0 || f.better(c, n, s.i, s.bc, s.best, s.i) {
			s.best, s.bc = n, c
		}
		return
	}
	a, b := 2*v, 2*v+1
	if t.key[b] < t.key[a] {
		a, b = b, a
	}
	s.visit(a)
	s.visit(b)
}

// loses reports whether every framework below node v has a criterion on
// the copy beyond the tie tolerance above the best found.
func (s *treeSearch) loses(v int) bool {
	lb := s.t.key[v]
	return lb > s.bc && !tied(lb, s.bc)
}
