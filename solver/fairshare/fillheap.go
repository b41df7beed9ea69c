package fairshare

import (
	"context"
	"math"
)

// fwHeap is an indexed binary min-heap of frameworks under the filler's
// order (criterion, then the tie-break) on one key class: the whole
// cluster for DRF and TSF, whose criteria do not depend on the server, or
// one server group for PS-DSF.
// A framework leaves the heap for good once it can fit nowhere in the
// class (residuals and eligibility only shrink).
type fwHeap struct {
	f   *filler
	h   int     // key class
	a   []int32 // heap array of frameworks
	pos []int32 // framework -> index in a, -1 when absent
}

func newFwHeap(f *filler, h int, members []int) *fwHeap {
	q := &fwHeap{f: f, h: h, pos: make([]int32, len(f.in.fws))}
	for n := range q.pos {
		q.pos[n] = -1
	}
	for _, n := range members {
		q.pos[n] = int32(len(q.a))
		q.a = append(q.a, int32(n))
	}
	for k := len(q.a)/2 - 1; k >= 0; k-- {
		q.down(k)
	}
	return q
}

// lessFw orders frameworks n1, n2 by their key in class h and the tie-break.
func (f *filler) lessFw(h, n1, n2 int) bool {
	return f.better(f.key(n1, h), n1, 0, f.key(n2, h), n2, 0)
}

func (q *fwHeap) less(i, j int) bool { return q.f.lessFw(q.h, int(q.a[i]), int(q.a[j])) }

func (q *fwHeap) swap(i, j int) {
	q.a[i], q.a[j] = q.a[j], q.a[i]
	q.pos[q.a[i]] = int32(i)
	q.pos[q.a[j]] = int32(j)
}

func (q *fwHeap) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if !q.less(k, p) {
			return
		}
		q.swap(k, p)
		k = p
	}
}

func (q *fwHeap) down(k int) {
	for {
		c := 2*k + 1
		if c >= len(q.a) {
			return
		}
		if c+1 < len(q.a) && q.less(c+1, c) {
			c++
		}
		if !q.less(c, k) {
			return
		}
		q.swap(k, c)
		k = c
	}
}

// grew restores the heap after n's key grew (n placed a task).
func (q *fwHeap) grew(n int) {
	if k := q.pos[n]; k >= 0 {
		q.down(int(k))
	}
}

// remove takes n out of the heap if present.
func (q *fwHeap) remove(n int) {
	k := int(q.pos[n])
	if k < 0 {
		return
	}
	last := len(q.a) - 1
	q.swap(k, last)
	q.a = q.a[:last]
	q.pos[n] = -1
	if k < last {
		q.down(k)
		q.up(k)
	}
}

// key is framework n's heap key in class h: the criterion for DRF, TSF and
// PS-DSF (computed exactly as crit does, so comparisons agree bit for bit).
func (f *filler) key(n, h int) float64 {
	switch f.o.policy {
	case PolicyDRF:
		return f.x[n] * f.drfW[n]
	case PolicyTSF:
		return f.x[n] * f.tsfW[n]
	default:
		return f.x[n] * f.psW[h][n] / f.in.fws[n].phi
	}
}

// psWeights sets psW[g][n] = max_r d_{n,r}/c_{g,r}, the PS-DSF weight of n
// on group g (+Inf when a resource n needs is absent there).
func (f *filler) psWeights() {
	f.psW = make([][]float64, len(f.in.groups))
	for g, gr := range f.in.groups {
		w := make([]float64, len(f.in.fws))
		for n := range f.in.fws {
			m := 0.0
			for r, d := range f.in.fws[n].d {
				if d > 0 {
					m = math.Max(m, d/gr.cap[r])
				}
			}
			w[n] = m
		}
		f.psW[g] = w
	}
}

