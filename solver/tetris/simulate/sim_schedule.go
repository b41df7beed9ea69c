package simulate

import (
	"container/heap"
	"context"
	"math"
	"sort"

	"github.com/xflex/xflex/solver/tetris"
	"github.com/xflex/xflex/vecpack"
)

// Scheduling: whenever resources free up or tasks become runnable, the
// policy (the Tetris round, or a baseline one container per visit) places
// pending tasks on machines.

// schedule lets the policy place pending tasks on machines that freed
// resources (all machines when new tasks became runnable). It reports
// false when ctx ended the round before it visited every machine.
func (s *sim) schedule(ctx context.Context) bool {
	s.order = s.order[:0]
	for m := range s.dirty {
		if s.allDirty || s.dirty[m] {
			s.order = append(s.order, m)
		}
		s.dirty[m] = false
	}
	s.allDirty = false
	if len(s.order) == 0 {
		return true
	}
	switch s.pol {
	case PolicyTetris, PolicyTetrisCPUMem:
		return s.tetrisRound(ctx)
	default:
		s.heartbeats()
		return true
	}
}

// tetrisRound runs one Tetris round over the machines in s.order and
// starts its placements; false when ctx cut the round short.
func (s *sim) tetrisRound(ctx context.Context) bool {
	in := s.in
	var groups []*tetris.Group
	var where [][2]int
	for j := range s.js {
		js := &s.js[j]
		if !js.arrived || js.done || js.pending == 0 {
			continue
		}
		for k := range js.stages {
			st := &js.stages[k]
			n := in.Jobs[j].stages[k].tasks - st.started
			if !st.runnable || n == 0 {
				continue
			}
			promoted := in.Knobs.Promoted(st.finished, in.Jobs[j].stages[k].tasks)
			if st.grp != nil {
				st.grp.Promoted = promoted
				groups = append(groups, st.grp)
			} else {
				groups = append(groups, &tetris.Group{Job: j, Demand: in.Jobs[j].stages[k].demand, Count: n, Promoted: promoted})
			}
			where = append(where, [2]int{j, k})
		}
	}
	if len(groups) == 0 {
		return true
	}
	for m := range s.tm {
		for k := range s.tm[m].Free {
			s.tm[m].Free[k] = in.Cap[m][k] - s.used[m][k]
		}
	}
	for j := range s.tj {
		copy(s.tj[j].Alloc, s.js[j].alloc)
		s.tj[j].Work = s.js[j].work
	}
	var mask []bool
	if s.pol == PolicyTetrisCPUMem {
		mask = make([]bool, s.d)
		for _, k := range []int{in.CPU, in.Mem} {
			if k >= 0 {
				mask[k] = true
			}
		}
	}
	cfg := tetris.Config{Fairness: in.Knobs.Fairness, Epsilon: in.Knobs.EpsilonFor(s.tm, groups, s.tj, mask), RemotePenalty: in.Knobs.RemotePenalty,
		Mask: mask, Total: in.Total, Roles: in.IO}
	// Round's only other error, a round past its 32-bit indices, is ruled
	// out by the request schema's limits.
	ps, err := tetris.Round(ctx, s.tm, s.order, groups, s.tj, cfg)
	for _, p := range ps {
		w := where[p.Group]
		s.start(w[0], w[1], int(p.Machine), int(p.Member))
	}
	return err == nil
}

// pick chooses the baselines' next task of an input-reading stage for
// machine m: one whose input is on m if any (locality, as Hadoop's
// schedulers prefer local slots), else the first pending one.
func (st *stageState) pick(m int) int {
	loc := st.local[m]
	for len(loc) > 0 && st.grp.Members[loc[len(loc)-1]].Placed() {
		loc = loc[:len(loc)-1]
	}
	st.local[m] = loc
	if len(loc) > 0 {
		return int(loc[len(loc)-1])
	}
	for st.cur < len(st.grp.Members) && st.grp.Members[st.cur].Placed() {
		st.cur++
	}
	return st.cur
}

