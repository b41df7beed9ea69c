package sight

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Gantt draws schedules of malleable jobs over time: one row per job,
// each bar a stretch of time at a constant number of slots (its height
// grows with the slots), and a tick at the job's completion. Several
// panels (a schedule and its baselines) sit side by side on the same
// time axis, with the same rows in the same order.
type Gantt struct {
	// Title and Desc are the document's; Draw appends the counts and any
	// aggregation to Desc.
	Title, Desc string
	// Rows are the job names, top to bottom.
	Rows   []string
	Panels []GanttPanel
	// Start is the time axis' origin.
	Start float64
	// Notes are extra lines under each panel's title.
	Notes []string
	// TimeLabel titles the time axis with its unit ("time" when empty).
	TimeLabel string
	// End, when not 0, is the least time the axis spans to (its own
	// latest end when later): schedules of several answers drawn side by
	// side share one time axis this way (LastEnd gives each one's own).
	End float64
}

// LastEnd is the latest bar end or completion of any panel: where the
// time axis ends (at Start for an empty schedule).
func (g Gantt) LastEnd() float64 {
	t1 := g.Start
	for _, p := range g.Panels {
		for _, b := range p.Bars {
			t1 = max(t1, b.End)
		}
		for _, e := range p.Ends {
			if !math.IsNaN(e) {
				t1 = max(t1, e)
			}
		}
	}
	return t1
}

// GanttPanel is one schedule.
type GanttPanel struct {
	// Title names the schedule and its objective.
	Title string
	Bars  []GanttBar
	// Ends are the rows' completion times (NaN: not known).
	Ends []float64
}

// GanttBar is Slots slots for job Row from Start to End.
type GanttBar struct {
	Row        int
	Start, End float64
	Slots      float64
}

// Limits and layout of the Gantt view, in user units.
const (
	// MaxRows is the most jobs drawn one row each; past it consecutive
	// rows share one (a bin) and the view says so.
	MaxRows = 300
	// MaxBars bounds the bars drawn over all panels; past it (or when
	// rows are binned) each row is one bar spanning its jobs' first start
	// to last completion at their mean slots.
	MaxBars = 2000

	ganttLabelW = 70
	ganttPlotW  = 560
	ganttTop    = 50
	ganttAxisH  = 40
	ganttPlotH  = 600 // the rows' height when they are many
)

// Draw lays the panels out side by side (sight.SideBySide: each a nested
// <svg class="panel">). Elements tests count: "gantt-row" (per panel, one
// per row, or per bin of rows when there are more than MaxRows), "bar"
// and "completion" (ticks).
func (g Gantt) Draw() ([]byte, error) {
	rows, k := g.binned()
	span := k > 1 || g.bars() > MaxBars
	panels := make([]GanttPanel, len(g.Panels))
	for i, p := range g.Panels {
		panels[i] = g.aggregate(p, k, span)
	}
	scale := ganttScale{t0: g.Start, t1: Gantt{Start: g.Start, Panels: panels}.LastEnd(), top: topSlots(panels)}
	if g.End != 0 && g.End > scale.t1 {
		scale.t1 = g.End
	}
	notes := append(g.summary(len(rows), k, span), g.Notes...)
	docs := make([][]byte, len(panels))
	for i, p := range panels {
		docs[i] = g.drawPanel(p, rows, notes, scale).Bytes()
	}
	return SideBySide(g.Title, strings.TrimSpace(g.Desc+" "+strings.Join(notes, ". ")+"."), 20, docs...)
}

// bars counts the bars over all panels.
func (g Gantt) bars() int {
	n := 0
	for _, p := range g.Panels {
		n += len(p.Bars)
	}
	return n
}

// binned is the row labels drawn and how many jobs share a row.
func (g Gantt) binned() ([]string, int) {
	k := max((len(g.Rows)+MaxRows-1)/MaxRows, 1)
	if k == 1 {
		return g.Rows, 1
	}
	var out []string
	for i := 0; i < len(g.Rows); i += k {
		j := min(i+k, len(g.Rows))
		out = append(out, fmt.Sprintf("%s…%s", g.Rows[i], g.Rows[j-1]))
	}
	return out, k
}

// summary is the view's first lines: the counts and how it aggregates.
func (g Gantt) summary(rows, k int, span bool) []string {
	schedules := "1 schedule"
	if len(g.Panels) != 1 {
		schedules = fmt.Sprintf("%d schedules on one time axis", len(g.Panels))
	}
	out := []string{fmt.Sprintf("%d jobs, %s; bar height grows with the slots held", len(g.Rows), schedules)}
	switch {
	case k > 1:
		out = append(out, fmt.Sprintf("aggregated: %d jobs in %d rows of up to %d consecutive jobs, each row one bar from its jobs' first start to last completion at their mean slots", len(g.Rows), rows, k))
	case span:
		out = append(out, fmt.Sprintf("aggregated: more than %d bars, so each row is one bar from the job's start to its completion at its mean slots", MaxBars))
	}
	return out
}

// aggregate is p with its rows binned by k and, when span is set, one
// bar per row from its first start to its last end at the mean slots;
// otherwise adjacent bars of a row with equal slots are merged.
func (g Gantt) aggregate(p GanttPanel, k int, span bool) GanttPanel {
	out := GanttPanel{Title: p.Title, Ends: make([]float64, (len(g.Rows)+k-1)/k)}
	for i := range out.Ends {
		out.Ends[i] = math.NaN()
	}
	for r, e := range p.Ends {
		if b := r / k; !math.IsNaN(e) && (math.IsNaN(out.Ends[b]) || e > out.Ends[b]) {
			out.Ends[b] = e
		}
	}
	bars := slices.Clone(p.Bars)
	slices.SortStableFunc(bars, func(a, b GanttBar) int { return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(a.Start, b.Start)) })
	if span {
		out.Bars = spans(bars, k)
		return out
	}
	for _, b := range bars {
		if n := len(out.Bars); n > 0 && out.Bars[n-1].Row == b.Row && out.Bars[n-1].Slots == b.Slots && out.Bars[n-1].End == b.Start {
			out.Bars[n-1].End = b.End
			continue
		}
		out.Bars = append(out.Bars, b)
	}
	return out
}

// spans is one bar per bin of k rows (bars sorted by row): from the
// first start to the last end, at the slot-time divided by that span.
func spans(bars []GanttBar, k int) []GanttBar {
	var out []GanttBar
	for _, b := range bars {
		bin := b.Row / k
		work := b.Slots * (b.End - b.Start)
		if n := len(out); n > 0 && out[n-1].Row == bin {
			s := &out[n-1]
			prev := s.Slots * (s.End - s.Start)
			s.Start, s.End = min(s.Start, b.Start), max(s.End, b.End)
			s.Slots = (prev + work) / max(s.End-s.Start, minBarSpan)
			continue
		}
		out = append(out, GanttBar{Row: bin, Start: b.Start, End: b.End, Slots: b.Slots})
	}
	return out
}

// topSlots is the most slots any bar holds (1 when none does).
func topSlots(panels []GanttPanel) float64 {
	top := 1.0
	for _, p := range panels {
		for _, b := range p.Bars {
			top = max(top, b.Slots)
		}
	}
	return top
}
