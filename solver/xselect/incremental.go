package xselect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// cnt is count containers of one (app, shape) on a node.
type cnt struct {
	app, shape int
	k          int64
}

// incremental is the state of a replan from a current packing.
type incremental struct {
	m *model
	// cur[n] lists node n's current containers, sorted by (app, shape).
	cur [][]cnt
	// curGroup is the current number of containers per required group.
	curGroup []int64
	// forced are nodes whose current contents are invalid now (capacity,
	// placement or conflict): they must change.
	forced []int
	valid  bool // no forced node and colocation holds: current is a packing
	// accepted replan: open nodes and their packing.
	open []int
}

// newIncremental parses and checks current.
func (m *model) newIncremental() (*incremental, error) {
	req := m.req
	inc := &incremental{m: m, cur: make([][]cnt, m.N), curGroup: make([]int64, len(m.groups))}
	var vs solver.Violations
	seen := map[int]int{}
	// The response lists every container, so a current packing holding
	// more than maxContainers is refused where its total crosses the
	// limit (it would otherwise be listed container by container).
	total, over := int64(0), false
	for i, nr := range req.Current {
		n, ok := m.nodeIdx[nr.Name]
		if !ok {
			vs.Add(solver.Ptr("current", i, "name"), "unknown node %q", nr.Name)
			continue
		}
		if j, dup := seen[n]; dup {
			vs.Add(solver.Ptr("current", i, "name"), "node %q listed twice (also at /current/%d)", nr.Name, j)
			continue
		}
		seen[n] = i
		acc := map[[2]int]int64{}
		for k, c := range nr.Containers {
			a, okA := m.appIdx[c.App]
			s, okS := m.shapeIdx[c.Shape]
			if !okA {
				vs.Add(solver.Ptr("current", i, "containers", k, "app"), "unknown application %q", c.App)
			}
			if !okS {
				vs.Add(solver.Ptr("current", i, "containers", k, "shape"), "unknown shape %q", c.Shape)
			}
			if !okA || !okS {
				continue
			}
			k1 := int64(1)
			if c.Count != nil {
				k1 = *c.Count
			}
			if total += k1; total > maxContainers && !over {
				over = true
				vs.Add(solver.Ptr("current", i, "containers", k, "count"), "the current packing holds more than %d containers (the most a response lists)", maxContainers)
			}
			acc[[2]int{a, s}] += k1
		}
		for key, k := range acc {
			if k > 0 {
				inc.cur[n] = append(inc.cur[n], cnt{app: key[0], shape: key[1], k: k})
			}
		}
		sortCnt(inc.cur[n])
	}
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	for n := range inc.cur {
		if !m.nodeValid(n, inc.cur[n]) {
			inc.forced = append(inc.forced, n)
		}
		for _, c := range inc.cur[n] {
			if g, ok := m.gidx[[2]int{c.app, c.shape}]; ok {
				inc.curGroup[g] += c.k
			}
		}
	}
	if len(inc.forced) > m.changeMax {
		var out []solver.Violation
		for _, n := range inc.forced {
			out = append(out, solver.Violation{Pointer: solver.Ptr("current", seen[n]), Message: fmt.Sprintf("node %q must change: its current containers exceed its capacity or break a constraint", req.Nodes[n].Name)})
		}
		return nil, solver.Infeasible(fmt.Sprintf("%d nodes must change but change_fraction allows %d", len(inc.forced), m.changeMax), out...)
	}
	inc.valid = len(inc.forced) == 0 && m.colocationHolds(inc.cur)
	return inc, nil
}

func sortCnt(cs []cnt) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].app != cs[j].app {
			return cs[i].app < cs[j].app
		}
		return cs[i].shape < cs[j].shape
	})
}

