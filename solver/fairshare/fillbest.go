package fairshare

import (
	"context"
	"math"
)

// Best-fit DRF takes, at every step, the frameworks in DRF order and gives
// one task to the first whose best-fit copy (the candidate with the
// lexicographically smallest (bfScore, index): every touched copy and the
// lowest untouched copy of each group) has room for it. Scanning every
// candidate for every framework at every step did not finish in 60 s at
// 1,000 frameworks on 10,000 copies; this filler makes the same choices
// from three structures:
//
//   - each framework keeps its bfKeep best candidates (bfList), updated in
//     O(R) per framework when a copy receives a task, and rescans the
//     candidates only when the list runs empty;
//   - a framework whose best-fit copy was too small sleeps, skipped without
//     a fit check, until an update changes its list's first key (awake);
//   - the DRF order changes by the one framework that received a task, so
//     the insertion sort restarts where that framework stood (resift).

// bfKeep is how many best-fit candidates a framework keeps between
// rescans: shorter lists run empty and rescan more often, longer ones cost
// more to search and shift. CPU per run at full size (1,000 frameworks,
// 10,000 copies; under load 5): 4 keys 0.93 s, 8 0.78 s, 16 0.70 s,
// 32 0.69 s.
const bfKeep = 16

// bfKey orders best-fit candidates: smaller score first, then lower copy
// index, the tie rule of the scan over every candidate.
type bfKey struct {
	score float64
	copy  int
}

func (a bfKey) less(b bfKey) bool {
	return a.score < b.score || (a.score == b.score && a.copy < b.copy)
}

// bfList is one framework's best-fit candidates: exactly the allowed
// candidates whose key is at most bound (all: every allowed candidate),
// in ascending order, so keys[0] is the best-fit copy. An empty list that
// is not all holds no answer: the framework rescans.
type bfList struct {
	keys  []bfKey
	bound bfKey
	all   bool
	fresh bool
}

// holds reports whether key k is within the list's bound, i.e. whether a
// candidate with that key belongs in the list.
func (l *bfList) holds(k bfKey) bool { return l.all || !l.bound.less(k) }

// insert adds k in order; past keep keys the last one leaves and the
// bound moves down to the new last key.
func (l *bfList) insert(k bfKey, keep int) {
	at := len(l.keys)
	for at > 0 && k.less(l.keys[at-1]) {
		at--
	}
	l.keys = append(l.keys, bfKey{})
	copy(l.keys[at+1:], l.keys[at:])
	l.keys[at] = k
	if len(l.keys) > keep {
		l.keys = l.keys[:keep]
		l.bound, l.all = l.keys[keep-1], false
	}
}

// first is the best-fit copy, -1 when the list is empty.
func (l *bfList) first() int {
	if len(l.keys) == 0 {
		return -1
	}
	return l.keys[0].copy
}

// remove drops the key of copy i.
func (l *bfList) remove(i int) {
	for at, k := range l.keys {
		if k.copy == i {
			l.keys = append(l.keys[:at], l.keys[at+1:]...)
			return
		}
	}
}

// bestFill is best-fit DRF's state besides the filler's. bfScore's
// normalised demand d_r/d_ref is precomputed per framework (dn, N×R), and a
// changed copy's normalised residual res_r/res_ref once per reference
// resource in use (refs) into a bfShape, so updating a framework costs R
// subtractions; the values are the very quotients bfScore computes.
type bestFill struct {
	f     *filler
	keep  int
	refs  []int // distinct reference resources
	refOf []int // framework -> index into refs
	dn    []float64
	lists []bfList
	// awake[n] is false while n cannot receive a task: capped, allowed
	// nowhere, or its task did not fit on its best-fit copy and its
	// best-fit choice is still that copy (which may have received tasks
	// since: a residual only shrinks, so the task still does not fit).
	// Most frameworks sleep most of the time: at full size the DRF order
	// was walked 936 frameworks deep per task on average.
	awake    []bool
	old, cur bfShape
	// on[g] lists the frameworks allowed on group g and ok[n·G+g] says
	// whether n is: δ is per server, and reading it at a 10,000-server
	// stride per framework was most of an update's time.
	on [][]int32
	ok []bool
}

