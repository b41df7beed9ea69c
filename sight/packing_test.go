package sight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
)

// packing builds a packing of n nodes holding per containers each, owned
// round-robin by owners applications.
func packing(n, per, owners int) Packing {
	p := Packing{Title: "t", Desc: "d", Resources: []string{"cpu", "mem"}, Unplaced: []string{"x: 1 × s"}}
	for i := range owners {
		p.Owners = append(p.Owners, fmt.Sprintf("app%d", i))
	}
	for i := range n {
		nd := PackNode{Name: fmt.Sprintf("n%d", i), Capacity: []float64{float64(per), 4}, Base: []float64{0, 1}, Mark: i == 0}
		for j := range per {
			o := (i + j) % owners
			nd.Items = append(nd.Items, PackItem{Size: []float64{1, 3 / float64(per)}, Owner: o, User: []int{o, -1, (o + 1) % owners}[j%3], Notice: j == 1})
		}
		p.Nodes = append(p.Nodes, nd)
	}
	return p
}

// sighttest checks pictures against copies of the layout's limits.
func TestSighttestLimits(t *testing.T) {
	if sighttest.PageWidth != PageWidth || sighttest.MinText != MinText {
		t.Errorf("sighttest's limits %d, %d differ from PageWidth %d, MinText %d", sighttest.PageWidth, sighttest.MinText, PageWidth, MinText)
	}
}

func TestPackingCounts(t *testing.T) {
	// Rows of columns that fit PageWidth: 15 columns of 2 resources, 6 of
	// 6, 1 of 100 (bars narrowed to fit), 23 of 1; five rows of them.
	if Columns(2) != 75 || Columns(6) != 30 || Columns(100) != 5 || Columns(1) != 115 {
		t.Errorf("Columns = %d %d %d %d", Columns(2), Columns(6), Columns(100), Columns(1))
	}
	for _, c := range []struct {
		nodes, per, owners        int
		cols, containers, notices int
		aggregated                bool
	}{
		{5, 3, 3, 5, 15, 5, false},
		{Columns(2), 2, 12, Columns(2), 2 * Columns(2), Columns(2), false},
		{2*Columns(2) + 1, 2, 12, (2*Columns(2) + 3) / 3, 0, 0, true}, // bins of 3 nodes
		{10, MaxItemRects/20 + 1, 4, 10, 0, 0, true},                  // too many containers
		{10, MaxItemRects / 20, 4, 10, MaxItemRects / 2, 10, false},
	} {
		doc := packing(c.nodes, c.per, c.owners).Draw().Bytes()
		s := sighttest.Check(t, doc)
		got := []int{s.Classes["node"], s.Classes["container"], s.Classes["notice"], s.Classes["unplaced"], s.Classes["marked"]}
		want := []int{c.cols, c.containers, c.notices, 1, 1}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d nodes × %d: node, container, notice, unplaced, marked = %v, want %v", c.nodes, c.per, got, want)
		}
		if agg := strings.Contains(s.Desc, "aggregated"); agg != c.aggregated || (agg && s.Classes["segment"] == 0) {
			t.Errorf("%d nodes × %d: aggregated %v (segments %d), want %v; desc %q", c.nodes, c.per, agg, s.Classes["segment"], c.aggregated, s.Desc)
		}
		if s.Width > PageWidth {
			t.Errorf("%d nodes × %d: %g wide, more than PageWidth", c.nodes, c.per, s.Width)
		}
		if got := s.Classes["resource-label"]; got != 2*c.cols {
			t.Errorf("%d nodes × %d: %d resource labels, want one per bar (%d)", c.nodes, c.per, got, 2*c.cols)
		}
		if len(doc) > 300<<10 {
			t.Errorf("%d nodes × %d: %d bytes", c.nodes, c.per, len(doc))
		}
	}
}
