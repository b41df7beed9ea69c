package xselect

import (
	"strconv"
	"strings"
)

// Group conflicts of the configuration LP: which container groups may not
// share a node (exlocation, and an application's anti-affinity), so that
// kinds and configurations respect them.

// groupConflicts are the conflicts between groups (exlocation, Garbo),
// between the groups themselves or their applications (G + app).
type groupConflicts struct {
	m    *model
	pair map[[2]int]bool
	// in lists the groups in some conflict, in order; has marks them.
	in  []int
	has []bool
}

func newGroupConflicts(m *model) *groupConflicts {
	gc := &groupConflicts{m: m, pair: map[[2]int]bool{}, has: make([]bool, len(m.groups))}
	for _, pc := range m.conflicts {
		gc.pair[[2]int{pc[0], pc[1]}] = true
		gc.pair[[2]int{pc[1], pc[0]}] = true
	}
	if len(gc.pair) == 0 {
		return gc
	}
	for g := range m.groups {
		for h := range m.groups {
			if gc.conflict(g, h) {
				gc.has[g] = true
				gc.in = append(gc.in, g)
				break
			}
		}
	}
	return gc
}

// conflict reports whether groups g and h may not share a node.
func (gc *groupConflicts) conflict(g, h int) bool {
	G := len(gc.m.groups)
	for _, x := range [2]int{g, G + gc.m.groups[g].app} {
		for _, y := range [2]int{h, G + gc.m.groups[h].app} {
			if gc.pair[[2]int{x, y}] {
				return true
			}
		}
	}
	return false
}

// writePartners writes the part of group g's kind key its conflicts
// decide: nothing for a group in none; its own index for a group in
// conflict with itself; otherwise the groups it conflicts with. Groups
// with the same partners (as every non-Garbo group beside Garbo
// applications) may share a node with each other and conflict with the
// same kinds, so they can be one kind.
func (gc *groupConflicts) writePartners(sb *strings.Builder, g int) {
	if !gc.has[g] {
		return
	}
	if gc.conflict(g, g) {
		sb.WriteString("g" + strconv.Itoa(g) + ":")
		return
	}
	sb.WriteString("p")
	for _, h := range gc.in {
		if gc.conflict(g, h) {
			sb.WriteString(strconv.Itoa(h) + ",")
		}
	}
	sb.WriteString(":")
}
