package sight

import (
	"cmp"
	"fmt"
	"strings"
)

// Packing is X-Sight's third view (the xflex paper, section 2.1): the
// vector packing of containers into processing nodes, one column per node
// with one bar per resource, containers stacked in each bar by their size
// relative to the node's capacity, filled by owner and outlined by user.
type Packing struct {
	// Title and Desc are the document's; Draw appends the counts and any
	// aggregation to Desc.
	Title, Desc string
	// Resources names the dimensions; every size and capacity has one
	// entry per resource.
	Resources []string
	Nodes     []PackNode
	// Owners are the fill categories in colour order (Colour(i)); an
	// item's Owner indexes them, and one past the palette is Other.
	Owners []string
	// Unplaced lists what did not fit, one line each.
	Unplaced []string
	// Notes are extra lines under the title (a replan's changes, ...).
	Notes []string
	// OwnerLabel heads the legend ("owner" when empty); BaseLabel names
	// the grey base ("reserved / in use before" when empty; listed only
	// when some node has a base).
	OwnerLabel, BaseLabel string
	// Nouns name the nodes, items and unplaced items in the text
	// ("nodes", "containers", "unplaced" when empty).
	NodeNoun, ItemNoun, UnplacedNoun string
}

// PackNode is one node's column.
type PackNode struct {
	Name     string
	Capacity []float64
	// Base is capacity taken before the items (reserved, or in use by work
	// outside the picture), drawn grey at the bottom of each bar.
	Base  []float64
	Items []PackItem
	// Mark flags the column (e.g. changed by a replan).
	Mark bool
}

// PackItem is one container on a node.
type PackItem struct {
	Size []float64
	// Owner indexes Packing.Owners; -1 (or past the palette) is Other.
	Owner int
	// User indexes Packing.Owners too: the application now using the
	// container, outlined in its colour; -1 for none (an idle container,
	// dashed outline), and Owner's own index for no outline.
	User int
	// Notice marks a container under notice of preemption.
	Notice bool
	// Tip is the container's tooltip.
	Tip string
}

// Layout of the packing view, in user units.
const (
	packBarW    = 16  // one resource's bar, at most (barW narrows it for many resources)
	packGap     = 12  // between columns
	packBarH    = 200 // a bar at full capacity
	packMarginL = 44  // the y axis and its tick labels
	packTop     = 70  // title and notes
	packResH    = 16  // the resource letters under the bars
	packLabelH  = 62  // node names under the columns
	packLineH   = 16  // one text line
	packRows    = 5   // rows of columns at most, before nodes share columns
	// MaxColumns is the most nodes drawn one column each; past it (or
	// past the rows of columns that fit PageWidth, see Columns)
	// consecutive nodes share a column (a bin) and the view says so.
	MaxColumns = 200
	// MaxItemRects bounds containers × resources drawn one rectangle
	// each (about 60 bytes apiece); past it (or when nodes are binned)
	// each bar stacks one segment per owner instead, so the document stays
	// well under 300 KB.
	MaxItemRects = 3000
	// MaxListed is the most unplaced lines written; a last line counts
	// the rest.
	MaxListed = 40
)

// barW is the width of one resource's bar with that many resources: at
// most packBarW, narrower when one column of them would not fit
// PageWidth.
func barW(resources int) float64 {
	return max(2, min(packBarW, (PageWidth-packMarginL-packGap-8)/float64(max(resources, 1))))
}

// perRow is how many columns of that many resources fit one row of
// PageWidth.
func perRow(resources int) int {
	colW := float64(resources)*barW(resources) + packGap
	return max(1, int((PageWidth-packMarginL-8)/colW))
}

