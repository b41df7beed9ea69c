package fairshare

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// Every stored answer draws as a well-formed SVG with a viewBox, title and
// desc, a bar per framework in each policy's panel, the same bytes twice,
// and under 300 KB.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../..", "fairshare", picture, func(t *testing.T, _ sighttest.Case, res *Result, s sighttest.Shape) {
		panels := max(1, len(res.Compare))
		if got, want := s.Classes["bar"], panels*len(res.Frameworks); got != want {
			t.Errorf("%d bars, want %d (%d frameworks × %d panels)", got, want, len(res.Frameworks), panels)
		}
	})
}

// 500 frameworks on 20 servers under two policies draw as the 60 largest
// and "other" per panel and 7 servers and "other", and the picture says so.
func TestPictureAggregates(t *testing.T) {
	req := Request{}
	for k := range 20 {
		req.Servers = append(req.Servers, ServerSpec{Name: fmt.Sprintf("s%02d", k), Capacity: []float64{1}})
	}
	var fs []FrameworkResult
	for i := range 500 {
		fs = append(fs, FrameworkResult{Name: fmt.Sprintf("f%03d", i), Total: float64(i), ByServer: map[string]float64{fmt.Sprintf("s%02d", i%20): float64(i)}})
	}
	res := Result{Policy: "drf", Frameworks: fs, Compare: []*Result{{Policy: "mmf", Frameworks: fs}, {Policy: "drf", Frameworks: fs}}}
	rq, _ := json.Marshal(req)
	rs, _ := json.Marshal(map[string]any{"result": res})
	svg, err := picture(rq, rs)
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, svg)
	if got, want := s.Classes["bar"], 2*(maxBars+1); got != want {
		t.Errorf("%d bars, want %d", got, want)
	}
	if got := s.Classes["legend"]; got != maxSegments {
		t.Errorf("%d legend entries, want %d", got, maxSegments)
	}
	for _, want := range []string{"other (440)", "other (13)"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("picture text lacks %q", want)
		}
	}
	if !strings.Contains(s.Desc, "440 are drawn as one bar of their mean") || !strings.Contains(s.Desc, "13 servers") {
		t.Errorf("desc %q does not say what was grouped", s.Desc)
	}
}

// The example solved twice through the Runner draws the same bytes (the
// picture depends on nothing that varies between runs, elapsed_ms
// included), well-formed and under the size bound.
func TestPictureRuns(t *testing.T) {
	solvertest.PictureFile(t, Problem(), "../../examples/fairshare.json")
}