// nodeValid checks one node's contents: usable capacity, every container
// on a node its app and shape allow, no exlocated groups together, no
// Garbo application sharing the node.
func (m *model) nodeValid(n int, cs []cnt) bool {
	used := make([]float64, m.R)
	apps := map[int]bool{}
	garbo := false
	for i, c := range cs {
		sh := &m.req.Shapes[c.shape]
		if !m.appNodes[c.app][n] || !m.matches(sh.Require, n) {
			return false
		}
		for r, x := range sh.Size {
			used[r] += x * float64(c.k)
		}
		apps[c.app] = true
		garbo = garbo || m.req.Apps[c.app].Garbo
		g, ok := m.gidx[[2]int{c.app, c.shape}]
		if !ok {
			continue
		}
		for _, d := range cs[i:] {
			h, ok := m.gidx[[2]int{d.app, d.shape}]
			if ok && m.conflictClasses(g, h) && (g != h || c.k > 1) {
				return false
			}
		}
	}
	if garbo && len(apps) > 1 {
		return false
	}
	return vecpack.Fits(used, m.caps[n])
}

// colocationHolds checks every colocate pair on a whole assignment: the
// containers of the two sides that can be paired on common nodes
// (Σ_n min(X_n, Y_n)) must cover min(N_X, N_Y).
func (m *model) colocationHolds(assign [][]cnt) bool {
	for _, p := range m.coloc {
		var nx, ny, paired int64
		for _, cs := range assign {
			var x, y int64
			for _, c := range cs {
				g, ok := m.gidx[[2]int{c.app, c.shape}]
				if !ok {
					continue
				}
				if slices.Contains(p[0], g) {
					x += c.k
				}
				if slices.Contains(p[1], g) {
					y += c.k
				}
			}
			nx += x
			ny += y
			paired += min(x, y)
		}
		if paired < min(nx, ny) {
			return false
		}
	}
	return true
}

// try is the incremental oracle: choose at most changeMax nodes to open
// (the forced ones first, then by one of two rankings), keep every other
// node as it is, and pack the shortfall n_g − (containers on kept nodes)
// into the open nodes, starting from the containers already there.
func (inc *incremental) try(ctx context.Context, n []int64, rules []vecpack.Rule, rng *rand.Rand, exact bool, out *outcome) (bool, []int64, error) {
	m := inc.m
	for _, rank := range []func(int) float64{inc.valueRank(n), inc.freeRank} {
		open := inc.choose(rank)
		isOpen := make([]bool, m.N)
		for _, b := range open {
			isOpen[b] = true
		}
		def := slices.Clone(n)
		for nd, cs := range inc.cur {
			if isOpen[nd] {
				continue
			}
			for _, c := range cs {
				if g, ok := m.gidx[[2]int{c.app, c.shape}]; ok {
					def[g] -= c.k
				}
			}
		}
		for g := range def {
			def[g] = max(def[g], 0)
		}
		sp := m.buildSpec(def, open)
		var p *vecpack.Packing
		rule := ""
		if exact {
			q, ok, err := exactPack(ctx, sp)
			if err != nil {
				return false, nil, err
			}
			if ok {
				p = q
			}
		} else {
			// Every rule's greedy from the prefilled start; the local
			// search then runs once, from the least unplaced weight.
			var best *vecpack.Packing
			bestRule := ""
			for _, r := range rules {
				q, err := inc.prefilled(sp)
				if err != nil {
					return false, nil, err
				}
				if err := q.FillBins(ctx, r, nil); err != nil {
					return false, nil, err
				}
				if q.Unplaced() == 0 {
					p, rule = q, r.Name
					break
				}
				if best == nil || q.UnplacedWeight() < best.UnplacedWeight() {
					best, bestRule = q, r.Name
				}
			}
			if p == nil && best != nil {
				if _, err := best.Improve(ctx, vecpack.ImproveOptions{Rules: rules, Rand: rng}); err != nil {
					return false, nil, err
				}
				if best.Unplaced() == 0 {
					p, rule = best, bestRule+"+local-search"
				}
			}
		}
		if p == nil {
			continue
		}
		if !m.colocationHolds(inc.assignment(sp, p, open)) {
			continue
		}
		out.sp, out.pack, out.rule = sp, p, rule
		inc.open = open
		return true, nil, nil
	}
	return false, nil, nil
}

