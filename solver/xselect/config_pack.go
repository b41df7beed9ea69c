package xselect

import (
	"context"
	"math"
	"slices"

	"github.com/xflex/xflex/vecpack"
)

// The packer guided by the configuration LP: whole configurations on empty
// nodes, re-solving for what is left, then the greedy fill.

// cfgRepack is how many times pack re-solves the configuration LP on what
// is still unplaced and the nodes still empty, placing the whole part of
// each solution: every re-solve turns most of the previous fractional
// remainder into whole configurations; three rounds left at most a few
// containers for the greedy on the benchmark instances.
const cfgRepack = 3

// pack places configurations on the nodes of sp (which must be every
// node). Configurations place single containers only: where sol planned
// room for containers that are colocated (bundle items), that room is left
// for the final fill, which places the bundles whole. Per class it puts
// ⌊y_p⌋ nodes of each configuration of sol on empty nodes (in node
// order), then re-solves the configuration LP for the containers still
// unplaced on the nodes still empty (up to cfgRepack times) and places the
// whole part again; then one node per remaining fractional configuration
// (largest fraction first) while empty nodes remain. A configuration's
// containers of a kind are taken from the kind's group with the most still
// unplaced (ties by group index). Finally the rule fills what space is left.
func (c *configLP) pack(ctx context.Context, sp *spec, sol *cfgSolution, rule vecpack.Rule) (*vecpack.Packing, error) {
	p, err := vecpack.NewPacking(sp.in)
	if err != nil {
		return nil, err
	}
	nodeBin := make(map[int]int, len(sp.bins))
	for b, n := range sp.bins {
		nodeBin[n] = b
	}
	empty := make([][]int, len(c.classes)) // empty bins per class, in node order
	for k, cl := range c.classes {
		for _, n := range cl.nodes {
			if b, ok := nodeBin[n]; ok {
				empty[k] = append(empty[k], b)
			}
		}
	}
	placeWhole := func(sol *cfgSolution) int {
		placed := 0
		for j, y := range sol.y {
			k := c.pool[j].class
			for range int(math.Floor(y + countTol)) {
				if len(empty[k]) == 0 {
					break
				}
				c.placePattern(p, sp, empty[k][0], c.pool[j])
				empty[k] = empty[k][1:]
				placed++
			}
		}
		return placed
	}
	placeWhole(sol)
	for range cfgRepack {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		demand := make([]float64, len(c.kinds))
		total := 0
		for g, t := range sp.single {
			if t >= 0 {
				demand[c.kindOf[g]] += float64(p.Left[t])
				total += p.Left[t]
			}
		}
		if total == 0 {
			break
		}
		avail := make([]int, len(c.classes))
		for k := range avail {
			avail[k] = len(empty[k])
		}
		next, err := c.solveOn(ctx, nil, demand, avail)
		if err != nil {
			break
		}
		sol = next
		if placeWhole(sol) == 0 {
			break
		}
	}
	// One node for each fractional remainder, largest first (ties by pool
	// index).
	var frac []int
	for j, y := range sol.y {
		if y-math.Floor(y+countTol) > countTol {
			frac = append(frac, j)
		}
	}
	slices.SortStableFunc(frac, func(a, b int) int {
		fa, fb := sol.y[a]-math.Floor(sol.y[a]+countTol), sol.y[b]-math.Floor(sol.y[b]+countTol)
		switch {
		case fa > fb:
			return -1
		case fa < fb:
			return 1
		}
		return 0
	})
	for _, j := range frac {
		k := c.pool[j].class
		if len(empty[k]) > 0 {
			c.placePattern(p, sp, empty[k][0], c.pool[j])
			empty[k] = empty[k][1:]
		}
	}
	return p, p.FillBins(ctx, rule, nil)
}

// placePattern puts configuration pt on the empty bin b, as far as items
// remain.
func (c *configLP) placePattern(p *vecpack.Packing, sp *spec, b int, pt cfgPattern) {
	for s, a := range pt.a {
		for a > 0 {
			t, left := -1, 0
			for _, g := range c.kinds[s].groups {
				if u := sp.single[g]; u >= 0 && p.Left[u] > left {
					t, left = u, p.Left[u]
				}
			}
			if t < 0 || !p.CanPlace(t, b) {
				break
			}
			p.Place(t, b, 1)
			a--
		}
	}
}
