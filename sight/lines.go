package sight

import (
	"math"
	"slices"
)

// Series is one named line of a LineChart: points (X[i], Y[i]) in order
// of X, its colour, an optional stroke-dasharray and an optional class
// in place of the chart's (a reference line a test counts apart).
type Series struct {
	Name   string
	X, Y   []float64
	Colour string
	Dash   string
	Class  string
}

// LineChart is one panel of lines on shared axes: utilisation over
// time, a completion-time CDF. Each series is one <polyline> of class
// Class, so a test counts the series drawn.
type LineChart struct {
	Title, XLabel, YLabel string
	Class                 string
	Series                []Series
	// Step draws each series as a staircase (the value holds until the
	// next point): a CDF, or binned utilisation.
	Step bool
	// YMin and YMax fix the y range when YMax > YMin (a fraction's 0..1);
	// otherwise the range is the data's, from 0.
	YMin, YMax float64
	// ZeroX starts the x axis at 0 (durations) rather than the data's
	// smallest x.
	ZeroX bool
	// Scale names the y scale this chart shares with other panels
	// (Axes.Scale).
	Scale string
	// XMax, when above the data's largest x, is where the x axis ends
	// (pictures of several answers on one time axis); XScale names that
	// shared axis (Axes.XScale).
	XMax   float64
	XScale string
}

// LastX is the largest x of any series: where the chart's own x axis
// ends (0 with no points).
func (c LineChart) LastX() float64 {
	last := math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.X[:min(len(s.X), len(s.Y))] {
			last = math.Max(last, v)
		}
	}
	if math.IsInf(last, -1) {
		return 0
	}
	return last
}

// Panel margins around a chart's plot area: room for the panel title and
// y-axis title above, tick labels left, tick labels and x-axis title
// below, and the legend rows under those.
const (
	panelLeft   = 52
	panelRight  = 12
	panelTop    = 40
	panelBottom = 40
	legendRow   = 17
	// lineW is the stroke width of the last series drawn; earlier ones
	// are drawn wider (up to lineW+lineWiden), so where lines coincide
	// each shows as a border around the ones drawn over it.
	lineW     = 1.5
	lineWiden = 3
)

// Draw draws c in the rectangle (x, y, w, h) of d: title, axes, lines and
// a legend of the series names.
func (c LineChart) Draw(d *Doc, x, y, w, h float64) {
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range c.Series {
		for i := range min(len(s.X), len(s.Y)) {
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymax = math.Max(ymax, s.Y[i])
		}
	}
	if c.YMax > c.YMin {
		ymin, ymax = c.YMin, c.YMax
	}
	if c.ZeroX {
		xmin = math.Min(xmin, 0)
	}
	if c.XMax > xmax {
		xmax = c.XMax
	}
	names, colours, dashes := make([]string, len(c.Series)), make([]string, len(c.Series)), make([]string, len(c.Series))
	widths := make([]float64, len(c.Series))
	for i, s := range c.Series {
		names[i], colours[i], dashes[i] = s.Name, s.Colour, s.Dash
		widths[i] = lineW
		if n := len(c.Series); n > 1 {
			widths[i] += lineWiden * float64(n-1-i) / float64(n-1)
		}
	}
	a := panelAxes(d, x, y, w, h, c.Title, legendRows(names, w), [4]float64{xmin, xmax, ymin, ymax})
	a.Scale, a.XScale = c.Scale, c.XScale
	a.Draw(d, c.XLabel, c.YLabel)
	for i, s := range c.Series {
		xs, ys := s.X, s.Y
		if c.Step {
			xs, ys = stairs(xs, ys)
		}
		px, py := make([]float64, len(xs)), make([]float64, len(ys))
		for i := range xs {
			px[i], py[i] = a.PX(xs[i]), a.PY(ys[i])
		}
		class := c.Class
		if s.Class != "" {
			class = s.Class
		}
		d.Polyline(px, py, Style{Class: class, Stroke: s.Colour, StrokeWidth: widths[i], Dash: s.Dash, Tip: s.Name})
	}
	panelLegend(d, x, y, w, h, names, colours, dashes)
}

