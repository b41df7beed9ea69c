package sight

import (
	"cmp"
	"fmt"
	"math"
)

// ganttScale maps times and slots to the plot: [t0, t1] onto its width,
// and top slots to a full row.
type ganttScale struct {
	t0, t1, top float64
}

// x is time t's abscissa in the plot.
func (s ganttScale) x(t float64) float64 {
	if s.t1 <= s.t0 {
		return ganttLabelW
	}
	return ganttLabelW + (t-s.t0)/(s.t1-s.t0)*ganttPlotW
}

// rowHeight is the height of one of n rows: 16 while they fit the plot,
// then the plot's height shared.
func rowHeight(n int) float64 {
	return math.Min(16, ganttPlotH/math.Max(float64(n), 1))
}

// drawPanel draws one schedule: its title and notes, one <g
// class="gantt-row"> per row holding its bars and completion tick, and
// the time axis.
func (g Gantt) drawPanel(p GanttPanel, rows []string, notes []string, sc ganttScale) *Doc {
	rh := rowHeight(len(rows))
	var lines []string
	for _, n := range notes {
		lines = append(lines, wrapText(n, MinText, PageWidth-ganttLabelW-10)...)
	}
	top := ganttTop + float64(len(lines))*15
	h := top + float64(len(rows))*rh + ganttAxisH
	w := ganttLabelW + ganttPlotW + 20.0
	w = min(max(w, ganttLabelW+TextWidth(p.Title, 14)+10), PageWidth)
	d := New(w, h, p.Title, p.Title)
	d.Text(ganttLabelW, 20, p.Title, Style{Fill: Ink, Size: 14})
	for i, n := range lines {
		d.Text(ganttLabelW, 38+float64(i)*15, n, Style{Fill: Ink, Size: MinText})
	}
	byRow := make([][]GanttBar, len(rows))
	for _, b := range p.Bars {
		byRow[b.Row] = append(byRow[b.Row], b)
	}
	for r, name := range rows {
		y := top + float64(r)*rh
		d.Group(0, y, Style{Class: "gantt-row", Tip: name})
		if rh >= MinText {
			d.Text(ganttLabelW-4, rh*0.75, clip(name, 10), Style{Fill: Ink, Size: MinText, Anchor: "end"})
		}
		for _, b := range byRow[r] {
			bh := math.Max(rh*0.85*b.Slots/sc.top, math.Min(1, rh*0.85))
			d.Rect(sc.x(b.Start), rh*0.9-bh, sc.x(b.End)-sc.x(b.Start), bh, Style{Class: "bar", Fill: Palette[r%len(Palette)],
				Tip: fmt.Sprintf("%s: %s slots from %s to %s", name, Num(b.Slots), Num(b.Start), Num(b.End))})
		}
		if e := p.Ends[r]; !math.IsNaN(e) {
			d.Line(sc.x(e), 0, sc.x(e), rh*0.9, Style{Class: "completion", Stroke: Ink})
		}
		d.End()
	}
	drawTimeAxis(d, sc, top+float64(len(rows))*rh, cmp.Or(g.TimeLabel, "time"))
	return d
}

// drawTimeAxis draws the axis line at y with ticks at round times; every
// panel of a Gantt shares the time scale, so its tick labels carry the
// class "scale-time" (Axes.Scale).
func drawTimeAxis(d *Doc, sc ganttScale, y float64, label string) {
	d.Line(ganttLabelW, y, ganttLabelW+ganttPlotW, y, Style{Stroke: Ink})
	step := niceStep((sc.t1 - sc.t0) / 6)
	for t := math.Ceil(sc.t0/step) * step; t <= sc.t1+step*tickRoundOff; t += step {
		x := sc.x(t)
		d.Line(x, y, x, y+4, Style{Stroke: Ink})
		d.Text(x, y+16, Num(t), Style{Class: "xtick scale-time", Fill: Ink, Size: MinText, Anchor: "middle"})
	}
	d.Text(ganttLabelW+ganttPlotW/2, y+32, label, Style{Fill: Ink, Size: MinText, Anchor: "middle"})
}

// niceStep is the round number (1, 2 or 5 times a power of ten) at or
// above x: a tick spacing.
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}
