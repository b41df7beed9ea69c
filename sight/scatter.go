package sight

import "math"

// Point is one weighted request of a Scatter at (X, Y); W sets its
// circle's area and Group (an index into the scatter's corners, or -1)
// its colour.
type Point struct {
	X, Y, W float64
	Group   int
	Tip     string
}

// Corner is a container shape's corner at (X, Y): the shape covers the
// rectangle from the origin to it, and lies on the ray from the origin
// through it.
type Corner struct {
	X, Y  float64
	Label string
}

// Scatter is X-Size's picture in two resources: the requests as circles
// of area proportional to their weight, coloured by the shape that
// serves them, and each shape as its corner (class "shape"), the
// rectangle it covers (dashed) and its ray from the origin (class "ray").
// Requests are circles of class "request".
type Scatter struct {
	Title, XLabel, YLabel string
	Points                []Point
	Corners               []Corner
}

// Circle radii of the heaviest and lightest requests, in user units.
const (
	maxRadius = 9
	minRadius = 1.5
)

// Draw draws s in the rectangle (x, y, w, h) of d, with a legend of its
// shapes when legend is true.
func (s Scatter) Draw(d *Doc, x, y, w, h float64, legend bool) {
	xmax, ymax, wmax := 0.0, 0.0, 0.0
	for _, p := range s.Points {
		xmax, ymax, wmax = math.Max(xmax, p.X), math.Max(ymax, p.Y), math.Max(wmax, p.W)
	}
	for _, c := range s.Corners {
		xmax, ymax = math.Max(xmax, c.X), math.Max(ymax, c.Y)
	}
	rows := 0
	if legend {
		rows = len(s.Corners)
	}
	a := panelAxes(d, x, y, w, h, s.Title, rows, [4]float64{0, xmax * 1.05, 0, ymax * 1.05})
	a.Draw(d, s.XLabel, s.YLabel)
	for i, c := range s.Corners {
		col := Colour(i)
		t := math.Min(ratio(a.XMax, c.X), ratio(a.YMax, c.Y))
		d.Line(a.PX(0), a.PY(0), a.PX(c.X*t), a.PY(c.Y*t), Style{Class: "ray", Stroke: col, Dash: "2 3", Tip: c.Label})
		d.Rect(a.PX(0), a.PY(c.Y), a.PX(c.X)-a.PX(0), a.PY(0)-a.PY(c.Y), Style{Fill: "none", Stroke: col, Dash: "6 3"})
	}
	for _, p := range s.Points {
		r := minRadius
		if wmax > 0 {
			r = math.Max(minRadius, maxRadius*math.Sqrt(math.Max(p.W, 0)/wmax))
		}
		d.Circle(a.PX(p.X), a.PY(p.Y), r, Style{Class: "request", Fill: Colour(p.Group), Opacity: 0.6, Stroke: Ink, StrokeWidth: 0.3, Tip: p.Tip})
	}
	names, colours := make([]string, 0, rows), make([]string, 0, rows)
	for i, c := range s.Corners {
		d.Rect(a.PX(c.X)-3.5, a.PY(c.Y)-3.5, 7, 7, Style{Class: "shape", Fill: Colour(i), Stroke: Ink, Tip: c.Label})
		if legend {
			names, colours = append(names, c.Label), append(colours, Colour(i))
		}
	}
	d.Legend(x+panelLeft, y+h-float64(rows)*legendRow, legendRow, names, colours)
}

// ratio is lim/v, or +Inf when v is not positive (a ray along an axis).
func ratio(lim, v float64) float64 {
	if v <= 0 {
		return math.Inf(1)
	}
	return lim / v
}