// panelAxes writes a panel's title and returns the axes of its plot area
// for the data ranges r (xmin, xmax, ymin, ymax), leaving legend rows of
// room at the bottom.
func panelAxes(d *Doc, x, y, w, h float64, title string, legendRows int, r [4]float64) Axes {
	d.Text(x+w/2, y+16, title, Style{Fill: Ink, Anchor: "middle", Size: 14})
	ph := h - panelTop - panelBottom - float64(legendRows)*legendRow
	return NewAxes(x+panelLeft, y+panelTop, w-panelLeft-panelRight, math.Max(ph, 20), r[0], r[1], r[2], r[3])
}

// legendFlow places legend entries left to right in rows as wide as a
// panel of width w: entry i goes at offset dx[i] in row row[i]; rows is
// how many rows they take.
func legendFlow(names []string, w float64) (dx []float64, row []int, rows int) {
	avail := w - panelLeft - panelRight
	at := 0.0
	for _, n := range names {
		ew := 2*legendRow + TextWidth(n, MinText) + 12
		if at > 0 && at+ew > avail {
			rows, at = rows+1, 0
		}
		dx, row = append(dx, at), append(row, rows)
		at += ew
	}
	if len(names) > 0 {
		rows++
	}
	return dx, row, rows
}

// legendRows is how many rows a panel of width w needs for names.
func legendRows(names []string, w float64) int {
	_, _, rows := legendFlow(names, w)
	return rows
}

// panelLegend draws a swatch (class "legend") and name per entry, flowing
// in rows at the bottom of the panel (x, y, w, h): a filled square for
// areas (dashes nil), a stretch of the line with its dash for lines.
func panelLegend(d *Doc, x, y, w, h float64, names, colours, dashes []string) {
	dx, row, rows := legendFlow(names, w)
	top := y + h - float64(rows)*legendRow
	for i, n := range names {
		ex, ey := x+panelLeft+dx[i], top+float64(row[i])*legendRow
		if dashes == nil {
			d.Rect(ex, ey+2, legendRow*1.6, legendRow*0.7, Style{Class: "legend", Fill: colours[i]})
		} else {
			d.Line(ex, ey+legendRow*0.45, ex+legendRow*1.6, ey+legendRow*0.45, Style{Class: "legend", Stroke: colours[i], StrokeWidth: 2.5, Dash: dashes[i]})
		}
		d.Text(ex+2*legendRow, ey+legendRow*0.7, n, Style{Fill: Ink, Size: MinText})
	}
}

// stairs turns points into a staircase: each value holds until the next
// point's x, where the line steps to the next value.
func stairs(xs, ys []float64) ([]float64, []float64) {
	n := min(len(xs), len(ys))
	if n == 0 {
		return nil, nil
	}
	sx, sy := []float64{xs[0]}, []float64{ys[0]}
	for i := 1; i < n; i++ {
		sx = append(sx, xs[i], xs[i])
		sy = append(sy, ys[i-1], ys[i])
	}
	return sx, sy
}

// CDF returns the empirical distribution of values as the points of a
// staircase, (0 at the smallest value, then (v, fraction of values ≤ v)
// at each distinct value), at most maxPoints of them: past that the
// points are the maxPoints quantiles evenly spaced in rank, so a CDF of a
// million jobs stays a small polyline. Values that are not finite are
// left out.
func CDF(values []float64, maxPoints int) (xs, ys []float64) {
	v := make([]float64, 0, len(values))
	for _, x := range values {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil, nil
	}
	slices.Sort(v)
	n := float64(len(v))
	xs, ys = []float64{v[0]}, []float64{0}
	stride := max(1, (len(v)+maxPoints-1)/max(maxPoints, 1))
	for i := 0; i < len(v); i++ {
		last := i == len(v)-1
		if !last && (v[i+1] == v[i] || (i+1)%stride != 0) {
			continue // the staircase rises once per distinct value kept
		}
		xs, ys = append(xs, v[i]), append(ys, float64(i+1)/n)
	}
	return xs, ys
}

