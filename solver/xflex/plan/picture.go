package plan

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// Picture layout: the sharing panel is two utilisation panels side by
// side and at most maxPairs imbalance panels under them.
const (
	picW     = 470
	picH     = 280
	maxPairs = 2
	maxSteps = 100
	maxCurve = 150
)

// picture draws the plan as one report, a panel per stage: X-Size's
// shapes against the forecast (xsize's own picture), X-Select's packing
// (xselect's), utilisation under X-Flex and DRF on one shared scale with
// the pairs' imbalance, and the success comparison of X-Flex and each
// baseline. Stages that did not run are left out and said so.
func picture(request, response json.RawMessage) ([]byte, error) {
	_, res, meta, err := solver.DecodePicture[Request, pictured](request, response)
	if err != nil {
		return nil, fmt.Errorf("xflex-plan picture: %w", err)
	}
	var panels [][]byte
	var notes []string
	for _, st := range []struct {
		run  *StageRun
		name string
		pic  solver.PictureFunc
	}{{res.Stages.XSize, "X-Size", xsize.Problem().Picture}, {res.Stages.XSelect, "X-Select", xselect.Problem().Picture}} {
		if st.run == nil || st.run.Response == nil {
			notes = append(notes, st.name+" did not run")
			continue
		}
		b, err := st.pic(st.run.Request, st.run.Response)
		if err != nil {
			return nil, fmt.Errorf("xflex-plan picture: %s: %w", st.name, err)
		}
		panels = append(panels, b)
	}
	if sim := res.Stages.Simulate; sim != nil && sim.Response != nil {
		b, err := sharingPanel(sim)
		if err != nil {
			return nil, err
		}
		panels = append(panels, b, successPanel(&res.Summary))
	} else {
		notes = append(notes, "the simulation did not run")
	}
	desc := fmt.Sprintf("The X-Flex plan (status %s), a panel per stage: X-Size's shapes against the forecast requests, X-Select's packing of the mixes into the nodes, utilisation over time under X-Flex and DRF on one shared scale with the sharing imbalance of the pairs deepest into their bound, and the containers granted under X-Flex and each baseline.", meta.Status)
	return sight.SideBySide("X-Flex plan", desc+sight.Notes(notes), 20, panels...)
}

// pictured is the part of a plan's result the picture reads.
type pictured struct {
	Stages  Stages  `json:"stages"`
	Summary Summary `json:"summary"`
}

// simDrawn is the part of the simulation's answer the sharing panel
// reads.
type simDrawn struct {
	Until       float64               `json:"until"`
	Utilization simulate.Utilization  `json:"utilization"`
	Imbalance   []simulate.PairSeries `json:"imbalance"`
	Baselines   struct {
		DRF struct {
			Until       float64              `json:"until"`
			Utilization simulate.Utilization `json:"utilization"`
		} `json:"drf"`
	} `json:"baselines"`
}

// sharingPanel is utilisation stacked by application under X-Flex and
// DRF on one y scale (class "util-area"), and the imbalance of the
// maxPairs pairs that went deepest into their bound.
func sharingPanel(sim *StageRun) ([]byte, error) {
	ans, err := answerOf[simDrawn](sim)
	if err != nil {
		return nil, err
	}
	apps := appsOf(ans.Utilization.Points, ans.Baselines.DRF.Utilization.Points)
	runs := []struct {
		title string
		pts   []simulate.UtilPoint
		until float64
	}{{"Utilisation: X-Flex", ans.Utilization.Points, ans.Until}, {"Utilisation: DRF", ans.Baselines.DRF.Utilization.Points, ans.Baselines.DRF.Until}}
	top := 0.0
	for _, r := range runs {
		_, p := meanUtilization(r.pts, r.until)
		top = math.Max(top, p)
	}
	pairs := deepest(ans.Imbalance)
	rows := 1 + (len(pairs)+1)/2
	d := sight.New(2*picW, 30+float64(rows)*picH, "Utilisation and sharing", "Utilisation stacked by application under X-Flex and DRF on one shared scale, and the sharing imbalance of the pairs deepest into their bound.")
	d.Text(8, 18, "Utilisation under X-Flex and DRF (one scale) and sharing imbalance", sight.Style{Fill: sight.Ink, Size: 14})
	var notes []string
	for i, r := range runs {
		area, merged := utilArea(r.pts, r.until, apps)
		area.Title, area.YMax = r.title, top
		area.Draw(d, float64(i)*picW, 30, picW, picH)
		if merged {
			notes = append(notes, fmt.Sprintf("%s: steps merged into %d", r.title, maxSteps))
		}
	}
	for i, p := range pairs {
		t, s, sl := make([]float64, len(p.Points)), make([]float64, len(p.Points)), make([]float64, len(p.Points))
		for k, pt := range p.Points {
			t[k], s[k], sl[k] = pt.T, pt.Share, pt.Slope
		}
		ts, ss, _ := sight.PiecewiseLinear(t, s, sl, ans.Until, maxCurve)
		m := sight.Imbalance{Title: fmt.Sprintf("Sharing %s / %s (Δ = %s)", p.A, p.B, sight.Value(p.Bound)), A: p.A, B: p.B,
			ColourA: sight.Colour(index(apps, p.A)), ColourB: sight.Colour(index(apps, p.B)), Bound: p.Bound, T: ts, S: ss}
		m.Draw(d, float64(i%2)*picW, 30+float64(1+i/2)*picH, picW, picH)
	}
	if len(ans.Imbalance) > len(pairs) {
		notes = append(notes, fmt.Sprintf("%d of %d pairs drawn, those deepest into their bound", len(pairs), len(ans.Imbalance)))
	}
	d.Footnote(notes)
	return d.Bytes(), nil
}

