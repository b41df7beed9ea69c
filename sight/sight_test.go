package sight

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
)

func TestDocWellFormed(t *testing.T) {
	nasty := "a<b>&\"c'\x01\xff\uFFFE\tz"
	d := New(200, 100.5, "T "+nasty, "D "+nasty)
	d.Group(10, 0, Style{Class: "grp", Tip: nasty})
	d.Rect(0, 0, 10, -5, Style{Class: "node", Fill: Colour(0), Tip: nasty})
	d.Line(0, 0, 1.234, 5, Style{Stroke: Ink, Dash: "2 2"})
	d.Polyline([]float64{0, 1, 2}, []float64{3, 4}, Style{Stroke: Ink})
	d.Circle(1, 1, 1, Style{Class: "node"})
	d.Text(1, 1, nasty, Style{Anchor: "middle", Size: 9, Tip: "tip"})
	d.Legend(0, 0, 10, []string{"x", "y"}, []string{Colour(1), Colour(9)})
	doc := d.Bytes() // the open group is closed
	s := sighttest.Check(t, doc)
	if s.ViewBox != "0 0 200 100.5" || !strings.HasPrefix(s.Title, "T a<b>&\"c'") || !strings.HasPrefix(s.Desc, "D ") {
		t.Errorf("root: %+v", s)
	}
	if s.Classes["node"] != 2 || s.Classes["legend"] != 2 || s.Classes["grp"] != 1 {
		t.Errorf("classes %v", s.Classes)
	}
	if !bytes.Equal(doc, d.Bytes()) {
		t.Error("Bytes not repeatable")
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 1.005: "1", 1.006: "1.01", -0.001: "0", 1e21: "1000000000000000000000", -2.5: "-2.5"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %s, want %s", v, got, want)
		}
	}
}

func TestSideBySide(t *testing.T) {
	a := New(100, 50, "A", "a")
	a.Rect(0, 0, 1, 1, Style{Class: "bar"})
	b := New(80, 70, "B", "b")
	b.Rect(0, 0, 1, 1, Style{Class: "bar"})
	b.Rect(0, 0, 1, 1, Style{Class: "bar"})
	doc, err := SideBySide("Both", "two panels", 10, a.Bytes(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, doc)
	if s.ViewBox != "0 0 190 70" || s.Title != "Both" || s.Desc != "two panels" || s.Classes["panel"] != 2 || s.Classes["bar"] != 3 {
		t.Errorf("composite %+v\n%s", s, doc)
	}
	if _, err := SideBySide("x", "y", 0, []byte("<html/>")); err == nil {
		t.Error("a non-SVG panel was accepted")
	}
}

func TestTopN(t *testing.T) {
	top, cut := TopN(map[string]float64{"a": 1, "b": 3, "c": 3, "d": 0}, 3)
	if strings.Join(top, ",") != "b,c,a" || !cut {
		t.Errorf("TopN = %v %v", top, cut)
	}
	if top, cut := TopN(map[string]float64{"a": 1}, 0); len(top) != 1 || cut {
		t.Errorf("TopN all = %v %v", top, cut)
	}
	if Colour(8) != Other || Colour(-1) != Other || Colour(0) != "#E69F00" {
		t.Error("Colour")
	}
}

func TestLabelled(t *testing.T) {
	a := New(100, 50, "A", "a")
	doc, err := Labelled("Both", "two panels", 10, []string{"base", "x<y"}, a.Bytes(), a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, doc)
	if s.ViewBox != "0 0 210 72" || s.Classes["panel"] != 2 || s.Classes["panel-label"] != 2 || !strings.Contains(s.Text, "x<y") {
		t.Errorf("composite %+v\n%s", s, doc)
	}
	if _, err := Labelled("x", "y", 0, []string{"one"}); err == nil {
		t.Error("a label without a panel was accepted")
	}
}
