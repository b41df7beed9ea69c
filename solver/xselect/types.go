package xselect

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xflex/xflex/vecpack"
)

// spec is a vecpack instance for one count vector together with what each
// item type stands for.
type spec struct {
	in *vecpack.Instance
	// bins maps vecpack bins to node indices.
	bins []int
	// members lists the groups each item type carries (a colocated bundle
	// carries several).
	members [][]int
	// single[g] is the item type of a lone container of group g, -1 if none.
	single []int
}

// buildSpec builds the packing instance that places n[g] containers of
// every group on the given nodes (nil: all nodes). Colocated containers
// become bundles: for each colocate pair, the k-th container of one side
// (in group order) is bundled with the k-th of the other; bundles chain
// transitively. Containers that pair with nothing stay single.
func (m *model) buildSpec(n []int64, nodes []int) *spec {
	if nodes == nil {
		nodes = make([]int, m.N)
		for i := range nodes {
			nodes[i] = i
		}
	}
	sp := &spec{bins: nodes, single: make([]int, len(m.groups))}
	for g := range sp.single {
		sp.single[g] = -1
	}
	caps := make([][]float64, len(nodes))
	for b, nd := range nodes {
		caps[b] = m.caps[nd]
	}
	sp.in = &vecpack.Instance{Caps: caps, Scale: m.scoreScale, Conflicts: m.conflicts}
	var bundles []bundle
	if len(m.coloc) == 0 {
		for g, k := range n {
			if k > 0 {
				bundles = append(bundles, bundle{[]int{g}, int(k)})
			}
		}
	} else {
		bundles = m.colocBundles(n)
	}
	rows := map[*bool][]bool{}
	for _, bd := range bundles {
		m.addBundle(sp, bd, nodes, rows)
	}
	return sp
}

// bundled reports whether some item type of sp is a colocated bundle.
func (sp *spec) bundled() bool {
	for _, ms := range sp.members {
		if len(ms) > 1 {
			return true
		}
	}
	return false
}

// bundle is count identical bundles of one container of each member group.
type bundle struct {
	members []int
	count   int
}

// colocBundles bundles the containers of counts n by the colocate pairs:
// the k-th container of one side (in group order) with the k-th of the
// other, transitively (union-find over the containers, the smaller root
// kept). Equal member lists are one bundle, in order of their roots.
func (m *model) colocBundles(n []int64) []bundle {
	off := make([]int64, len(n)+1)
	for g, k := range n {
		off[g+1] = off[g] + k
	}
	parent := make([]int32, off[len(n)])
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	side := func(gs []int) []int32 {
		var out []int32
		for _, g := range gs {
			for k := off[g]; k < off[g+1]; k++ {
				out = append(out, int32(k))
			}
		}
		return out
	}
	for _, p := range m.coloc {
		xs, ys := side(p[0]), side(p[1])
		for k := 0; k < len(xs) && k < len(ys); k++ {
			a, b := find(xs[k]), find(ys[k])
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	byRoot := map[int32][]int{}
	var roots []int32
	for g := range n {
		for k := off[g]; k < off[g+1]; k++ {
			r := find(int32(k))
			if _, ok := byRoot[r]; !ok {
				roots = append(roots, r)
			}
			byRoot[r] = append(byRoot[r], g)
		}
	}
	slices.Sort(roots)
	return mergeBundles(roots, byRoot)
}

// mergeBundles makes one bundle per distinct (sorted) member list of the
// roots, counting its roots.
func mergeBundles(roots []int32, byRoot map[int32][]int) []bundle {
	var bundles []bundle
	idx := map[string]int{}
	var sb strings.Builder
	for _, r := range roots {
		ms := byRoot[r]
		slices.Sort(ms)
		sb.Reset()
		for _, g := range ms {
			sb.WriteString(strconv.Itoa(g))
			sb.WriteByte(',')
		}
		key := sb.String()
		i, ok := idx[key]
		if !ok {
			i = len(bundles)
			idx[key] = i
			bundles = append(bundles, bundle{members: ms})
		}
		bundles[i].count++
	}
	return bundles
}

// addBundle adds bundle bd to sp as an item type: the members' sizes
// summed, their groups' and applications' conflict classes, and the nodes
// allowed to every member. Lone groups sharing a row of m.allowed (the
// groups of one shape without a predicate) share the mask too, through
// rows (keyed by the row's first element): 2,000 groups on 20,000 nodes
// made 40 million mask entries per oracle call, before any deadline check,
// and the packer then keyed its bin classes on every one of them.
func (m *model) addBundle(sp *spec, bd bundle, nodes []int, rows map[*bool][]bool) {
	G := len(m.groups)
	t := len(sp.in.Types)
	it := vecpack.ItemType{Count: bd.count, Size: make([]float64, m.R)}
	for _, g := range bd.members {
		for r, x := range m.req.Shapes[m.groups[g].shape].Size {
			it.Size[r] += x
		}
		for _, c := range []int{g, G + m.groups[g].app} {
			if !slices.Contains(it.Classes, c) {
				it.Classes = append(it.Classes, c)
			}
		}
	}
	if len(bd.members) == 1 {
		sp.single[bd.members[0]] = t
	}
	if len(bd.members) == 1 && len(m.allowed[bd.members[0]]) > 0 {
		key := &m.allowed[bd.members[0]][0]
		if rows[key] == nil {
			rows[key] = m.bundleAllowed(bd.members, nodes)
		}
		it.Allowed = rows[key]
	} else {
		it.Allowed = m.bundleAllowed(bd.members, nodes)
	}
	sp.in.Types = append(sp.in.Types, it)
	sp.members = append(sp.members, bd.members)
}

// bundleAllowed is the allowed mask over the given nodes of a bundle: the
// nodes allowed to every member; all false when two members conflict.
func (m *model) bundleAllowed(members []int, nodes []int) []bool {
	out := make([]bool, len(nodes))
	for i, g := range members {
		for _, h := range members[i+1:] {
			if m.conflictClasses(g, h) || (m.groups[g].app != m.groups[h].app && (m.req.Apps[m.groups[g].app].Garbo || m.req.Apps[m.groups[h].app].Garbo)) {
				return out
			}
		}
	}
	for b, nd := range nodes {
		ok := true
		for _, g := range members {
			if !m.allowed[g][nd] {
				ok = false
				break
			}
		}
		out[b] = ok
	}
	return out
}

// conflictClasses reports whether groups g and h are exlocated.
func (m *model) conflictClasses(g, h int) bool {
	k := [2]int{min(g, h), max(g, h)}
	_, found := slices.BinarySearchFunc(m.conflicts, k, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return found
}
