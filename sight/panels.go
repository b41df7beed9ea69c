package sight

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// SideBySide lays complete SVG documents (as Doc.Bytes or another
// SideBySide writes them) left to right, top-aligned, gap units apart, in
// one document with its own title and description. Each panel keeps its
// own viewBox, title and desc as a nested <svg class="panel">, so what a
// test counts in a panel it counts the same in the composite.
func SideBySide(title, desc string, gap float64, panels ...[]byte) ([]byte, error) {
	return compose(title, desc, gap, nil, panels)
}

// Labelled is SideBySide with a caption above each panel (labels[i] over
// panels[i], class "panel-label"): a scenario's variants are drawn this
// way, captioned with their names.
func Labelled(title, desc string, gap float64, labels []string, panels ...[]byte) ([]byte, error) {
	if len(labels) != len(panels) {
		return nil, fmt.Errorf("%d labels for %d panels", len(labels), len(panels))
	}
	return compose(title, desc, gap, labels, panels)
}

// labelH is the height of the caption row of Labelled.
const labelH = 22

// compose is SideBySide, with captions when labels is not nil.
func compose(title, desc string, gap float64, labels []string, panels [][]byte) ([]byte, error) {
	type placed struct {
		body []byte
		w    float64
	}
	top := 0.0
	if labels != nil {
		top = labelH
	}
	ps := make([]placed, len(panels))
	w, h := 0.0, 0.0
	for i, p := range panels {
		body, pw, ph, err := rootOf(p)
		if err != nil {
			return nil, fmt.Errorf("panel %d: %w", i, err)
		}
		ps[i] = placed{body, pw}
		if i > 0 {
			w += gap
		}
		w += pw
		h = max(h, ph+top)
	}
	d := New(w, h, title, desc)
	x := 0.0
	for i, p := range ps {
		if labels != nil {
			d.Text(x+4, labelH-6, labels[i], Style{Class: "panel-label", Fill: Ink, Size: 14})
		}
		d.body.WriteString(`<svg class="panel" x="` + Num(x) + `" y="` + Num(top) + `"`)
		d.body.Write(p.body)
		x += p.w + gap
	}
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