// initHeaps builds the key classes and, over each class's possible
// frameworks, the fit trees bestOn uses (rrr) or the heaps of
// runJointHeap (joint), for DRF, TSF and PS-DSF (rPS-DSF has its own
// trees, initRPSTrees). DRF and TSF have one class (one structure to
// update per task; the trees check δ at their leaves), PS-DSF one per
// group.
func (f *filler) initHeaps() {
	S := len(f.srvOf)
	f.classOf = make([]int, S)
	perGroup := f.o.policy == PolicyPSDSF
	if perGroup {
		f.psWeights()
		f.classCopies = make([][]int, len(f.in.groups))
		for i := range S {
			g := f.groupOf[i]
			f.classOf[i] = g
			f.classCopies[g] = append(f.classCopies[g], i)
		}
	} else {
		all := make([]int, S)
		for i := range all {
			all[i] = i
		}
		f.classCopies = [][]int{all}
	}
	f.dflat = make([]float64, 0, len(f.in.fws)*f.R)
	for n := range f.in.fws {
		f.dflat = append(f.dflat, f.in.fws[n].d...)
	}
	trees := f.o.selection == SelectRRR
	for h := range f.classCopies {
		m := f.classMembers(h, perGroup)
		if trees {
			f.trees = append(f.trees, newFitTree(f, h, m))
		} else {
			f.heaps = append(f.heaps, newFwHeap(f, h, m))
		}
	}
}

// classMembers lists, in index order, the frameworks that may ever fit in
// class h: not capped at zero tasks, with a finite weight (TSF's is +Inf,
// and PS-DSF's, when no whole task fits), and, for a group's class,
// allowed on its servers.
func (f *filler) classMembers(h int, perGroup bool) []int {
	var out []int
	for n := range f.in.fws {
		if perGroup && !f.allows(n, f.in.groups[h].members[0]) {
			continue
		}
		if f.capN[n] >= 1 && !math.IsInf(f.weight(n, h), 0) {
			out = append(out, n)
		}
	}
	return out
}

// weight is the factor of x_n in n's key in class h.
func (f *filler) weight(n, h int) float64 {
	switch f.o.policy {
	case PolicyDRF:
		return f.drfW[n]
	case PolicyTSF:
		return f.tsfW[n]
	default:
		return f.psW[h][n]
	}
}

// bestInClass is bestOn(i) from the fit tree of copy i's group.
func (f *filler) bestInClass(i int) (int, float64) {
	return f.trees[f.classOf[i]].best(i)
}

// runJointHeap is joint selection for the criteria fixed per class (DRF,
// TSF, PS-DSF): the best pair is the best of the classes' tops, each the
// first framework in key order that fits on some copy of its class, on
// the lowest such copy. ptr[h][n] is the lowest copy of class h where n
// may still fit; it only moves up, since residuals only shrink.
func (f *filler) runJointHeap(ctx context.Context) error {
	ptr := make([][]int32, len(f.heaps))
	for h := range ptr {
		ptr[h] = make([]int32, len(f.in.fws))
	}
	for steps := 1; ; steps++ {
		if steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		bn, bi, bc := -1, -1, 0.0
		for h := range f.heaps {
			n, i := f.classTop(h, ptr[h])
			if n < 0 {
				continue
			}
			if c := f.key(n, h); bn < 0 || f.better(c, n, i, bc, bn, bi) {
				bn, bi, bc = n, i, c
			}
		}
		if bn < 0 {
			return nil
		}
		f.place(bn, bi)
	}
}

// classTop returns class h's first framework in key order that fits on
// some copy of the class and the lowest such copy, dropping the
// frameworks that fit on none, or -1, -1.
func (f *filler) classTop(h int, ptr []int32) (int, int) {
	q, cs := f.heaps[h], f.classCopies[h]
	for len(q.a) > 0 {
		n := int(q.a[0])
		p := int(ptr[n])
		for p < len(cs) && !f.fitsOn(n, cs[p]) {
			p++
		}
		ptr[n] = int32(p)
		if p < len(cs) {
			return n, cs[p]
		}
		q.remove(n)
	}
	return -1, -1
}
