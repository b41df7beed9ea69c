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
// test counts in a panel it counts the same in the composite. A
// scenario's variants are drawn this way.
func SideBySide(title, desc string, gap float64, panels ...[]byte) ([]byte, error) {
	type placed struct {
		body []byte
		w, h float64
	}
	ps := make([]placed, len(panels))
	w, h := 0.0, 0.0
	for i, p := range panels {
		body, pw, ph, err := rootOf(p)
		if err != nil {
			return nil, fmt.Errorf("panel %d: %w", i, err)
		}
		ps[i] = placed{body, pw, ph}
		if i > 0 {
			w += gap
		}
		w += pw
		h = max(h, ph)
	}
	top := New(w, h, title, desc)
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	top.root(&b, "")
	x := 0.0
	for _, p := range ps {
		b.WriteString(`<svg class="panel" x="` + Num(x) + `" y="0"`)
		b.Write(p.body)
		x += p.w + gap
	}
	b.WriteString("</svg>\n")
	return b.Bytes(), nil
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
