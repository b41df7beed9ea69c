package cmmf

import (
	"container/heap"
	"context"
	"sort"
)

// refChoosyAlloc is Choosy as it was before the lazy per-type heaps
// (choosy.go): each freed machine compares the best candidates of every
// class that can use its type. It is the reference for
// TestChoosyMatchesReference.
func refChoosyAlloc(ctx context.Context, in *Instance, seed int64) (*Allocation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := choosyOrder(in, seed)
	ch := newRefChoosy(in)
	a := newAllocation(in)
	for _, t := range order {
		if c := ch.pick(t); c >= 0 {
			ch.give(a, c, int(t))
		} // else nobody can use it
	}
	for i, u := range in.Users {
		a.Total[i] = float64(ch.x[i])
		a.Level[i] = a.Total[i] / u.Weight
	}
	return a, nil
}

// refChoosy is the reference's state: each class keeps a heap of its
// members by share, and a freed machine compares the tops of the classes
// that can use it.
type refChoosy struct {
	in     *Instance
	byType [][]int // type → the classes that can use it
	x      []int64 // machines per user
	heaps  []*shareHeap
	top    []choosyTop
}

// choosyTop is a class's best candidate; user -1 when it has none.
type choosyTop struct {
	user  int
	x     int64
	w     float64
	share float64
}

func newRefChoosy(in *Instance) *refChoosy {
	cs := buildClasses(in)
	ch := &refChoosy{in: in, byType: make([][]int, len(in.Types)), x: make([]int64, len(in.Users)),
		heaps: make([]*shareHeap, len(cs)), top: make([]choosyTop, len(cs))}
	for c, cl := range cs {
		for _, t := range cl.types {
			ch.byType[t] = append(ch.byType[t], c)
		}
		h := &shareHeap{in: in, x: ch.x}
		for _, i := range cl.members {
			if in.Users[i].Demand >= 1 {
				h.users = append(h.users, i)
			}
		}
		heap.Init(h)
		ch.heaps[c] = h
		ch.refresh(c)
	}
	return ch
}

func (ch *refChoosy) refresh(c int) {
	h := ch.heaps[c]
	if h.Len() == 0 {
		ch.top[c] = choosyTop{user: -1}
		return
	}
	i := h.users[0]
	w := ch.in.Users[i].Weight
	ch.top[c] = choosyTop{user: i, x: ch.x[i], w: w, share: float64(ch.x[i]) / w}
}

func (ch *refChoosy) pick(t int32) int {
	best, top := -1, ch.top
	var b choosyTop
	for _, c := range ch.byType[t] {
		tc := &top[c]
		if tc.user < 0 {
			continue
		}
		if best >= 0 {
			if tc.share > b.share {
				continue
			}
			if tc.share == b.share {
				cmp := 0
				if tc.w == b.w {
					cmp = cmpInt(tc.x, b.x)
				} else {
					cmp = cmpFrac(tc.x, tc.w, b.x, b.w)
				}
				if cmp > 0 || cmp == 0 && tc.user > b.user {
					continue
				}
			}
		}
		best, b = c, *tc
	}
	return best
}

func (ch *refChoosy) give(a *Allocation, c, t int) {
	i := ch.top[c].user
	ch.x[i]++
	a.Amount[i][sort.SearchInts(ch.in.Users[i].Allowed, t)]++
	h := ch.heaps[c]
	if float64(ch.x[i]+1) > ch.in.Users[i].Demand {
		heap.Pop(h)
	} else {
		heap.Fix(h, 0)
	}
	ch.refresh(c)
}