// appsOf are the applications of both runs' utilisation, by name.
func appsOf(runs ...[]simulate.UtilPoint) []string {
	seen := map[string]float64{}
	for _, pts := range runs {
		for _, p := range pts {
			for a, v := range p.ByApp {
				seen[a] += v
			}
		}
	}
	names, _ := sight.TopN(seen, 0)
	return names
}

func index(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// utilArea is one run's utilisation stacked by application, the first
// eight coloured, the rest summed in grey.
func utilArea(pts []simulate.UtilPoint, until float64, apps []string) (sight.StackedArea, bool) {
	named := apps[:min(len(apps), len(sight.Palette))]
	rows := make([][]float64, len(named)+1)
	start, end := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		start[i], end[i] = p.T, until
		if i+1 < len(pts) {
			end[i] = pts[i+1].T
		}
		other := 0.0
		for _, a := range sortedKeys(p.ByApp) {
			if index(named, a) < 0 {
				other += p.ByApp[a]
			}
		}
		for k, a := range named {
			rows[k] = append(rows[k], p.ByApp[a])
		}
		rows[len(named)] = append(rows[len(named)], other)
	}
	start, end, rows, merged := sight.Coarsen(start, end, rows, maxSteps)
	a := sight.StackedArea{XLabel: "time", YLabel: "fraction of cluster capacity", Class: "util-area", Start: start, End: end}
	for k, app := range named {
		a.Names, a.Colours, a.Values = append(a.Names, app), append(a.Colours, sight.Colour(k)), append(a.Values, rows[k])
	}
	if len(apps) > len(named) {
		a.Names, a.Colours, a.Values = append(a.Names, fmt.Sprintf("other (%d)", len(apps)-len(named))), append(a.Colours, sight.Other), append(a.Values, rows[len(named)])
	}
	return a, merged
}

// deepest keeps the maxPairs pairs whose imbalance went deepest past
// their bound (peak |share| / Δ), ties in answer order.
func deepest(all []simulate.PairSeries) []simulate.PairSeries {
	depth := func(p simulate.PairSeries) float64 {
		peak := 0.0
		for _, pt := range p.Points {
			peak = math.Max(peak, math.Abs(pt.Share))
		}
		return peak / math.Max(p.Bound, math.SmallestNonzeroFloat64)
	}
	var out []simulate.PairSeries
	used := make([]bool, len(all))
	for len(out) < min(maxPairs, len(all)) {
		best := -1
		for i, p := range all {
			if !used[i] && (best < 0 || depth(p) > depth(all[best])) {
				best = i
			}
		}
		used[best] = true
		out = append(out, all[best])
	}
	return out
}

// successPanel compares X-Flex with each baseline: a bar each of
// containers granted, expired and still waiting (class "bar").
func successPanel(s *Summary) []byte {
	c := sight.BarChart{Unit: "containers", Segments: []string{"granted", "expired", "waiting"},
		Colours: []string{sight.Colour(0), sight.Red, sight.Other}}
	panel := sight.BarPanel{Title: "Containers asked, by outcome"}
	if s.SuccessRatio != nil {
		panel.Note = fmt.Sprintf("X-Flex / DRF successes %s (ceiling %s)", sight.Value(*s.SuccessRatio), sight.Value(*s.Ceiling))
	}
	add := func(name string, r RunSummary) {
		panel.Bars = append(panel.Bars, sight.Bar{Label: name, Parts: []float64{float64(r.Successes), float64(r.Expired), float64(r.Waiting)}})
	}
	if s.XFlex != nil {
		add("X-Flex", *s.XFlex)
	}
	for _, name := range sortedKeys(s.Baselines) {
		add(name, s.Baselines[name])
	}
	c.Panels = []sight.BarPanel{panel}
	return c.Doc("Success comparison", "Containers granted, expired and waiting at the end under X-Flex and each baseline, on one scale.").Bytes()
}
