package sight

import (
	"cmp"
	"math"
	"slices"
)

// Red is the colour of the zone where a pair's imbalance has reached its
// sharing bound and the creditor may preempt (Okabe–Ito vermillion).
const Red = "#D55E00"

// Imbalance is X-Sight's second view (the xflex paper, Figure 2): the
// sharing imbalance of applications A and B over time, a piecewise
// linear curve through (T[i], S[i]) (S > 0: B is in debt to A). The
// centre line is perfect balance, the dashed lines ±Bound; the area
// between the centre and the curve is shaded in the borrower's colour
// (ColourB above the centre, ColourA below) up to ±Bound, and red beyond,
// where the creditor may preempt.
//
// Counted classes: "imbalance-line" (the curve), "centre-line",
// "bound-line" (two), "red-zone" (two polygons, possibly empty).
type Imbalance struct {
	Title            string
	A, B             string
	ColourA, ColourB string
	Bound            float64
	T, S             []float64
	// TimeLabel titles the time axis with its unit ("time" when empty).
	TimeLabel string
	// XMax, when after the curve's last time, is where the time axis
	// ends; XScale names that shared axis (Axes.XScale).
	XMax   float64
	XScale string
}

// Draw draws m in the rectangle (x, y, w, h) of d with its legend.
func (m Imbalance) Draw(d *Doc, x, y, w, h float64) {
	ts, ss := splitAt(m.T, m.S, []float64{-m.Bound, 0, m.Bound})
	top := m.Bound
	for _, s := range ss {
		top = math.Max(top, math.Abs(s))
	}
	top = math.Max(top*1.1, math.SmallestNonzeroFloat64)
	xmin, xmax := 0.0, 1.0
	if len(ts) > 0 {
		xmin, xmax = ts[0], ts[len(ts)-1]
	}
	xmax = math.Max(xmax, m.XMax)
	names := []string{m.B + " borrows (in debt to " + m.A + ")", m.A + " borrows (in debt to " + m.B + ")", "beyond ±Δ: the lender may preempt"}
	a := panelAxes(d, x, y, w, h, m.Title, legendRows(names, w), [4]float64{xmin, xmax, -top, top})
	a.XScale = m.XScale
	a.Draw(d, cmp.Or(m.TimeLabel, "time"), "imbalance ("+m.B+"'s debt to "+m.A+")")
	zones := []struct {
		lo, hi  float64
		colour  string
		class   string
		opacity float64
	}{
		{0, m.Bound, m.ColourB, "borrow-zone", 0.3},
		{-m.Bound, 0, m.ColourA, "borrow-zone", 0.3},
		{m.Bound, math.Inf(1), Red, "red-zone", 0.8},
		{math.Inf(-1), -m.Bound, Red, "red-zone", 0.8},
	}
	for _, z := range zones {
		base := math.Max(z.lo, math.Min(z.hi, 0)) // the zone's edge nearest the centre
		px, py := band(a, ts, ss, z.lo, z.hi, base)
		d.Polyline(px, py, Style{Class: z.class, Fill: z.colour, Opacity: z.opacity})
	}
	d.Line(a.X, a.PY(0), a.X+a.W, a.PY(0), Style{Class: "centre-line", Stroke: Ink})
	for _, b := range []float64{m.Bound, -m.Bound} {
		d.Line(a.X, a.PY(b), a.X+a.W, a.PY(b), Style{Class: "bound-line", Stroke: Ink, Dash: "5 3"})
	}
	px, py := make([]float64, len(ts)), make([]float64, len(ts))
	for i := range ts {
		px[i], py[i] = a.PX(ts[i]), a.PY(ss[i])
	}
	d.Polyline(px, py, Style{Class: "imbalance-line", Stroke: Ink, StrokeWidth: 1.5, Tip: m.A + " / " + m.B})
	panelLegend(d, x, y, w, h, names, []string{m.ColourB, m.ColourA, Red}, nil)
}

// band is the polygon between the curve clamped to [lo, hi] and the
// horizontal line at base, in document coordinates. The curve must
// already be split where it crosses lo and hi, so clamping its vertices
// clamps it exactly.
func band(a Axes, ts, ss []float64, lo, hi, base float64) ([]float64, []float64) {
	var px, py []float64
	for i := range ts {
		px, py = append(px, a.PX(ts[i])), append(py, a.PY(math.Max(lo, math.Min(hi, ss[i]))))
	}
	if len(ts) > 0 {
		px, py = append(px, a.PX(ts[len(ts)-1]), a.PX(ts[0])), append(py, a.PY(base), a.PY(base))
	}
	return px, py
}

// splitAt adds to the polyline (ts, ss) a vertex wherever a segment
// crosses one of levels, so between two vertices the curve stays on one
// side of every level.
func splitAt(ts, ss []float64, levels []float64) ([]float64, []float64) {
	n := min(len(ts), len(ss))
	if n == 0 {
		return nil, nil
	}
	ot, os := []float64{ts[0]}, []float64{ss[0]}
	for i := 1; i < n; i++ {
		t0, s0, t1, s1 := ts[i-1], ss[i-1], ts[i], ss[i]
		var cuts []float64
		for _, l := range levels {
			if (s0 < l && l < s1) || (s1 < l && l < s0) {
				cuts = append(cuts, (l-s0)/(s1-s0))
			}
		}
		slices.Sort(cuts)
		for _, f := range cuts {
			ot, os = append(ot, t0+f*(t1-t0)), append(os, s0+f*(s1-s0))
		}
		ot, os = append(ot, t1), append(os, s1)
	}
	return ot, os
}

// PiecewiseLinear turns a series of points (T[i], Share[i]) each with the
// Slope it keeps until the next point (the last until end) into the
// vertices of its polyline, a jump drawn as a vertical step. Past
// maxPoints vertices it samples the curve at maxPoints evenly spaced
// times instead (thinned true), which keeps its shape at the picture's
// resolution.
func PiecewiseLinear(t, share, slope []float64, end float64, maxPoints int) (ts, ss []float64, thinned bool) {
	n := min(len(t), len(share), len(slope))
	at := func(i int, x float64) float64 { return share[i] + slope[i]*(x-t[i]) }
	for i := range n {
		next := end
		if i+1 < n {
			next = t[i+1]
		}
		next = math.Max(next, t[i])
		ts, ss = append(ts, t[i], next), append(ss, share[i], at(i, next))
	}
	if len(ts) <= maxPoints || maxPoints < 2 {
		return ts, ss, false
	}
	lo, hi := ts[0], ts[len(ts)-1]
	st, sv := make([]float64, maxPoints), make([]float64, maxPoints)
	i := 0
	for k := range maxPoints {
		x := lo + (hi-lo)*float64(k)/float64(maxPoints-1)
		for i+1 < n && t[i+1] <= x {
			i++
		}
		st[k], sv[k] = x, at(i, x)
	}
	return st, sv, true
}
