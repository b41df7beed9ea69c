package xsize

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// Every stored answer draws as a well-formed SVG with a viewBox, title and
// desc; each panel (one per pair of resources, one for one or two) has a
// circle per request, a marker and a ray per shape; the same bytes twice;
// under 300 KB.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../..", "xsize", picture, func(t *testing.T, c sighttest.Case, res *Result, s sighttest.Shape) {
		var req Request
		if err := json.Unmarshal(c.Request, &req); err != nil {
			t.Fatal(err)
		}
		d := min(len(req.Resources), maxResources)
		panels := max(1, d*(d-1)/2)
		circles := panels * len(req.Requests)
		if cells := binCells(len(req.Requests), panels); cells > 0 {
			circles = s.Classes["request"]
			if circles == 0 || circles > panels*cells*cells {
				t.Errorf("%d binned circles, want 1..%d", circles, panels*cells*cells)
			}
			if !strings.Contains(s.Desc, "binned") {
				t.Errorf("desc %q does not say requests were binned", s.Desc)
			}
		}
		want := map[string]int{"request": circles, "shape": panels * len(res.Shapes), "ray": panels * len(res.Shapes)}
		for class, n := range want {
			if s.Classes[class] != n {
				t.Errorf("%d %q, want %d (%d panels)", s.Classes[class], class, n, panels)
			}
		}
	})
}

// 5,000 requests in 2-D are binned to at most 38×38 circles (1,500 allowed), and the desc
// says so.
func TestPictureBins(t *testing.T) {
	req := Request{Resources: []string{"cpu", "mem"}, Totals: []float64{1e6, 1e6}, K: 2}
	for i := range 5000 {
		w := float64(1 + i%3)
		req.Requests = append(req.Requests, RequestItem{Size: []float64{float64(1 + i%97), float64(1 + i%89)}, Weight: &w})
	}
	res := Result{Shapes: []Shape{{Size: []float64{50, 100}}, {Size: []float64{97, 89}}}, Assignment: make([]int, 5000)}
	rq, _ := json.Marshal(req)
	rs, _ := json.Marshal(map[string]any{"result": res})
	svg, err := picture(rq, rs)
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, svg)
	if n := s.Classes["request"]; n == 0 || n > 38*38 {
		t.Errorf("%d request circles, want 1..%d", n, 38*38)
	}
	if !strings.Contains(s.Desc, "binned") || !strings.Contains(s.Text, "binned") {
		t.Errorf("desc %q or text does not say requests were binned", s.Desc)
	}
	if len(svg) > 300_000 {
		t.Errorf("SVG is %d bytes", len(svg))
	}
}

// The example solved twice through the Runner draws the same bytes (the
// picture depends on nothing that varies between runs, elapsed_ms
// included), well-formed and under the size bound.
func TestPictureRuns(t *testing.T) {
	solvertest.PictureFile(t, Problem(), "../../examples/xsize.json")
}

// An answer that does not match its request (no resources, a shape of no
// size, an assignment past the shapes) still draws a well-formed picture.
func TestPictureMismatched(t *testing.T) {
	svg, err := picture([]byte(`{}`), []byte(`{"result":{"shapes":[{"size":[]}],"assignment":[5]}}`))
	if err != nil {
		t.Fatal(err)
	}
	sighttest.Check(t, svg)
}