// bfShape is one residual vector normalised by each reference resource:
// v[k·R+r] = res_r/res_refs[k], and inf[k] when res_refs[k] ≤ 0, where
// bfScore is +Inf.
type bfShape struct {
	v   []float64
	inf []bool
}

// newBestFill prepares best-fit DRF on f with lists of keep candidates
// (bfKeep; the tests also use shorter lists, to rescan more often).
func newBestFill(f *filler, keep int) *bestFill {
	N, R := len(f.in.fws), f.R
	b := &bestFill{f: f, keep: keep, refOf: make([]int, N), dn: make([]float64, N*R),
		lists: make([]bfList, N), awake: make([]bool, N)}
	slot := map[int]int{}
	for n := range f.in.fws {
		d := f.in.fws[n].d
		ref := 0
		for d[ref] <= 0 {
			ref++
		}
		if _, ok := slot[ref]; !ok {
			slot[ref] = len(b.refs)
			b.refs = append(b.refs, ref)
		}
		b.refOf[n] = slot[ref]
		for r := range d {
			b.dn[n*R+r] = d[r] / d[ref]
		}
		b.lists[n].keys = make([]bfKey, 0, keep+1)
		b.awake[n] = f.capN[n] > 0
	}
	G := len(f.in.groups)
	b.on, b.ok = make([][]int32, G), make([]bool, N*G)
	for g, grp := range f.in.groups {
		for n := range f.in.fws {
			if f.allows(n, grp.members[0]) {
				b.on[g] = append(b.on[g], int32(n))
				b.ok[n*G+g] = true
			}
		}
	}
	for _, sh := range []*bfShape{&b.old, &b.cur} {
		sh.v = make([]float64, len(b.refs)*R)
		sh.inf = make([]bool, len(b.refs))
	}
	return b
}

// shape normalises copy i's current residual into sh.
func (b *bestFill) shape(sh *bfShape, i int) {
	R := b.f.R
	res := b.f.res[i*R : (i+1)*R]
	for k, ref := range b.refs {
		sh.inf[k] = res[ref] <= 0
		for r := range res {
			sh.v[k*R+r] = res[r] / res[ref]
		}
	}
}

// score is bfScore(n, ·) of the residual normalised in sh. A NaN (an
// infinite quotient on both sides) scores +Inf, the worst fit, so that the
// candidate order stays total.
func (b *bestFill) score(n int, sh *bfShape) float64 {
	R, k := b.f.R, b.refOf[n]
	if sh.inf[k] {
		return math.Inf(1)
	}
	dn, v := b.dn[n*R:(n+1)*R], sh.v[k*R:(k+1)*R]
	s := 0.0
	for r := range dn {
		s += math.Abs(dn[r] - v[r])
	}
	if s != s {
		return math.Inf(1)
	}
	return s
}

// rescan rebuilds n's list from every candidate: the touched copies and
// the lowest untouched copy of each group.
func (b *bestFill) rescan(n int) {
	l := &b.lists[n]
	l.keys, l.all, l.fresh = l.keys[:0], true, true
	for _, i := range b.f.touched {
		b.offer(n, i, l)
	}
	for g, u := range b.f.untouched {
		if h := b.f.head[g]; h < len(u) {
			b.offer(n, u[h], l)
		}
	}
}

// offer enters copy i into n's list during a rescan when n may use it
// and, once the list is full, when it beats the last key.
func (b *bestFill) offer(n, i int, l *bfList) {
	if !b.ok[n*len(b.on)+b.f.groupOf[i]] {
		return
	}
	k := bfKey{b.scoreAt(n, i), i}
	if len(l.keys) == b.keep && !k.less(l.keys[b.keep-1]) {
		l.bound, l.all = l.keys[b.keep-1], false
		return
	}
	l.insert(k, b.keep)
}