// Draw lays the packing out: columns in rows no wider than PageWidth,
// each row with a y axis (fraction of the node's capacity, 0 to 1) and
// each bar labelled with its resource's letter under it (the key is in
// the summary line). Elements tests count: "node" (one per column: a
// node, or a bin of nodes when there are more than Columns), "container"
// (one group per container, when drawn one by one), "notice",
// "unplaced" (one text line each, at most MaxListed), "legend" and
// "resource-label" (one per bar drawn, when the bars are wide enough).
func (p Packing) Draw() *Doc {
	cols, binned := p.columns()
	byItem := !binned && p.items()*len(p.Resources) <= MaxItemRects
	bw := barW(len(p.Resources))
	colW := float64(len(p.Resources))*bw + packGap
	per := perRow(len(p.Resources))
	rows := max(1, (len(cols)+per-1)/per)
	rowH := float64(packBarH + packResH + packLabelH)
	owners, colours := p.legendEntries()
	legendH := float64(len(owners)+1) * packLineH
	listed := min(len(p.Unplaced), MaxListed)
	w := packMarginL + float64(min(len(cols), per))*colW + 8
	w = min(PageWidth, max(w, packMarginL+TextWidth(p.Title, 16), 340))
	var head []string
	for _, line := range append(p.summary(len(cols), binned, byItem), p.Notes...) {
		head = append(head, wrapText(line, MinText, w-16)...)
	}
	top := 44 + float64(len(head))*packLineH + 6
	y := top + float64(rows)*rowH
	h := y + legendH + 10 + float64(listed+2)*packLineH
	d := New(w, h, p.Title, p.describe(len(cols), binned, byItem))
	d.Text(8, 24, p.Title, Style{Fill: Ink, Size: 16})
	for i, n := range head {
		d.Text(8, 44+float64(i)*packLineH, n, Style{Fill: Ink})
	}
	for r := range rows {
		ry := top + float64(r)*rowH + 8
		drawCapacityAxis(d, ry)
		for i, c := range cols[r*per : min(len(cols), (r+1)*per)] {
			p.drawColumn(d, packMarginL+float64(i)*colW, ry, c, byItem, bw)
		}
	}
	d.Text(8, y+4, cmp.Or(p.OwnerLabel, "owner"), Style{Fill: Ink, Size: MinText})
	y = d.Legend(8, y+10, packLineH, owners, colours) + packLineH
	if len(p.Unplaced) > 0 {
		d.Text(8, y, fmt.Sprintf("%s (%d):", cmp.Or(p.UnplacedNoun, "unplaced"), len(p.Unplaced)), Style{Fill: Ink})
	}
	for i, u := range p.Unplaced[:listed] {
		d.Text(18, y+float64(i+1)*packLineH, u, Style{Class: "unplaced", Fill: Ink})
	}
	if more := len(p.Unplaced) - MaxListed; more > 0 {
		d.Text(18, y+float64(MaxListed+1)*packLineH, fmt.Sprintf("… and %d more", more), Style{Fill: Ink})
	}
	return d
}

// drawCapacityAxis draws a row's y axis: the share of each node's
// capacity a bar's height stands for, 0 at the bottom and 1 at the top.
func drawCapacityAxis(d *Doc, top float64) {
	x := float64(packMarginL - 6)
	d.Line(x, top, x, top+packBarH, Style{Stroke: Ink})
	for _, v := range Ticks(0, 1, tickCount) {
		y := top + packBarH*(1-v)
		d.Line(x-3, y, x, y, Style{Stroke: Ink})
		d.Text(x-5, y+4, TickLabel(v, 1), Style{Class: "ytick", Fill: Ink, Size: MinText, Anchor: "end"})
	}
}

// letters are the resources' short labels drawn under their bars: the
// shortest prefix (one or two letters) that tells each from the others,
// or its number (1, 2, ...) when two letters do not.
func letters(resources []string) []string {
	out := make([]string, len(resources))
	for n := 1; n <= 2; n++ {
		seen := map[string]int{}
		for i, r := range resources {
			out[i] = string([]rune(r)[:min(n, len([]rune(r)))])
			seen[out[i]]++
		}
		unique := true
		for _, k := range seen {
			unique = unique && k == 1
		}
		if unique {
			return out
		}
	}
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}

// items counts the containers.
func (p Packing) items() int {
	n := 0
	for _, nd := range p.Nodes {
		n += len(nd.Items)
	}
	return n
}