// heartbeats emulates YARN's node heartbeats for the baseline policies:
// machines are visited round-robin and each visit hands out at most one
// container, until a full pass places nothing.
func (s *sim) heartbeats() {
	active := append([]int(nil), s.order...)
	for len(active) > 0 {
		next := active[:0]
		for _, m := range active {
			if s.placeOne(m) {
				next = append(next, m)
			}
		}
		active = next
	}
}

// placeOne gives machine m one task from the job the policy ranks first
// among those with a runnable task that fits m.
func (s *sim) placeOne(m int) bool {
	in := s.in
	s.jl = s.jl[:0]
	if cap(s.key) < len(s.js) {
		s.key = make([]float64, len(s.js))
	}
	key := s.key[:len(s.js)]
	var qslots []int
	totalSlots := 0
	if s.pol == PolicyCapacity {
		qslots = make([]int, len(in.QueueShare))
		for j := range s.js {
			qslots[in.Jobs[j].queue] += s.js[j].slots
		}
		for _, n := range s.maxSlots {
			totalSlots += n
		}
	}
	for j := range s.js {
		js := &s.js[j]
		if !js.arrived || js.done || js.pending == 0 {
			continue
		}
		s.jl = append(s.jl, j)
		switch s.pol {
		case PolicyDRF:
			v := js.alloc
			if in.Req.FairShare == "attained" {
				v = js.attained
			}
			sh := 0.0
			for k, x := range v {
				if in.Fair[k] && in.Total[k] > 0 {
					sh = math.Max(sh, x/in.Total[k])
				}
			}
			key[j] = sh / in.Jobs[j].weight
		case PolicySlotFair:
			key[j] = float64(js.slots) / in.Jobs[j].weight
		case PolicyCapacity:
			q := in.Jobs[j].queue
			key[j] = float64(qslots[q]) / (in.QueueShare[q] * float64(max(totalSlots, 1)))
		}
	}
	sort.SliceStable(s.jl, func(a, b int) bool {
		ja, jb := s.jl[a], s.jl[b]
		if math.Abs(key[ja]-key[jb]) > tetris.ShareTieTol {
			return key[ja] < key[jb]
		}
		if s.pol == PolicyCapacity {
			qa, qb := in.Jobs[ja].queue, in.Jobs[jb].queue
			if qa != qb {
				return qa < qb
			}
			if in.Jobs[ja].arrival != in.Jobs[jb].arrival {
				return in.Jobs[ja].arrival < in.Jobs[jb].arrival
			}
		}
		return ja < jb
	})
	for _, j := range s.jl {
		js := &s.js[j]
		for k := range js.stages {
			st := &js.stages[k]
			if !st.runnable || st.started == in.Jobs[j].stages[k].tasks {
				continue
			}
			mi := -1
			if st.grp != nil {
				mi = st.pick(m)
			}
			dem, _ := s.taskDemand(j, k, m, mi)
			if s.fits(dem, m) {
				if mi >= 0 {
					st.grp.Take(mi)
				}
				s.start(j, k, m, mi)
				return true
			}
		}
	}
	return false
}

// fits is the baseline policies' placement check: DRF checks its fair
// resources; the slot schedulers check memory slots only. No policy places a
// task on a machine that lacks a resource it needs altogether.
func (s *sim) fits(dem []float64, m int) bool {
	in := s.in
	c, u := in.Cap[m], s.used[m]
	for k, x := range dem {
		if x > 0 && c[k] <= 0 {
			return false
		}
	}
	if s.pol == PolicyDRF {
		for k := range dem {
			if in.Fair[k] && !vecpack.Fits(dem[k:k+1], []float64{c[k] - u[k]}) {
				return false
			}
		}
		return true
	}
	return s.slots[m]+in.taskSlots(dem[in.Mem]) <= s.maxSlots[m]
}

func (s *sim) dropStale() {
	for len(s.h) > 0 {
		e := s.h[0]
		if s.tasks[e.id].ver == e.ver {
			return
		}
		heap.Pop(&s.h)
	}
}
