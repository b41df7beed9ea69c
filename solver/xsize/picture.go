package xsize

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// Picture limits: at most maxResources resources get a panel per pair
// (15 panels), in rows of panelsPerRow; past maxCircles/panels requests
// (a circle with its tooltip is about 150 bytes) each panel bins them on
// a grid of at most that many cells.
const (
	maxResources = 6
	panelsPerRow = 3
	maxCircles   = 1500
	panelSize    = 240 // three to a row fill sight.PageWidth
	soloSize     = 440 // the one panel of one or two resources
)

// binCells is the side of the grid a panel of n requests is binned on
// when it draws one of panels, or 0 when it draws every request.
func binCells(n, panels int) int {
	limit := maxCircles / panels
	if n <= limit {
		return 0
	}
	return int(math.Sqrt(float64(limit)))
}

// picture draws an X-Size answer: the requests as circles of area by
// weight, coloured by the shape that serves them, and the K shapes, each
// with the ray from the origin through it and the rectangle it covers.
// Two resources make one panel; more make one panel per pair of
// resources (a projection each, small multiples); one resource puts the
// weight on the y axis.
func picture(request, response json.RawMessage) ([]byte, error) {
	req, result, _, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, fmt.Errorf("xsize picture: %w", err)
	}
	res := &result
	dims := min(len(req.Resources), maxResources)
	pairs := resourcePairs(dims)
	perRow := min(len(pairs), panelsPerRow)
	rows := (len(pairs) + perRow - 1) / perRow
	size := float64(panelSize)
	if len(pairs) == 1 {
		size = soloSize
	}
	legendY := 30 + float64(rows)*size + 10
	notes := pictureNotes(&req, dims, binCells(len(req.Requests), len(pairs)))
	head := fmt.Sprintf("X-Size: %d shapes, cost %s (lower bound %s, %s)", len(res.Shapes), sight.Value(res.Cost), sight.Value(res.LowerBound), res.Method)
	names, colours := make([]string, len(res.Shapes)), make([]string, len(res.Shapes))
	textW := sight.TextWidth(head, 14)
	for i := range res.Shapes {
		names[i], colours[i] = shapeLabel(&req, res, i), sight.Colour(i)
		textW = math.Max(textW, 44+sight.TextWidth(names[i], sight.MinText))
	}
	w := math.Min(math.Max(float64(perRow)*size, textW+16), sight.PageWidth)
	d := sight.New(w, legendY+float64(len(res.Shapes))*16+8, "X-Size: "+fmt.Sprint(len(res.Shapes))+" container shapes", pictureDesc(&req, res, dims, notes))
	d.Text(8, 18, head, sight.Style{Fill: sight.Ink, Size: 14})
	for n, pr := range pairs {
		s := projection(&req, res, pr)
		if cells := binCells(len(req.Requests), len(pairs)); cells > 0 {
			s.Points = sight.Bin(s.Points, cells)
		}
		s.Draw(d, float64(n%perRow)*size, 30+float64(n/perRow)*size, size, size)
	}
	d.Legend(52, legendY, 16, names, colours)
	d.Footnote(notes)
	return d.Bytes(), nil
}

// resourcePairs lists the panels' axes: (0, 1), (0, 2), ... (dims-2,
// dims-1); one resource is the single pair (0, -1), weight on y.
func resourcePairs(dims int) [][2]int {
	if dims < 2 {
		return [][2]int{{0, -1}}
	}
	var ps [][2]int
	for i := range dims {
		for j := i + 1; j < dims; j++ {
			ps = append(ps, [2]int{i, j})
		}
	}
	return ps
}

// projection is the scatter of resources pr[0] (x) and pr[1] (y; -1 for
// the request weights).
func projection(req *Request, res *Result, pr [2]int) sight.Scatter {
	s := sight.Scatter{XLabel: resourceName(req, pr[0]), YLabel: "weight"}
	if pr[1] >= 0 {
		s.YLabel = resourceName(req, pr[1])
		s.Title = s.XLabel + " × " + s.YLabel
	}
	for i, r := range req.Requests {
		w := 1.0
		if r.Weight != nil {
			w = *r.Weight
		}
		g := -1
		if i < len(res.Assignment) {
			g = res.Assignment[i]
		}
		p := sight.Point{X: coord(r.Size, pr[0]), Y: w, W: w, Group: g, Tip: requestTip(req, i, w, g)}
		if pr[1] >= 0 {
			p.Y = coord(r.Size, pr[1])
		}
		s.Points = append(s.Points, p)
	}
	for i, sh := range res.Shapes {
		c := sight.Corner{X: coord(sh.Size, pr[0]), Label: shapeLabel(req, res, i)}
		if pr[1] >= 0 {
			c.Y = coord(sh.Size, pr[1])
		}
		s.Corners = append(s.Corners, c)
	}
	return s
}

// resourceName is resource i's name, or "r<i>" past the request's list
// (an answer that does not match its request).
func resourceName(req *Request, i int) string {
	if i < len(req.Resources) {
		return req.Resources[i]
	}
	return fmt.Sprintf("r%d", i)
}

// coord is v[i], or 0 when v is shorter (an answer that does not match
// its request draws, wrongly, rather than failing).
func coord(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// requestTip names request i (its name or index), size, weight and shape.
func requestTip(req *Request, i int, w float64, g int) string {
	name := req.Requests[i].Name
	if name == "" {
		name = fmt.Sprintf("request %d", i)
	}
	return fmt.Sprintf("%s %s, weight %s, shape %d", name, sizeText(req.Requests[i].Size), sight.Value(w), g)
}

// shapeLabel is shape i's legend entry: its size and the weight it serves.
func shapeLabel(req *Request, res *Result, i int) string {
	sh := res.Shapes[i]
	return fmt.Sprintf("shape %d %s: %d requests, weight %s", i, sizeText(sh.Size), sh.Requests, sight.Value(sh.Weight))
}

// sizeText writes a size vector as [a, b, ...].
func sizeText(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = sight.Value(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pictureDesc is the picture's desc: what is drawn and what was left out.
func pictureDesc(req *Request, res *Result, dims int, notes []string) string {
	desc := fmt.Sprintf("%d requests over %d resources (%s) served by %d shapes (%s, ε %s, cost %s, lower bound %s); circles' area is the request weight, colour the shape serving it; each shape is drawn with its ray from the origin and the rectangle it covers",
		len(req.Requests), len(req.Resources), strings.Join(req.Resources, ", "), len(res.Shapes), res.Method, sight.Value(res.Epsilon), sight.Value(res.Cost), sight.Value(res.LowerBound))
	if dims >= 3 {
		desc += fmt.Sprintf("; one projection per pair of the first %d resources", dims)
	}
	return desc + "." + sight.Notes(notes)
}

// pictureNotes says what the picture leaves out or merges: resources
// past the first dims, requests binned on a cells × cells grid.
func pictureNotes(req *Request, dims, cells int) []string {
	var notes []string
	if len(req.Resources) > dims {
		notes = append(notes, fmt.Sprintf("the other %d resources are not drawn", len(req.Resources)-dims))
	}
	if cells > 0 {
		notes = append(notes, fmt.Sprintf("requests are binned on a %d×%d grid per panel (a circle per occupied cell, its total weight, the colour of its heaviest request)", cells, cells))
	}
	return notes
}
