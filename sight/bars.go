package sight

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bar is one claimant's stacked bar: Parts[k] is its amount of segment k
// (a machine type, a server) of the chart.
type Bar struct {
	Label string
	Parts []float64
}

// total is the bar's length: the sum of its positive parts.
func (b Bar) total() float64 {
	t := 0.0
	for _, p := range b.Parts {
		t += math.Max(p, 0)
	}
	return t
}

// BarPanel is one method's allocation: a bar per claimant, a title (the
// method) and an optional note under it (its objective, a distance).
type BarPanel struct {
	Title, Note string
	Bars        []Bar
}

// BarChart is stacked horizontal bars, one panel per method side by side
// on one shared scale, so the same claimant's bars compare across
// methods. Segment k is coloured Colours[k] and named Segments[k] in the
// legend. Each bar is a <g class="bar"> of one <rect> per nonzero part.
type BarChart struct {
	// PerRow wraps the panels into rows of PerRow (0: one row).
	PerRow   int
	Unit     string
	Segments []string
	Colours  []string
	// Dashes, when segment k's is set, draw its parts light (a third of
	// the colour) inside a dashed outline of the colour, in the bars and
	// the legend alike: baselines drawn beside an answer this way read as
	// baselines and apart from each other at a glance, without colour.
	Dashes []string
	Panels []BarPanel
	// Top is the least bar length the scale spans (0: the longest bar's):
	// charts of several answers drawn side by side share one scale this
	// way (Max gives each chart's own).
	Top float64
	// Marks are reference values drawn across every panel (a ceiling, a
	// demand): a dashed line each, named in the legend.
	Marks []Mark
}

// Mark is a reference value of a BarChart: a dashed vertical line at
// Value across each panel's bars (class "mark"), listed in the legend
// with its Label.
type Mark struct {
	Value float64
	Label string
}

// Max is the longest bar's length, the top of the chart's own scale.
func (c BarChart) Max() float64 {
	top := 0.0
	for _, p := range c.Panels {
		for _, b := range p.Bars {
			top = math.Max(top, b.total())
		}
	}
	for _, m := range c.Marks {
		top = math.Max(top, m.Value)
	}
	return top
}

// segmentStyle is how segment k's parts are drawn.
func (c BarChart) segmentStyle(k int) Style {
	if k < len(c.Dashes) && c.Dashes[k] != "" {
		return Style{Fill: c.Colours[k], Opacity: 0.35, Stroke: c.Colours[k], StrokeWidth: 1.5, Dash: c.Dashes[k]}
	}
	return Style{Fill: c.Colours[k]}
}

// Bar chart layout, in user units.
const (
	barRow    = 17  // height of one claimant's row
	barLabelW = 100 // room for claimant names left of the bars
	barAreaW  = 200 // length of the longest bar
	barGap    = 56  // space between panels (room for the longest bar's total)
	barTop    = 64  // document title, panel title and note
	barAxisH  = 22  // the scale under the bars
)

// drawScale draws the bars' scale at y under a panel: a line the length
// of the scale's top with round ticks, labelled in the chart's unit; the
// labels carry "xtick scale-"+Unit, so panels (and pictures drawn on a
// shared Top) can be checked to agree.
func (c BarChart) drawScale(d *Doc, y, scale float64) {
	per := barAreaW / math.Max(scale, math.SmallestNonzeroFloat64)
	d.Line(barLabelW, y, barLabelW+scale*per, y, Style{Stroke: Ink})
	class := "xtick"
	if c.Unit != "" {
		class += " scale-" + strings.Join(strings.Fields(c.Unit), "-")
	}
	for _, v := range Ticks(0, scale, 4) {
		d.Line(barLabelW+v*per, y, barLabelW+v*per, y+3, Style{Stroke: Ink})
		d.Text(barLabelW+v*per, y+15, TickLabel(v, scale), Style{Class: class, Fill: Ink, Size: MinText, Anchor: "middle"})
	}
}

// Doc draws the chart as a complete document with its title and desc.
func (c BarChart) Doc(title, desc string) *Doc {
	rows := 0
	for _, p := range c.Panels {
		rows = max(rows, len(p.Bars))
	}
	scale := math.Max(c.Max(), c.Top)
	panelW := float64(barLabelW + barAreaW + barGap)
	perRow := min(len(c.Panels), max(1, int(PageWidth/panelW)))
	if c.PerRow > 0 {
		perRow = min(perRow, c.PerRow)
	}
	panelH := float64(barTop-24+rows*barRow) + 12 + barAxisH
	w := min(math.Max(panelW*float64(perRow), TextWidth(title, 14)+16), PageWidth)
	legendY := 24 + panelH*math.Ceil(float64(len(c.Panels))/float64(max(perRow, 1))) + 30
	d := New(w, legendY+float64(len(c.Segments)+len(c.Marks))*legendRow+8, title, desc)
	d.Text(8, 18, title, Style{Fill: Ink, Size: 14})
	for i, p := range c.Panels {
		d.Group(float64(i%perRow)*panelW, float64(i/perRow)*panelH, Style{})
		c.drawPanel(d, 0, p, scale)
		c.drawScale(d, float64(barTop+rows*barRow)+4, scale)
		d.End()
	}
	d.Text(barLabelW, legendY-8, c.Unit, Style{Fill: Ink, Size: MinText})
	for k, name := range c.Segments {
		y := legendY + float64(k)*legendRow
		st := c.segmentStyle(k)
		st.Class = "legend"
		d.Rect(barLabelW, y, legendRow*1.6, legendRow*0.75, st)
		d.Text(barLabelW+legendRow*2, y+legendRow*0.7, name, Style{Fill: Ink, Size: MinText})
	}
	for k, m := range c.Marks {
		y := legendY + float64(len(c.Segments)+k)*legendRow
		d.Line(barLabelW, y+legendRow*0.4, barLabelW+legendRow*1.6, y+legendRow*0.4, Style{Class: "legend", Stroke: Ink, StrokeWidth: 1.5, Dash: markDash})
		d.Text(barLabelW+legendRow*2, y+legendRow*0.7, m.Label, Style{Fill: Ink, Size: MinText})
	}
	return d
}

