package cmmf

import (
	"container/heap"
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
// lower user index. It returns whole-machine totals.
func Choosy(in *Instance, seed int64) []float64 {
	return choosyAlloc(in, seed).Total
}

// choosyAlloc runs Choosy and returns its allocation per type.
func choosyAlloc(in *Instance, seed int64) *Allocation {
	var order []int32
	for t, ty := range in.Types {
		for k := int64(0); k < ty.Cap; k++ {
			order = append(order, int32(t))
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x63686f6f7379)) // "choosy"
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	// Users with the same allowed types compete for the same machines, so
	// each class keeps a heap of its members by share; a freed machine
	// compares the tops of the classes that can use it.
	cs := buildClasses(in)
	byType := make([][]int, len(in.Types))
	for c, cl := range cs {
		for _, t := range cl.types {
			byType[t] = append(byType[t], c)
		}
	}
	userClass := make([]int, len(in.Users))
	for c, cl := range cs {
		for _, i := range cl.members {
			userClass[i] = c
		}
	}
	x := make([]int64, len(in.Users))
	a := newAllocation(in)
	heaps := make([]*shareHeap, len(cs))
	for c, cl := range cs {
		h := &shareHeap{in: in, x: x}
		for _, i := range cl.members {
			if in.Users[i].Demand >= 1 {
				h.users = append(h.users, i)
			}
		}
		heap.Init(h)
		heaps[c] = h
	}
	for _, t := range order {
		best := -1
		for _, c := range byType[t] {
			h := heaps[c]
			if h.Len() == 0 {
				continue
			}
			if best < 0 || h.less(h.users[0], best) {
				best = h.users[0]
			}
		}
		if best < 0 {
			continue // nobody can use it
		}
		x[best]++
		a.Amount[best][sort.SearchInts(in.Users[best].Allowed, int(t))]++
		h := heaps[userClass[best]]
		if float64(x[best]+1) > in.Users[best].Demand {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	for i, u := range in.Users {
		a.Total[i] = float64(x[i])
		a.Level[i] = a.Total[i] / u.Weight
	}
	return a
}

type shareHeap struct {
	in    *Instance
	x     []int64
	users []int
}

func (h *shareHeap) less(i, j int) bool {
	c := cmpFrac(h.x[i], h.in.Users[i].Weight, h.x[j], h.in.Users[j].Weight)
	if c != 0 {
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