// Coarsen merges consecutive bins [start[i], end[i]) carrying values
// vals[k][i] (one row per series) into at most n bins, each value the
// time-weighted mean of the bins it merges, so a long run draws at most n
// steps. merged says whether it merged anything.
func Coarsen(start, end []float64, vals [][]float64, n int) (s, e []float64, v [][]float64, merged bool) {
	m := min(len(start), len(end))
	if n <= 0 || m <= n {
		return start[:m], end[:m], vals, false
	}
	group := (m + n - 1) / n
	v = make([][]float64, len(vals))
	for lo := 0; lo < m; lo += group {
		hi := min(lo+group, m)
		s, e = append(s, start[lo]), append(e, end[hi-1])
		for k, row := range vals {
			sum, span := 0.0, 0.0
			for i := lo; i < hi && i < len(row); i++ {
				sum += row[i] * (end[i] - start[i])
				span += end[i] - start[i]
			}
			v[k] = append(v[k], sum/math.Max(span, math.SmallestNonzeroFloat64))
		}
	}
	return s, e, v, true
}

// StackedArea is one panel of layers stacked over binned time: layer k
// has value Values[k][i] over bin [Start[i], End[i]). Each layer is one
// filled polygon of class Class, coloured Colours[k]: the area under the
// top of layers 0..k, drawn top layer first so each lower one paints over
// it (half the points of outlining each layer's band).
type StackedArea struct {
	Title, XLabel, YLabel string
	Class                 string
	Names, Colours        []string
	Start, End            []float64
	Values                [][]float64
	// YMax is the lowest the y axis may top out (a capacity, or 1 for a
	// fraction); 0 lets the data set it.
	YMax float64
	// Scale names the y scale this panel shares with others (Axes.Scale).
	Scale string
	// XMax, when after the last bin's end, is where the time axis ends;
	// XScale names that shared axis (Axes.XScale).
	XMax   float64
	XScale string
}

// Draw draws a in the rectangle (x, y, w, h) of d with a legend.
func (a StackedArea) Draw(d *Doc, x, y, w, h float64) {
	n := min(len(a.Start), len(a.End))
	tops := make([][]float64, len(a.Values)) // tops[k][i]: Σ_{j≤k} Values[j][i]
	top := a.YMax
	for k, row := range a.Values {
		tops[k] = make([]float64, n)
		for i := range n {
			if k > 0 {
				tops[k][i] = tops[k-1][i]
			}
			tops[k][i] += math.Max(at(row, i), 0)
			top = math.Max(top, tops[k][i])
		}
	}
	xmin, xmax := 0.0, 1.0
	if n > 0 {
		xmin, xmax = a.Start[0], a.End[n-1]
	}
	xmax = math.Max(xmax, a.XMax)
	ax := panelAxes(d, x, y, w, h, a.Title, legendRows(a.Names, w), [4]float64{xmin, xmax, 0, top})
	ax.Scale, ax.XScale = a.Scale, a.XScale
	ax.Draw(d, a.XLabel, a.YLabel)
	for k := len(tops) - 1; k >= 0; k-- {
		var px, py []float64
		for i := range n {
			v := ax.PY(tops[k][i])
			px, py = append(px, ax.PX(a.Start[i]), ax.PX(a.End[i])), append(py, v, v)
		}
		if n > 0 {
			px, py = append(px, ax.PX(a.End[n-1]), ax.PX(a.Start[0])), append(py, ax.PY(0), ax.PY(0))
		}
		d.Polyline(px, py, Style{Class: a.Class, Fill: a.Colours[k], Tip: a.Names[k]})
	}
	panelLegend(d, x, y, w, h, a.Names, a.Colours, nil)
}

// at is row[i], or 0 past the row's end.
func at(row []float64, i int) float64 {
	if i < len(row) {
		return row[i]
	}
	return 0
}