// summary is the view's first lines: the counts, and how it aggregates.
func (p Packing) summary(cols int, binned, byItem bool) []string {
	nodes, items := cmp.Or(p.NodeNoun, "nodes"), cmp.Or(p.ItemNoun, "containers")
	keys := make([]string, len(p.Resources))
	for i, l := range letters(p.Resources) {
		keys[i] = l + " = " + p.Resources[i]
	}
	out := []string{fmt.Sprintf("%d %s, %d %s, %d %s; bars (height: share of the node's capacity): %s", len(p.Nodes), nodes, p.items(), items, len(p.Unplaced), cmp.Or(p.UnplacedNoun, "unplaced"), strings.Join(keys, ", "))}
	if binned {
		out = append(out, fmt.Sprintf("aggregated: %d %s in %d columns of up to %d consecutive %s; each bar stacks one segment per owner", len(p.Nodes), nodes, cols, p.binSize(), nodes))
	} else if !byItem {
		out = append(out, fmt.Sprintf("aggregated: more than %d %s × resources, so each bar stacks one segment per owner", MaxItemRects, items))
	}
	return out
}

// describe is the document's desc: Desc and the summary.
func (p Packing) describe(cols int, binned, byItem bool) string {
	return strings.TrimSpace(p.Desc + " " + strings.Join(p.summary(cols, binned, byItem), ". ") + ".")
}

// packColumn is one drawn column: a node, or a bin of consecutive nodes
// with their capacities and items summed.
type packColumn struct {
	name           string
	capacity, base []float64
	items          []PackItem
	mark           bool
	nodes          int
}

// Columns is the most columns a packing of that many resources draws:
// the rows of them (packRows) that fit PageWidth, at most MaxColumns.
func Columns(resources int) int {
	return min(MaxColumns, perRow(resources)*packRows)
}

// binSize is how many consecutive nodes share a column.
func (p Packing) binSize() int {
	c := Columns(len(p.Resources))
	return max((len(p.Nodes)+c-1)/c, 1)
}

// columns groups the nodes into columns (one each up to Columns).
func (p Packing) columns() ([]packColumn, bool) {
	k := p.binSize()
	var cols []packColumn
	for i := 0; i < len(p.Nodes); i += k {
		group := p.Nodes[i:min(i+k, len(p.Nodes))]
		c := packColumn{name: group[0].Name, capacity: make([]float64, len(p.Resources)), base: make([]float64, len(p.Resources)), nodes: len(group)}
		if len(group) > 1 {
			c.name += "…" + group[len(group)-1].Name
		}
		for _, n := range group {
			addTo(c.capacity, n.Capacity)
			addTo(c.base, n.Base)
			c.items = append(c.items, n.Items...)
			c.mark = c.mark || n.Mark
		}
		cols = append(cols, c)
	}
	return cols, k > 1
}

// addTo adds v to sum entry by entry (v may be shorter).
func addTo(sum, v []float64) {
	for r := range min(len(sum), len(v)) {
		sum[r] += v[r]
	}
}

// drawColumn draws column c at x: a <g class="node"> with one bar per
// resource, the base grey at the bottom, then the items (or per-owner
// segments) stacked above it, and the name underneath.
func (p Packing) drawColumn(d *Doc, x, top float64, c packColumn, byItem bool, bw float64) {
	tip := fmt.Sprintf("%s: %d containers", c.name, len(c.items))
	if c.nodes > 1 {
		tip = fmt.Sprintf("%s (%d nodes): %d containers", c.name, c.nodes, len(c.items))
	}
	d.Group(x, top, Style{Class: "node", Tip: tip})
	bottom := float64(packBarH)
	cursor := make([]float64, len(p.Resources))
	n := float64(len(p.Resources))
	d.Rect(-1, 0, n*bw, packBarH, Style{Fill: "none", Stroke: Faint})
	for r := range p.Resources {
		cursor[r] = bottom - p.height(c, r, c.base)
		d.Rect(float64(r)*bw, cursor[r], bw-2, bottom-cursor[r], Style{Fill: Faint})
	}
	if byItem {
		for _, it := range c.items {
			p.drawItem(d, c, it, cursor, bw)
		}
	} else {
		p.drawSegments(d, c, cursor, bw)
	}
	if c.mark {
		d.Rect(-3, -3, n*bw+4, packBarH+6, Style{Class: "marked", Fill: "none", Stroke: Ink, Dash: "3 2"})
	}
	if bw >= packBarW {
		for r, l := range letters(p.Resources) {
			d.Text(float64(r)*bw+(bw-2)/2, packBarH+13, l, Style{Class: "resource-label", Fill: Ink, Size: MinText, Anchor: "middle", Tip: p.Resources[r]})
		}
	}
	d.Text(4, packBarH+packResH+10, clip(c.name, 12), Style{Fill: Ink, Size: MinText, Rotate: 40, Tip: c.name})
	d.End()
}

