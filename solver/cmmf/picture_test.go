package cmmf

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver/solvertest"
)

// Every stored answer draws as a well-formed SVG with a viewBox, title and
// desc, a bar per user in each panel (CMMF, Choosy unless skipped,
// independent), the same bytes twice, and under 300 KB.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../..", "cmmf", picture, func(t *testing.T, _ sighttest.Case, res *Result, s sighttest.Shape) {
		panels := 2
		if res.Choosy.Skipped == "" {
			panels = 3
		}
		if got, want := s.Classes["bar"], panels*len(res.Users); got != want {
			t.Errorf("%d bars, want %d (%d users × %d panels)", got, want, len(res.Users), panels)
		}
	})
}

// A thousand users on twenty machine types draw as the 60 largest and one
// "other" bar per panel, 7 colours for types (6 named and other) plus the
// two baselines' (each its own dashed outline), and the picture says so.
func TestPictureAggregates(t *testing.T) {
	req := Request{}
	res := Result{}
	for k := range 20 {
		req.MachineTypes = append(req.MachineTypes, MachineType{Name: fmt.Sprintf("t%02d", k), Count: 100})
	}
	for i := range 1000 {
		name := fmt.Sprintf("u%04d", i)
		res.Users = append(res.Users, UserResult{Name: name, Total: float64(i % 97), Allocation: Amounts{{fmt.Sprintf("t%02d", i%20), float64(i % 97)}}})
		res.Choosy.Users = append(res.Choosy.Users, Total{Name: name, Total: 1})
		res.Independent.Users = append(res.Independent.Users, Total{Name: name, Total: 2})
	}
	rq, _ := json.Marshal(req)
	rs, _ := json.Marshal(map[string]any{"result": res, "meta": map[string]any{"status": "optimal"}})
	svg, err := picture(rq, rs)
	if err != nil {
		t.Fatal(err)
	}
	s := sighttest.Check(t, svg)
	if got, want := s.Classes["bar"], 3*(maxBars+1); got != want {
		t.Errorf("%d bars, want %d", got, want)
	}
	if got, want := s.Classes["legend"], maxSegments+2; got != want {
		t.Errorf("%d legend entries, want %d", got, want)
	}
	for _, want := range []string{"other (940)", "other (14)", "Choosy total", "Independent total"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("picture text lacks %q", want)
		}
	}
	if s.Classes["note"] == 0 || !strings.Contains(s.Desc, "940 are drawn as one bar of their mean") {
		t.Errorf("desc %q does not say users were grouped", s.Desc)
	}
	if len(svg) > 300_000 {
		t.Errorf("SVG is %d bytes", len(svg))
	}
}

// The example solved twice through the Runner draws the same bytes (the
// picture depends on nothing that varies between runs, elapsed_ms
// included), well-formed and under the size bound.
func TestPictureRuns(t *testing.T) {
	solvertest.PictureFile(t, Problem(), "../../examples/cmmf.json")
}