// markDash is the dash of a Mark's line.
const markDash = "5 3"

// drawPanel draws one panel at x: its title and note, then a row per bar
// with its label, its segments and its total at the end.
func (c BarChart) drawPanel(d *Doc, x float64, p BarPanel, scale float64) {
	d.Text(x+barLabelW, 40, p.Title, Style{Fill: Ink, Size: 14})
	d.Text(x+barLabelW, 55, p.Note, Style{Fill: Ink, Size: MinText})
	per := barAreaW / math.Max(scale, math.SmallestNonzeroFloat64)
	for r, b := range p.Bars {
		y := float64(barTop + r*barRow)
		d.Text(x+barLabelW-4, y+barRow*0.7, clip(b.Label, 13), Style{Fill: Ink, Size: MinText, Anchor: "end"})
		d.Group(x+barLabelW, y, Style{Class: "bar", Tip: b.Label + ": " + Value(b.total())})
		at := 0.0
		for k, v := range b.Parts {
			if v <= 0 {
				continue
			}
			st := c.segmentStyle(k)
			st.Tip = fmt.Sprintf("%s on %s: %s", b.Label, c.Segments[k], Value(v))
			d.Rect(at*per, 2, v*per, barRow-4, st)
			at += v
		}
		d.End()
		d.Text(x+barLabelW+at*per+3, y+barRow*0.7, Value(at), Style{Fill: Ink, Size: MinText})
	}
	for _, m := range c.Marks {
		mx := x + barLabelW + m.Value*per
		d.Line(mx, barTop-2, mx, float64(barTop+len(p.Bars)*barRow)+2, Style{Class: "mark", Stroke: Ink, StrokeWidth: 1.5, Dash: markDash, Tip: m.Label})
	}
}

// Value formats a quantity for a label: up to four significant digits.
func Value(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// clip shortens s to n runes, ending in "…" when cut, so a long name
// does not run into the bars (the bar's tooltip has it whole).
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// KeepBars keeps the n claimants with the largest bars in panel 0 (ties
// in label order) in every panel, in their panel's order, and puts the
// rest of each panel into one last bar, "other (k): mean", the mean of
// their parts: a sum of thousands would dwarf every bar kept, a mean
// compares with them. It returns how many claimants it grouped (0 when
// none). Labels are the claimants' identities across panels.
func (c *BarChart) KeepBars(n int) int {
	if len(c.Panels) == 0 || len(c.Panels[0].Bars) <= n {
		return 0
	}
	weights := map[string]float64{}
	for _, b := range c.Panels[0].Bars {
		weights[b.Label] = b.total()
	}
	top, _ := TopN(weights, n)
	keep := map[string]bool{}
	for _, l := range top {
		keep[l] = true
	}
	grouped := len(c.Panels[0].Bars) - len(top)
	for i, p := range c.Panels {
		other := Bar{Label: fmt.Sprintf("other (%d): mean", grouped), Parts: make([]float64, len(c.Segments))}
		var bars []Bar
		for _, b := range p.Bars {
			if keep[b.Label] {
				bars = append(bars, b)
				continue
			}
			for k, v := range b.Parts {
				other.Parts[k] += v / float64(grouped)
			}
		}
		c.Panels[i].Bars = append(bars, other)
	}
	return grouped
}

// KeepSegments keeps the n-1 segments with the largest totals over all
// panels (ties in name order) and folds the rest into a grey "other"
// segment, when there are more than n; it returns how many it folded.
func (c *BarChart) KeepSegments(n int) int {
	if len(c.Segments) <= n {
		return 0
	}
	weights := map[string]float64{}
	for _, p := range c.Panels {
		for _, b := range p.Bars {
			for k, v := range b.Parts {
				weights[c.Segments[k]] += v
			}
		}
	}
	top, _ := TopN(weights, n-1)
	index := map[string]int{}
	for i, s := range top {
		index[s] = i
	}
	for _, p := range c.Panels {
		for j, b := range p.Bars {
			parts := make([]float64, n)
			for k, v := range b.Parts {
				if i, ok := index[c.Segments[k]]; ok {
					parts[i] += v
				} else {
					parts[n-1] += v
				}
			}
			p.Bars[j].Parts = parts
		}
	}
	folded := len(c.Segments) - (n - 1)
	c.Segments = append(top, fmt.Sprintf("other (%d)", folded))
	c.Colours = make([]string, n)
	for i := range n - 1 {
		c.Colours[i] = Colour(i)
	}
	c.Colours[n-1] = Other
	return folded
}