// height is v[r] as a height in c's bar r (0 for a zero capacity).
func (p Packing) height(c packColumn, r int, v []float64) float64 {
	if r >= len(v) || c.capacity[r] <= 0 {
		return 0
	}
	return v[r] / c.capacity[r] * packBarH
}

// drawItem stacks one container on every bar (a <g class="container">),
// filled by owner and outlined by user, with a dot when under notice.
func (p Packing) drawItem(d *Doc, c packColumn, it PackItem, cursor []float64, bw float64) {
	s := Style{Class: "container", Fill: Colour(it.Owner), Stroke: "#FFFFFF", StrokeWidth: 0.5, Tip: it.Tip}
	switch {
	case it.User < 0:
		s.Stroke, s.StrokeWidth, s.Dash = Ink, 1, "2 1"
	case it.User != it.Owner:
		s.Stroke, s.StrokeWidth = Colour(it.User), 2.5
	}
	d.Group(0, 0, s) // the rectangles inherit its fill and stroke
	for r := range p.Resources {
		hgt := p.height(c, r, it.Size)
		cursor[r] -= hgt
		d.Rect(float64(r)*bw+1, cursor[r], max(bw-4, 1), hgt, Style{})
	}
	if it.Notice {
		d.Circle(bw/2, cursor[0]+3, 3, Style{Class: "notice", Fill: "#FFFFFF", Stroke: Ink, StrokeWidth: 1.5})
	}
	d.End()
}

// drawSegments stacks, on every bar, one segment per owner colour (the
// sum of its containers' sizes), for columns too full to draw item by item.
func (p Packing) drawSegments(d *Doc, c packColumn, cursor []float64, bw float64) {
	sums := make([][]float64, len(Palette)+1)
	for _, it := range c.items {
		k := it.Owner
		if k < 0 || k >= len(Palette) {
			k = len(Palette)
		}
		if sums[k] == nil {
			sums[k] = make([]float64, len(p.Resources))
		}
		addTo(sums[k], it.Size)
	}
	for k, sum := range sums {
		if sum == nil {
			continue
		}
		d.Group(0, 0, Style{Class: "segment", Fill: Colour(k)})
		for r := range p.Resources {
			hgt := p.height(c, r, sum)
			cursor[r] -= hgt
			d.Rect(float64(r)*bw+1, cursor[r], max(bw-4, 1), hgt, Style{})
		}
		d.End()
	}
}

// legendEntries are the owners' names and colours, then other and base.
func (p Packing) legendEntries() (names, colours []string) {
	for i, o := range p.Owners {
		if i >= len(Palette) {
			names = append(names, fmt.Sprintf("other (%d more)", len(p.Owners)-len(Palette)))
			colours = append(colours, Other)
			break
		}
		names, colours = append(names, o), append(colours, Colour(i))
	}
	if p.hasBase() {
		names, colours = append(names, cmp.Or(p.BaseLabel, "reserved / in use before")), append(colours, Faint)
	}
	return names, colours
}

// hasBase reports whether some node has capacity taken before its items.
func (p Packing) hasBase() bool {
	for _, n := range p.Nodes {
		for _, b := range n.Base {
			if b != 0 {
				return true
			}
		}
	}
	return false
}
