package plan

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver"
)

// TestPictureStored draws every stored answer (the example and the
// testdata plans) and compares the picture with the answer: X-Size's and
// X-Select's panels, a utilisation panel per run, an imbalance panel per
// pair drawn and the success comparison; a node column per X-Select node,
// a bar per scheduler, one utilisation layer per application under X-Flex
// and each baseline, and the containers asked marked once.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../../..", "xflex-plan", picture, func(t *testing.T, c sighttest.Case, res *Result, s sighttest.Shape) {
		for _, st := range []*StageRun{res.Stages.XSize, res.Stages.XSelect, res.Stages.Simulate} {
			if st == nil || st.Response == nil {
				t.Fatal("a stored plan did not run every stage")
			}
		}
		sim, err := answerOf[simDrawn](res.Stages.Simulate)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := answerOf[struct {
			Nodes []json.RawMessage `json:"nodes"`
		}](res.Stages.XSelect)
		if err != nil {
			t.Fatal(err)
		}
		runs := 1 + len(res.Summary.Baselines)
		pairs := min(len(sim.Imbalance), maxPairs)
		layers := min(len(res.Mix.Apps), 8)
		if len(res.Mix.Apps) > 8 {
			layers++
		}
		want := map[string]int{
			"panel":          2 + runs + pairs + 1,
			"bar":            runs,
			"util-area":      runs * layers,
			"imbalance-line": pairs,
			"node":           len(sel.Nodes),
			"mark":           1,
		}
		for class, n := range want {
			if s.Classes[class] != n {
				t.Errorf("%d %q, want %d", s.Classes[class], class, n)
			}
		}
	})
}

// tickRE finds the values of the tick labels of a shared scale.
func tickRE(scale string) *regexp.Regexp {
	return regexp.MustCompile(`class="[^"]*scale-` + scale + `"[^>]*>([0-9.e+]+)<`)
}

// topTick is the largest tick label of the named shared scale in svg.
func topTick(t *testing.T, svg []byte, scale string) float64 {
	t.Helper()
	top := -1.0
	for _, m := range tickRE(scale).FindAllSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		top = max(top, v)
	}
	if top < 0 {
		t.Fatalf("no tick labels of scale %q", scale)
	}
	return top
}

// TestPictureShared draws the example on its own scales and on scales
// shared with a plan ten times longer and larger: it reports the tops it
// needs (the runs' end, the containers asked), every utilisation panel
// keeps the 0–1 scale, and the shared time and container axes reach the
// shared tops.
func TestPictureShared(t *testing.T) {
	req, err := os.ReadFile("../../../examples/xflex-plan.json")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := os.ReadFile("../../../solver/problems/testdata/responses/xflex-plan/example-xflex-plan.json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Result Result }
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	own, tops, err := pictureShared(req, resp, nil)
	if err != nil {
		t.Fatal(err)
	}
	sighttest.Check(t, own)
	x := r.Result.Summary.XFlex
	if tops[timeScale] != x.Until || tops[containersScale] != float64(x.Asked) {
		t.Fatalf("tops %v, want time %g and containers %d", tops, x.Until, x.Asked)
	}
	if got := topTick(t, own, "utilisation"); got != 1 {
		t.Errorf("utilisation scale tops at %g, want 1", got)
	}
	if got := topTick(t, own, timeScale); got > x.Until {
		t.Errorf("own time axis ticks to %g, past the runs' end %g", got, x.Until)
	}
	shared := map[string]float64{timeScale: 10 * x.Until, containersScale: 10 * float64(x.Asked)}
	wide, _, err := pictureShared(req, resp, shared)
	if err != nil {
		t.Fatal(err)
	}
	sighttest.Check(t, wide)
	// Ticks are round numbers: the last is within a step (under a
	// quarter of the axis) of the shared top, far past this plan's own.
	for _, sc := range []string{timeScale, containersScale} {
		if got := topTick(t, wide, sc); got > shared[sc] || got < 0.75*shared[sc] {
			t.Errorf("shared %s axis ticks to %g, want near %g", sc, got, shared[sc])
		}
	}
	if got := topTick(t, wide, "utilisation"); got != 1 {
		t.Errorf("utilisation scale tops at %g under shared scales, want 1", got)
	}
}

// TestPicturesShared draws three stored plans of different lengths and
// sizes side by side through the Runner (a scenario's variants): every
// picture's time and container axes top at the same tick, the longest
// plan's, and utilisation stays on 0–1.
func TestPicturesShared(t *testing.T) {
	r, err := solver.NewRunner([]solver.Problem{Problem()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reqs, resps [][]byte
	for _, c := range sighttest.Stored(t, "../../..", "xflex-plan", ".") {
		reqs, resps = append(reqs, c.Request), append(resps, c.Response)
	}
	svgs, err := r.Pictures("xflex/plan", reqs, resps)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{timeScale, containersScale, "utilisation"} {
		var tops []float64
		for _, svg := range svgs {
			sighttest.Check(t, svg)
			tops = append(tops, topTick(t, svg, sc))
		}
		if slices.Min(tops) != slices.Max(tops) {
			t.Errorf("scale %s tops at %v across the plans, want one value", sc, tops)
		}
	}
}