// prefilled starts a packing of sp with each open node's current
// containers that are still wanted, so unchanged nodes stay unchanged.
func (inc *incremental) prefilled(sp *spec) (*vecpack.Packing, error) {
	p, err := vecpack.NewPacking(sp.in)
	if err != nil {
		return nil, err
	}
	m := inc.m
	for b, nd := range sp.bins {
		for _, c := range inc.cur[nd] {
			g, ok := m.gidx[[2]int{c.app, c.shape}]
			if !ok || sp.single[g] < 0 {
				continue
			}
			t := sp.single[g]
			for k := int64(0); k < c.k && p.Left[t] > 0 && p.CanPlace(t, b); k++ {
				p.Place(t, b, 1)
			}
		}
	}
	return p, nil
}

// choose returns the forced nodes plus the best-ranked others, up to
// changeMax, sorted by node index. Ties in rank go to the lower index.
func (inc *incremental) choose(rank func(int) float64) []int {
	m := inc.m
	open := append([]int{}, inc.forced...) // non-nil: buildSpec reads nil as "all nodes"
	forced := make([]bool, m.N)
	for _, n := range open {
		forced[n] = true
	}
	var rest []int
	for n := 0; n < m.N; n++ {
		if !forced[n] {
			rest = append(rest, n)
		}
	}
	score := make([]float64, m.N)
	for _, n := range rest {
		score[n] = rank(n)
	}
	sort.SliceStable(rest, func(i, j int) bool { return score[rest[i]] > score[rest[j]] })
	k := m.changeMax - len(open)
	open = append(open, rest[:min(k, len(rest))]...)
	slices.Sort(open)
	return open
}

// freeRank ranks a node by its normalised free capacity.
func (inc *incremental) freeRank(n int) float64 {
	m := inc.m
	used := make([]float64, m.R)
	for _, c := range inc.cur[n] {
		for r, x := range m.req.Shapes[c.shape].Size {
			used[r] += x * float64(c.k)
		}
	}
	s := 0.0
	for r := range used {
		s += (m.caps[n][r] - used[r]) * m.scale[r]
	}
	return s
}

// valueRank ranks a node by its free capacity plus the capacity held by
// containers that are surplus at count vector n (more than needed, or not
// required at all), i.e. what opening it can give to the shortfall.
func (inc *incremental) valueRank(n []int64) func(int) float64 {
	m := inc.m
	surplus := make([]int64, len(m.groups))
	for g := range surplus {
		surplus[g] = max(0, inc.curGroup[g]-n[g])
	}
	return func(nd int) float64 {
		v := inc.freeRank(nd)
		for _, c := range inc.cur[nd] {
			k := c.k
			if g, ok := m.gidx[[2]int{c.app, c.shape}]; ok {
				k = min(k, surplus[g])
			}
			for r, x := range m.req.Shapes[c.shape].Size {
				v += float64(k) * x * m.scale[r]
			}
		}
		return v
	}
}

// assignment is the whole cluster's containers: kept nodes as they are,
// open nodes from the packing.
func (inc *incremental) assignment(sp *spec, p *vecpack.Packing, open []int) [][]cnt {
	out := make([][]cnt, inc.m.N)
	for n := range out {
		out[n] = inc.cur[n]
	}
	for _, n := range open {
		out[n] = nil
	}
	for b, nd := range sp.bins {
		out[nd] = packedCounts(inc.m, sp, p, b)
	}
	return out
}

// packedCounts lists bin b's containers by (app, shape).
func packedCounts(m *model, sp *spec, p *vecpack.Packing, b int) []cnt {
	acc := map[int]int64{}
	for _, s := range p.Bins[b] {
		for _, g := range sp.members[s.Type] {
			acc[g] += int64(s.Count)
		}
	}
	var out []cnt
	for g, k := range acc {
		gr := m.groups[g]
		out = append(out, cnt{app: gr.app, shape: gr.shape, k: k})
	}
	sortCnt(out)
	return out
}