// scoreAt is score(n, ·) of copy i's residual, normalising only by n's
// reference resource: the same quotients, so the same value.
func (b *bestFill) scoreAt(n, i int) float64 {
	R := b.f.R
	res, ref := b.f.res[i*R:(i+1)*R], b.refs[b.refOf[n]]
	if res[ref] <= 0 {
		return math.Inf(1)
	}
	dn := b.dn[n*R : (n+1)*R]
	s := 0.0
	for r := range dn {
		s += math.Abs(dn[r] - res[r]/res[ref])
	}
	if s != s {
		return math.Inf(1)
	}
	return s
}

// place gives n one task on copy i and updates every fresh list: copy i's
// key changes from its old score to its new one, and when i was its
// group's lowest untouched copy the next one (with i's old residual)
// becomes a candidate.
func (b *bestFill) place(n, i int) {
	f := b.f
	g := f.groupOf[i]
	u, h := f.untouched[g], f.head[g]
	wasHead := h < len(u) && u[h] == i
	b.shape(&b.old, i)
	f.place(n, i)
	b.shape(&b.cur, i)
	next := -1
	if wasHead && h+1 < len(u) {
		next = u[h+1]
	}
	for _, m32 := range b.on[g] {
		m := int(m32)
		l := &b.lists[m]
		if !l.fresh || f.x[m] >= f.capN[m] {
			continue
		}
		first := l.first()
		sOld := b.score(m, &b.old)
		if l.holds(bfKey{sOld, i}) {
			l.remove(i)
		}
		if k := (bfKey{b.score(m, &b.cur), i}); l.holds(k) {
			l.insert(k, b.keep)
		}
		if k := (bfKey{sOld, next}); next >= 0 && l.holds(k) {
			l.insert(k, b.keep)
		}
		l.fresh = len(l.keys) > 0 || l.all
		if !l.fresh || l.first() != first {
			b.awake[m] = true
		}
	}
}

// bestOf is n's best-fit copy, -1 when n may use none.
func (b *bestFill) bestOf(n int) int {
	l := &b.lists[n]
	if !l.fresh {
		b.rescan(n)
	}
	return l.first()
}

// runBestFit is best-fit DRF's progressive filling (see the top of this
// file).
func (f *filler) runBestFit(ctx context.Context) error {
	return newBestFill(f, bfKeep).run(ctx)
}

// run fills until no framework's task fits on its best-fit copy.
func (b *bestFill) run(ctx context.Context) error {
	f := b.f
	order := make([]int, len(f.in.fws))
	for n := range order {
		order[n] = n
	}
	less := func(a, c int) bool { return f.better(f.crit(a, 0), a, 0, f.crit(c, 0), c, 0) }
	sortBy(order, less)
	for steps := 1; ; steps++ {
		if steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		at := b.step(order)
		if at < 0 {
			return nil
		}
		// DRF order with the tie-break: only order[at] moved.
		resift(order, at, less)
	}
}

// step places one task for the first framework in order whose best-fit
// copy has room and returns its position in order, or -1 when none has.
func (b *bestFill) step(order []int) int {
	f := b.f
	for at, n := range order {
		if !b.awake[n] {
			continue
		}
		if i := b.bestOf(n); i >= 0 && f.fitsOn(n, i) {
			b.place(n, i)
			b.awake[n] = f.x[n] < f.capN[n]
			return at
		}
		b.awake[n] = false
	}
	return -1
}

// resift is sortBy's pass over an order that sortBy left sorted and in
// which only a[at]'s key changed since: every adjacent pair that does not
// involve a[at] is one the previous pass found in order, so elements
// before at do not move, and past at the pass stops at the first element
// that does not move (every later pair is an old one). The result is the
// full pass's, element for element, even where tieRel makes ties
// intransitive; the pass costs the distance a[at] travels, not N.
func resift(a []int, at int, less func(x, y int) bool) {
	for i := max(at, 1); i < len(a); i++ {
		k := i
		for ; k > 0 && less(a[k], a[k-1]); k-- {
			a[k], a[k-1] = a[k-1], a[k]
		}
		if k == i && i > at {
			return
		}
	}
}
