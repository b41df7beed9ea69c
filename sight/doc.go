// Package sight draws X-Sight's pictures of xflex answers as SVG documents
// (the xflex paper, section 2.1: cluster utilisation over time by
// application, the sharing imbalance of a pair of applications, and the
// vector packing of containers into nodes with their owners and users).
//
// It is a library like ptas/ and vecpack/: it knows SVG, colours and view
// layouts, never solver/ or httpapi/. Each problem's picture.go reads its
// request and response and calls the views here.
//
// Pictures are laid out for the web page: at most PageWidth units wide,
// with no text under MinText (Composite wraps panels onto rows, Packing
// wraps its columns), and panels that are compared share a scale, whose
// tick labels carry the class "scale-NAME" (Axes.Scale, Axes.XScale).
//
// Every document has a viewBox, a <title> and a <desc>; text is <text>,
// XML-escaped; numbers are written with at most two decimals, so the same
// drawing calls give the same bytes. Elements a test counts carry a class
// (Style.Class), e.g. "node", "bar", "gantt-row".
//
// Line and CDF plots are drawn here, not with gonum.org/v1/plot. Measured
// (v0.17.0, its vg/vgsvg backend, 2 lines of 200 points with axes and a
// legend): it writes text as escaped <text> and a viewBox (in points), and
// the file is small (9.8 KB); but it has no <title> or <desc>, and no way
// to put a class on an element (vgsvg's writer is private and vg.Canvas
// knows only paths and text), so a test could not count the lines; every
// text carries its own transform under a y-flipped group; and importing
// plot links its Liberation fonts (needed for its text metrics): a
// binary that only places ticks with it is 9.8 MB against 2.4 MB for
// hello world (11.2 MB drawing through vgsvg). Axes (plot.go) place
// Heckbert's nice-number ticks in 40 lines instead.
package sight

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PageWidth is the width, in user units, pictures are laid out to fit:
// the web page gives a picture about 730 CSS pixels at its default widths
// (1280 and 800 px windows), so a picture at most this wide is shown at
// its own size or a little smaller, never upscaled. Composites wrap their
// panels onto rows of at most this width (compose), packing views wrap
// their columns, and single panels are drawn no wider.
const PageWidth = 720

// MinText is the smallest font size, in user units, any text is written
// in: at PageWidth inside a 730 px pane a unit is at least 0.98 px, so text
// renders at 11.7 px or more (the page's floor is 11 px).
const MinText = 12

// Doc is an SVG document under construction: a canvas of W by H user
// units (the viewBox), its title and description, and the elements drawn
// so far. Draw with its methods and take the document with Bytes.
type Doc struct {
	W, H  float64
	title string
	desc  string
	body  bytes.Buffer
	open  int
}

// New starts a document of w by h units with a title (shown by viewers as
// the picture's name) and a description (what it shows, and any
// aggregation, for readers who cannot see it).
func New(w, h float64, title, desc string) *Doc {
	return &Doc{W: w, H: h, title: title, desc: desc}
}

// Style is the presentation of one element. Zero fields are left out, so
// an element inherits them (fill defaults to black in SVG).
type Style struct {
	// Class names the element's kind for CSS and for tests that count
	// elements (e.g. "node", "bar", "gantt-row").
	Class string
	// Fill and Stroke are colours ("#E69F00", "none").
	Fill, Stroke string
	// StrokeWidth is the stroke's width in user units.
	StrokeWidth float64
	// Opacity is the fill's opacity in (0, 1); 0 means opaque.
	Opacity float64
	// Dash is a stroke-dasharray ("4 2").
	Dash string
	// Anchor is the text-anchor of a text: "start" (default), "middle" or
	// "end".
	Anchor string
	// Size is a text's font size in user units (default 12); Text never
	// writes less than MinText.
	Size float64
	// Tip is a tooltip: a <title> child, which viewers show on hover.
	Tip string
	// Rotate turns a text clockwise by this many degrees about its
	// anchor point (labels under narrow columns).
	Rotate float64
}

// attrs writes s's attributes.
func (s Style) attrs(b *bytes.Buffer) {
	attr(b, "class", s.Class)
	attr(b, "fill", s.Fill)
	attr(b, "stroke", s.Stroke)
	if s.StrokeWidth > 0 {
		attr(b, "stroke-width", Num(s.StrokeWidth))
	}
	if s.Opacity > 0 && s.Opacity < 1 {
		attr(b, "fill-opacity", Num(s.Opacity))
	}
	attr(b, "stroke-dasharray", s.Dash)
	attr(b, "text-anchor", s.Anchor)
	if s.Size > 0 {
		attr(b, "font-size", Num(s.Size))
	}
}

// attr writes ` name="value"` (escaped), nothing for an empty value.
func attr(b *bytes.Buffer, name, value string) {
	if value == "" {
		return
	}
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteString(`="`)
	b.WriteString(Escape(value))
	b.WriteByte('"')
}

