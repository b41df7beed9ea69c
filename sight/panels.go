package sight

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// SideBySide lays complete SVG documents (as Doc.Bytes or another
// SideBySide writes them) left to right, top-aligned, gap units apart,
// wrapping onto a new row where the next panel would pass PageWidth, in
// one document with its own title and description. Each panel keeps its
// own viewBox, title and desc as a nested <svg class="panel">, so what a
// test counts in a panel it counts the same in the composite.
func SideBySide(title, desc string, gap float64, panels ...[]byte) ([]byte, error) {
	return Composite{Title: title, Desc: desc, Gap: gap, Panels: panels}.Bytes()
}

// Labelled is SideBySide with a caption above each panel (labels[i] over
// panels[i], class "panel-label"): a scenario's variants are drawn this
// way, captioned with their names.
func Labelled(title, desc string, gap float64, labels []string, panels ...[]byte) ([]byte, error) {
	if len(labels) != len(panels) {
		return nil, fmt.Errorf("%d labels for %d panels", len(labels), len(panels))
	}
	return Composite{Title: title, Desc: desc, Gap: gap, Labels: labels, Panels: panels}.Bytes()
}

// Composite is a document of complete SVG documents (panels) laid out in
// rows no wider than PageWidth (a panel wider than that takes a row of
// its own), under an optional heading and over optional footnotes.
type Composite struct {
	Title, Desc string
	// Heading is a line (class "heading") above the panels, wrapped to
	// PageWidth: a run's summary.
	Heading string
	Gap     float64
	// Labels, when not nil, caption each panel (class "panel-label").
	Labels []string
	Panels [][]byte
	// Notes are footnotes under the panels (Footnote).
	Notes []string
}

// labelH is the height of the caption row of Labelled; headSize the
// font size of a Composite's heading.
const (
	labelH   = 22
	headSize = 14
)

// placed is one panel of a Composite: its root's rest and its position.
type placed struct {
	body         []byte
	x, y, top, w float64
}

// Bytes lays the panels out and writes the document.
func (c Composite) Bytes() ([]byte, error) {
	top := 0.0
	if c.Labels != nil {
		top = labelH
	}
	head := wrapText(c.Heading, headSize, PageWidth-16)
	y0 := float64(len(head)) * headSize * 1.4
	if len(head) > 0 {
		y0 += 6
	}
	ps := make([]placed, len(c.Panels))
	w, x, y, rowH := 0.0, 0.0, y0, 0.0
	for i, p := range c.Panels {
		body, pw, ph, err := rootOf(p)
		if err != nil {
			return nil, fmt.Errorf("panel %d: %w", i, err)
		}
		if x > 0 && x+c.Gap+pw > PageWidth {
			x, y, rowH = 0, y+rowH+c.Gap, 0
		} else if x > 0 {
			x += c.Gap
		}
		ps[i] = placed{body: body, x: x, y: y, top: top, w: pw}
		x += pw
		w, rowH = max(w, x), max(rowH, ph+top)
	}
	for _, l := range head {
		w = max(w, min(TextWidth(l, headSize)+16, PageWidth))
	}
	d := New(w, y+rowH, c.Title, c.Desc)
	for i, l := range head {
		d.Text(8, float64(i+1)*headSize*1.4-4, l, Style{Class: "heading", Fill: Ink, Size: headSize})
	}
	for i, p := range ps {
		if c.Labels != nil {
			d.Text(p.x+4, p.y+labelH-6, c.Labels[i], Style{Class: "panel-label", Fill: Ink, Size: 14})
		}
		d.body.WriteString(`<svg class="panel" x="` + Num(p.x) + `" y="` + Num(p.y+p.top) + `"`)
		d.body.Write(p.body)
	}
	d.Footnote(c.Notes)
	return d.Bytes(), nil
}

// rootOf splits an SVG document after its root's "<svg": it returns the
// rest (attributes, children and closing tag, which a nested panel
// keeps) and the root's width and height.
func rootOf(doc []byte) (rest []byte, w, h float64, err error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, 0, fmt.Errorf("no <svg> root: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local != "svg" {
			return nil, 0, 0, fmt.Errorf("root is <%s>, not <svg>", se.Name.Local)
		}
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "width":
				w, err = strconv.ParseFloat(a.Value, 64)
			case "height":
				h, err = strconv.ParseFloat(a.Value, 64)
			}
			if err != nil {
				return nil, 0, 0, fmt.Errorf("root %s: %w", a.Name.Local, err)
			}
		}
		i := bytes.Index(doc, []byte("<svg"))
		return append(bytes.TrimRight(doc[i+len("<svg"):], "\n"), '\n'), w, h, nil
	}
}
