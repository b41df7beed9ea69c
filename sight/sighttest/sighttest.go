// Package sighttest reads SVG documents for tests of X-Sight pictures:
// it checks what every picture must have (well-formed XML, an <svg> root
// with a viewBox, a non-empty <title> and <desc>) and counts elements by
// class, so a test compares the counts with the answer drawn.
package sighttest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// Shape is what Parse learns of a document.
type Shape struct {
	// ViewBox, Title and Desc are the root's.
	ViewBox, Title, Desc string
	// Classes counts the elements carrying each class (an element with
	// class="a b" counts for a and for b). Nested panels are "panel".
	Classes map[string]int
	// Text is all character data outside <title> and <desc> elements
	// (the visible text), each piece followed by a newline.
	Text string
	// Width is the root's width; MinFont the smallest font-size written
	// anywhere (0 when none is).
	Width, MinFont float64
}

// PageWidth and MinText are sight.PageWidth and sight.MinText (this
// package cannot import sight, whose tests use it; sight's tests check
// they agree): every picture fits the page's width and writes no text
// smaller than the page can show at 11 px.
const (
	PageWidth = 720
	MinText   = 12
)

// Parse reads doc with encoding/xml; an error means it is not well-formed
// or its root is not <svg>.
func Parse(doc []byte) (Shape, error) {
	s := Shape{Classes: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var path []string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if len(path) == 0 && e.Name.Local != "svg" {
				return s, fmt.Errorf("root is <%s>, not <svg>", e.Name.Local)
			}
			path = append(path, e.Name.Local)
			s.attrs(e, len(path))
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			s.charData(path, string(e), &text)
		}
	}
	if len(path) != 0 {
		return s, errors.New("unclosed elements")
	}
	s.Text = text.String()
	return s, nil
}

// attrs records e's classes, and the root's viewBox.
func (s *Shape) attrs(e xml.StartElement, depth int) {
	for _, a := range e.Attr {
		if depth == 1 && a.Name.Local == "viewBox" {
			s.ViewBox = a.Value
		}
		if depth == 1 && a.Name.Local == "width" {
			s.Width, _ = strconv.ParseFloat(a.Value, 64)
		}
		if a.Name.Local == "font-size" {
			if v, err := strconv.ParseFloat(a.Value, 64); err == nil && (s.MinFont == 0 || v < s.MinFont) {
				s.MinFont = v
			}
		}
		if a.Name.Local == "class" {
			for _, c := range strings.Fields(a.Value) {
				s.Classes[c]++
			}
		}
	}
}

// charData files text under the root's title or desc, or the visible text.
func (s *Shape) charData(path []string, data string, text *strings.Builder) {
	switch {
	case len(path) == 2 && path[1] == "title":
		s.Title += data
	case len(path) == 2 && path[1] == "desc":
		s.Desc += data
	case len(path) > 0 && path[len(path)-1] != "title" && path[len(path)-1] != "desc" && strings.TrimSpace(data) != "":
		text.WriteString(data)
		text.WriteByte('\n')
	}
}

// Check parses doc and fails t unless it is well-formed with a viewBox, a
// title and a desc, no wider than PageWidth and with no text smaller than
// MinText; it returns the shape for counting.
func Check(t testing.TB, doc []byte) Shape {
	t.Helper()
	s, err := Parse(doc)
	if err != nil {
		t.Fatalf("SVG not well-formed: %v", err)
	}
	if len(strings.Fields(s.ViewBox)) != 4 {
		t.Errorf("SVG root viewBox %q, want four numbers", s.ViewBox)
	}
	if strings.TrimSpace(s.Title) == "" || strings.TrimSpace(s.Desc) == "" {
		t.Errorf("SVG title %q, desc %q: want both", s.Title, s.Desc)
	}
	if s.Width > PageWidth {
		t.Errorf("SVG is %g wide, more than the page's %d", s.Width, PageWidth)
	}
	if s.MinFont < MinText {
		t.Errorf("SVG writes text of size %g, less than %d", s.MinFont, MinText)
	}
	return s
}
