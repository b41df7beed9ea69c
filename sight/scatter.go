package sight

import (
	"fmt"
	"math"
	"strconv"
)

// Bin merges points that fall in the same cell of a cells × cells grid
// over their bounding box into one point at their weighted mean, of
// their summed weight, in the group of the heaviest (first on ties), in
// order of first appearance: a scatter of a million requests stays a few
// thousand circles and keeps all the weight.
func Bin(ps []Point, cells int) []Point {
	xmax, ymax := 0.0, 0.0
	for _, p := range ps {
		xmax, ymax = math.Max(xmax, p.X), math.Max(ymax, p.Y)
	}
	type acc struct {
		p      Point
		sx, sy float64 // weighted sums of x and y
		px, py float64 // plain sums, for weightless cells
		n      int
		heavy  float64
	}
	var out []*acc
	at := map[[2]int]*acc{}
	for _, p := range ps {
		key := [2]int{cell(p.X, xmax, cells), cell(p.Y, ymax, cells)}
		a := at[key]
		if a == nil {
			a = &acc{p: Point{Group: p.Group}, heavy: p.W}
			at[key] = a
			out = append(out, a)
		}
		w := math.Max(p.W, 0)
		a.p.W += w
		a.sx, a.sy, a.n = a.sx+w*p.X, a.sy+w*p.Y, a.n+1
		a.px, a.py = a.px+p.X, a.py+p.Y
		if p.W > a.heavy {
			a.p.Group, a.heavy = p.Group, p.W
		}
	}
	bins := make([]Point, len(out))
	for i, a := range out {
		if a.p.W > 0 {
			a.p.X, a.p.Y = a.sx/a.p.W, a.sy/a.p.W
		} else {
			a.p.X, a.p.Y = a.px/float64(a.n), a.py/float64(a.n)
		}
		a.p.Tip = fmt.Sprintf("%d requests, weight %s", a.n, Value(a.p.W))
		bins[i] = a.p
	}
	return bins
}

// cell is v's cell of cells over [0, hi].
func cell(v, hi float64, cells int) int {
	if hi <= 0 {
		return 0
	}
	return min(cells-1, max(0, int(v/hi*float64(cells))))
}

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
	maxRadius = 7
	minRadius = 1.5
)

// Draw draws s in the rectangle (x, y, w, h) of d. The shapes' legend is
// the caller's (small multiples share one).
func (s Scatter) Draw(d *Doc, x, y, w, h float64) {
	xmax, ymax, wmax := 0.0, 0.0, 0.0
	for _, p := range s.Points {
		xmax, ymax, wmax = math.Max(xmax, p.X), math.Max(ymax, p.Y), math.Max(wmax, p.W)
	}
	for _, c := range s.Corners {
		xmax, ymax = math.Max(xmax, c.X), math.Max(ymax, c.Y)
	}
	a := panelAxes(d, x, y, w, h, s.Title, 0, [4]float64{0, xmax * 1.05, 0, ymax * 1.05})
	a.Draw(d, s.XLabel, s.YLabel)
	for i, c := range s.Corners {
		col := Colour(i)
		t := math.Min(ratio(a.XMax, c.X), ratio(a.YMax, c.Y))
		d.Line(a.PX(0), a.PY(0), a.PX(c.X*t), a.PY(c.Y*t), Style{Class: "ray", Stroke: col, Dash: "2 3", Tip: c.Label})
		d.Rect(a.PX(0), a.PY(c.Y), a.PX(c.X)-a.PX(0), a.PY(0)-a.PY(c.Y), Style{Fill: "none", Stroke: col, Dash: "6 3"})
	}
	d.Group(0, 0, Style{Stroke: Ink, StrokeWidth: 0.3, Opacity: 0.6}) // shared by every circle: fewer bytes
	for _, p := range s.Points {
		r := minRadius
		if wmax > 0 {
			r = math.Max(minRadius, maxRadius*math.Sqrt(math.Max(p.W, 0)/wmax))
		}
		d.Circle(a.PX(p.X), a.PY(p.Y), r, Style{Class: "request", Fill: Colour(p.Group), Tip: p.Tip})
	}
	d.End()
	for i, c := range s.Corners {
		d.Rect(a.PX(c.X)-3.5, a.PY(c.Y)-3.5, 7, 7, Style{Class: "shape", Fill: Colour(i), Stroke: Ink, Tip: c.Label})
		if len(s.Corners) > len(Palette) { // past the palette colours repeat: number the shapes
			d.Text(a.PX(c.X)+5, a.PY(c.Y)-4, strconv.Itoa(i), Style{Fill: Ink, Size: MinText})
		}
	}
}

// ratio is lim/v, or +Inf when v is not positive (a ray along an axis).
func ratio(lim, v float64) float64 {
	if v <= 0 {
		return math.Inf(1)
	}
	return lim / v
}
