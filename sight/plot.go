package sight

import (
	"math"
	"strconv"
)

// Axes maps data coordinates into a plot area of a Doc (X, Y is its
// top-left corner, W by H its size) and draws the frame, the ticks with
// their labels and the axis titles around it. Data ranges are widened
// when empty so a single value still gets a visible scale.
type Axes struct {
	X, Y, W, H             float64
	XMin, XMax, YMin, YMax float64
	// Scale names the scale this plot shares with other panels (drawn on
	// the same y range so they compare at a glance): the y tick labels get
	// the classes "ytick" and "scale-"+Scale, so a test (or a reader's
	// script) can check the panels agree. Empty: the ticks are "ytick".
	Scale string
	// XScale is Scale for the x axis (tick labels "xtick").
	XScale string
}

// NewAxes returns the axes of the plot area (x, y, w, h) for the data
// ranges [xmin, xmax] and [ymin, ymax]; a range that is empty or not
// finite becomes a unit range around its lower end (or 0).
func NewAxes(x, y, w, h, xmin, xmax, ymin, ymax float64) Axes {
	xmin, xmax = widen(xmin, xmax)
	ymin, ymax = widen(ymin, ymax)
	return Axes{X: x, Y: y, W: w, H: h, XMin: xmin, XMax: xmax, YMin: ymin, YMax: ymax}
}

// widen makes [lo, hi] a finite range of positive length.
func widen(lo, hi float64) (float64, float64) {
	if math.IsNaN(lo) || math.IsInf(lo, 0) {
		lo = 0
	}
	if math.IsNaN(hi) || math.IsInf(hi, 0) || hi <= lo {
		hi = lo + math.Max(1, math.Abs(lo))
	}
	return lo, hi
}

// PX is the document x of data value v.
func (a Axes) PX(v float64) float64 {
	return a.X + (v-a.XMin)/(a.XMax-a.XMin)*a.W
}

// PY is the document y of data value v (up is larger).
func (a Axes) PY(v float64) float64 {
	return a.Y + a.H - (v-a.YMin)/(a.YMax-a.YMin)*a.H
}

// tickCount is how many intervals an axis aims for: enough to read a
// value off, few enough that the labels of a 300-unit axis do not touch.
const tickCount = 5

// Draw draws the frame, light grid lines at the ticks, the tick labels
// and the axis titles: xlabel centred below, ylabel above the top-left
// corner (horizontal, so it needs no rotation to read).
func (a Axes) Draw(d *Doc, xlabel, ylabel string) {
	label := Style{Class: "xtick", Fill: Ink, Size: MinText, Anchor: "middle"}
	if a.XScale != "" {
		label.Class += " scale-" + a.XScale
	}
	for _, v := range Ticks(a.XMin, a.XMax, tickCount) {
		px := a.PX(v)
		d.Line(px, a.Y, px, a.Y+a.H, Style{Stroke: Faint})
		d.Text(px, a.Y+a.H+14, TickLabel(v, a.XMax-a.XMin), label)
	}
	label.Anchor, label.Class = "end", "ytick"
	if a.Scale != "" {
		label.Class += " scale-" + a.Scale
	}
	for _, v := range Ticks(a.YMin, a.YMax, tickCount) {
		py := a.PY(v)
		d.Line(a.X, py, a.X+a.W, py, Style{Stroke: Faint})
		d.Text(a.X-4, py+4, TickLabel(v, a.YMax-a.YMin), label)
	}
	d.Rect(a.X, a.Y, a.W, a.H, Style{Fill: "none", Stroke: Ink})
	d.Text(a.X+a.W/2, a.Y+a.H+30, xlabel, Style{Fill: Ink, Anchor: "middle", Size: MinText})
	d.Text(a.X, a.Y-6, ylabel, Style{Fill: Ink, Size: MinText})
}

// Ticks returns the round values ("nice numbers": 1, 2 or 5 times a power
// of ten apart) in [lo, hi], about n intervals of them (Heckbert,
// "Nice numbers for graph labels", Graphics Gems, 1990).
func Ticks(lo, hi float64, n int) []float64 {
	step := niceStep((hi - lo) / float64(max(n, 1))) // gantt_draw.go
	if !(hi >= lo) || (hi-lo)/step > 100*float64(max(n, 1)) {
		return nil // an empty or non-finite range
	}
	var ts []float64
	for k := math.Ceil(lo / step); k*step <= hi+step*tickRoundOff; k++ {
		ts = append(ts, k*step)
	}
	return ts
}

// TickLabel formats tick value v of an axis spanning span: as many
// decimals as the tick step needs, exponent form past a million.
func TickLabel(v, span float64) string {
	if math.Abs(v) < span*tickRoundOff {
		v = 0
	}
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	step := niceStep(span / tickCount)
	dec := max(0, int(-math.Floor(math.Log10(step))))
	return strconv.FormatFloat(v, 'f', dec, 64)
}
