package fairshare

import (
	"container/heap"
	"context"
)

// runJointLazy is joint selection for rPS-DSF, whose criterion on a copy
// depends on the copy's residual. Every candidate copy (as in the
// reference: the touched copies and the lowest untouched copy of each
// group) keeps the best framework on it as last computed, in a heap of
// copies ordered by (criterion, framework, copy). An entry goes stale
// when its copy receives a task or its framework does; either only makes
// the copy's best pair worse (the other frameworks' criteria there are
// unchanged, residuals only shrink), so a stale entry is a lower bound:
// the first fresh entry popped is the best pair, and stale ones are
// recomputed when they reach the top (the walk starts from the entry's
// old framework, which is often still close to the best there).
func (f *filler) runJointLazy(ctx context.Context) error {
	q := &copyHeap{f: f}
	for g := range f.untouched {
		f.pushHead(q, g)
	}
	for steps := 1; q.Len() > 0; steps++ {
		if steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		e := q.a[0]
		if e.ver != f.ver[e.i] || e.x != f.x[e.n] {
			n, c := f.bestRPS(e.i, e.n)
			if n < 0 {
				heap.Pop(q)
				continue
			}
			q.a[0] = copyEntry{i: e.i, n: n, c: c, ver: f.ver[e.i], x: f.x[n]}
			heap.Fix(q, 0)
			continue
		}
		head := !f.isTouched[e.i]
		f.place(e.n, e.i)
		if head {
			f.pushHead(q, f.groupOf[e.i])
		}
	}
	return nil
}

// pushHead adds group g's lowest untouched copy to the candidates, unless
// nothing fits on it (then nothing fits on any untouched copy of g).
func (f *filler) pushHead(q *copyHeap, g int) {
	h := f.head[g]
	if h >= len(f.untouched[g]) {
		return
	}
	i := f.untouched[g][h]
	if n, c := f.bestOn(i); n >= 0 {
		heap.Push(q, copyEntry{i: i, n: n, c: c, ver: f.ver[i], x: f.x[n]})
	}
}

// copyEntry is a candidate copy i with its best framework n and criterion
// c as computed when the copy had received ver placements and n had x
// tasks.
type copyEntry struct {
	i, n, ver int
	c, x      float64
}

// copyHeap orders candidate copies by their entries' (c, n, i) under the
// filler's tie-break.
type copyHeap struct {
	f *filler
	a []copyEntry
}

func (q *copyHeap) Len() int { return len(q.a) }
func (q *copyHeap) Less(i, j int) bool {
	a, b := &q.a[i], &q.a[j]
	return q.f.better(a.c, a.n, a.i, b.c, b.n, b.i)
}
func (q *copyHeap) Swap(i, j int) { q.a[i], q.a[j] = q.a[j], q.a[i] }
func (q *copyHeap) Push(x any)    { q.a = append(q.a, x.(copyEntry)) }
func (q *copyHeap) Pop() any {
	e := q.a[len(q.a)-1]
	q.a = q.a[:len(q.a)-1]
	return e
}
