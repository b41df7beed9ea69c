package cmmf

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"sort"
)

// Independent is the paper's independent allocation (§4.1): every machine
// is split equally among the users that can use it, regardless of weights
// and demands. It is additive and strategy-proof but lacks the sharing
// incentive; xflex reports it as a baseline.
func Independent(in *Instance) []float64 {
	users := make([][]int, len(in.Types))
	for i, u := range in.Users {
		for _, t := range u.Allowed {
			users[t] = append(users[t], i)
		}
	}
	tot := make([]float64, len(in.Users))
	for t, us := range users {
		if len(us) == 0 {
			continue
		}
		share := float64(in.Types[t].Cap) / float64(len(us))
		for _, i := range us {
			tot[i] += share
		}
	}
	return tot
}

// Choosy is the paper's online scheduler (§6) run on an empty cluster:
// machines are freed one at a time in an order drawn from seed, and each
// goes to the user with the lowest weighted share (total/weight, compared
// exactly) that can use it and is below its demand; equal shares go to the
// lower user index. It returns whole-machine totals, or ctx's error when
// ctx ends first (the simulation costs time linear in the machine count).
func Choosy(ctx context.Context, in *Instance, seed int64) ([]float64, error) {
	a, err := choosyAlloc(ctx, in, seed)
	if err != nil {
		return nil, err
	}
	return a.Total, nil
}

// choosyCheckEvery is how many machines Choosy hands out between checks
// of its context: about a millisecond of work on 20,000 users.
const choosyCheckEvery = 1 << 12

// choosyAlloc runs Choosy and returns its allocation per type.
func choosyAlloc(ctx context.Context, in *Instance, seed int64) (*Allocation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := choosyOrder(in, seed)
	ch := newChoosy(in)
	a := newAllocation(in)
	for n, t := range order {
		if n%choosyCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
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

// choosyOrder is the order in which machines free up: every machine's type,
// shuffled by the seed.
func choosyOrder(in *Instance, seed int64) []int32 {
	var order []int32
	for t, ty := range in.Types {
		for k := int64(0); k < ty.Cap; k++ {
			order = append(order, int32(t))
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x63686f6f7379)) // "choosy"
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// choosy is Choosy's state. Users with the same allowed types compete for
// the same machines, so each class keeps a heap of its members by share; a
// freed machine compares the tops of the classes that can use it.
type choosy struct {
	in     *Instance
	byType [][]int // type → the classes that can use it
	x      []int64 // machines per user
	heaps  []*shareHeap
	// top[c] caches class c's best candidate and its float share so the
	// scan over the classes of a type is a tight loop; equal float shares
	// fall back to the exact order.
	top []choosyTop
}

// choosyTop is a class's best candidate; user -1 when it has none.
type choosyTop struct {
	user  int
	x     int64
	w     float64
	share float64
}

func newChoosy(in *Instance) *choosy {
	cs := buildClasses(in)
	ch := &choosy{in: in, byType: make([][]int, len(in.Types)), x: make([]int64, len(in.Users)),
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

// refresh caches class c's best candidate.
func (ch *choosy) refresh(c int) {
	h := ch.heaps[c]
	if h.Len() == 0 {
		ch.top[c] = choosyTop{user: -1}
		return
	}
	i := h.users[0]
	w := ch.in.Users[i].Weight
	ch.top[c] = choosyTop{user: i, x: ch.x[i], w: w, share: float64(ch.x[i]) / w}
}

// pick returns the class whose best candidate gets a freed machine of type
// t (lowest share, exactly; ties to the lower user), or -1. Equal float
// shares, common (everyone starts at 0), fall back to the exact order.
func (ch *choosy) pick(t int32) int {
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

// give hands a machine of type t to class c's best candidate, who leaves
// the heap once one more machine would pass its demand.
func (ch *choosy) give(a *Allocation, c, t int) {
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

type shareHeap struct {
	in    *Instance
	x     []int64
	users []int
}

func (h *shareHeap) less(i, j int) bool {
	// Correctly rounded division is monotone, so different float shares
	// order the exact shares; equal float shares are settled exactly.
	wi, wj := h.in.Users[i].Weight, h.in.Users[j].Weight
	if si, sj := float64(h.x[i])/wi, float64(h.x[j])/wj; si != sj {
		return si < sj
	}
	if c := cmpFrac(h.x[i], wi, h.x[j], wj); c != 0 {
		return c < 0
	}
	return i < j
}
func (h *shareHeap) Len() int           { return len(h.users) }
func (h *shareHeap) Less(a, b int) bool { return h.less(h.users[a], h.users[b]) }
func (h *shareHeap) Swap(a, b int)      { h.users[a], h.users[b] = h.users[b], h.users[a] }
func (h *shareHeap) Push(v any)         { h.users = append(h.users, v.(int)) }
func (h *shareHeap) Pop() any {
	v := h.users[len(h.users)-1]
	h.users = h.users[:len(h.users)-1]
	return v
}

// RMSE is the paper's comparison metric (§7.1): the root mean square
// difference between two allocations' per-user fractions of the cluster,
// each sorted ascending.
func RMSE(a, b []float64, machines float64) float64 {
	if len(a) == 0 || machines <= 0 {
		return 0
	}
	x := append([]float64(nil), a...)
	y := append([]float64(nil), b...)
	sort.Float64s(x)
	sort.Float64s(y)
	s := 0.0
	for k := range x {
		d := (x[k] - y[k]) / machines
		s += d * d
	}
	return math.Sqrt(s / float64(len(x)))
}