// Num formats a coordinate with at most two decimals and no exponent:
// the same value, the same text, and no NaN or infinity in the document
// (they become 0).
func Num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	r := v
	if math.Abs(v) < 1e12 { // beyond, v*100 loses the last digits
		r = math.Round(v*100) / 100
	}
	if r == 0 {
		return "0" // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// TextWidth estimates the width of s in a sans-serif font of the given
// size (0.6 em a character): enough to size a canvas so text fits.
func TextWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// Escape returns s with the XML specials (& < > " ') escaped and the
// characters XML 1.0 forbids (control characters but tab and newlines,
// invalid UTF-8, U+FFFE and U+FFFF) replaced by U+FFFD, so any name from a
// request is safe in text and attributes.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t' || r == '\n' || r == '\r':
			fmt.Fprintf(&b, "&#%d;", r)
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || r == 0xFFFD || (r >= 0xD800 && r <= 0xDFFF):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// open writes the start of an element with s's attributes and the extra
// attributes kv (name, value pairs), leaving the tag open.
func (d *Doc) start(name string, s Style, kv ...string) {
	d.body.WriteByte('<')
	d.body.WriteString(name)
	for i := 0; i+1 < len(kv); i += 2 {
		attr(&d.body, kv[i], kv[i+1])
	}
	s.attrs(&d.body)
}

// finish closes an element begun by start: with its tooltip as a
// <title> child when s has one, self-closed otherwise.
func (d *Doc) finish(name string, s Style) {
	if s.Tip == "" {
		d.body.WriteString("/>\n")
		return
	}
	d.body.WriteString("><title>")
	d.body.WriteString(Escape(s.Tip))
	d.body.WriteString("</title></")
	d.body.WriteString(name)
	d.body.WriteString(">\n")
}

// Rect draws a rectangle with its top-left corner at (x, y). A negative
// width or height is drawn as zero.
func (d *Doc) Rect(x, y, w, h float64, s Style) {
	d.start("rect", s, "x", Num(x), "y", Num(y), "width", Num(max(w, 0)), "height", Num(max(h, 0)))
	d.finish("rect", s)
}

// Line draws a segment from (x1, y1) to (x2, y2); give it a Stroke.
func (d *Doc) Line(x1, y1, x2, y2 float64, s Style) {
	d.start("line", s, "x1", Num(x1), "y1", Num(y1), "x2", Num(x2), "y2", Num(y2))
	d.finish("line", s)
}

// Polyline draws the open path through xs[i], ys[i] (fill none unless s
// says otherwise); the shorter slice bounds it.
func (d *Doc) Polyline(xs, ys []float64, s Style) {
	var pts strings.Builder
	for i := range min(len(xs), len(ys)) {
		if i > 0 {
			pts.WriteByte(' ')
		}
		pts.WriteString(Num(xs[i]))
		pts.WriteByte(',')
		pts.WriteString(Num(ys[i]))
	}
	if s.Fill == "" {
		s.Fill = "none"
	}
	d.start("polyline", s, "points", pts.String())
	d.finish("polyline", s)
}

// Circle draws a circle of radius r centred at (cx, cy).
func (d *Doc) Circle(cx, cy, r float64, s Style) {
	d.start("circle", s, "cx", Num(cx), "cy", Num(cy), "r", Num(r))
	d.finish("circle", s)
}

// Text writes str with its baseline starting at (x, y) (see Style.Anchor),
// in a font of s.Size but never smaller than MinText.
func (d *Doc) Text(x, y float64, str string, s Style) {
	if s.Size > 0 && s.Size < MinText {
		s.Size = MinText
	}
	rot := ""
	if s.Rotate != 0 {
		rot = "rotate(" + Num(s.Rotate) + " " + Num(x) + " " + Num(y) + ")"
	}
	d.start("text", s, "x", Num(x), "y", Num(y), "transform", rot)
	d.body.WriteByte('>')
	d.body.WriteString(Escape(str))
	if s.Tip != "" {
		d.body.WriteString("<title>")
		d.body.WriteString(Escape(s.Tip))
		d.body.WriteString("</title>")
	}
	d.body.WriteString("</text>\n")
}

// Group opens a <g> translated by (dx, dy) with s's attributes, which its
// children inherit; close it with End.
func (d *Doc) Group(dx, dy float64, s Style) {
	tr := ""
	if dx != 0 || dy != 0 {
		tr = "translate(" + Num(dx) + "," + Num(dy) + ")"
	}
	d.start("g", s, "transform", tr)
	d.body.WriteString(">\n")
	if s.Tip != "" {
		d.body.WriteString("<title>" + Escape(s.Tip) + "</title>\n")
	}
	d.open++
}

// End closes the innermost open Group.
func (d *Doc) End() {
	if d.open == 0 {
		return
	}
	d.body.WriteString("</g>\n")
	d.open--
}

// Bytes is the complete document: the XML declaration, the <svg> root
// with its viewBox, <title>, <desc>, a default font, and what was drawn,
// with any Group left open closed.
func (d *Doc) Bytes() []byte {
	for d.open > 0 {
		d.End()
	}
	var b bytes.Buffer
	b.Grow(d.body.Len() + 512)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	d.root(&b, "")
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// root writes the <svg> element's start, title, desc and body (without
// the closing tag); pos is extra attributes (a nested panel's x and y).
func (d *Doc) root(b *bytes.Buffer, pos string) {
	w, h := Num(d.W), Num(d.H)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg"%s width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n", pos, w, h, w, h)
	b.WriteString("<title>" + Escape(d.title) + "</title>\n")
	b.WriteString("<desc>" + Escape(d.desc) + "</desc>\n")
	b.Write(d.body.Bytes())
}
