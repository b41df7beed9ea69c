package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// Picture limits and layout: at most maxPairs imbalance panels (the
// pairs deepest into their bound), maxSteps utilisation steps and
// maxCurve vertices per imbalance curve; the simulation's panels are
// panelW by panelH, two to a row of sight.PageWidth.
const (
	maxPairs = 2
	maxSteps = 100
	maxCurve = 150
	panelW   = 350
	panelH   = 300
	panelGap = 20
)

// Shared scales (solver.SharedPictureFunc): the time axis of every
// simulation panel, and the containers axis of the success comparison.
// Utilisation needs none: it is drawn on capacity's 0 to 1 everywhere.
const (
	timeScale       = "time"
	containersScale = "containers"
)

// picture draws the plan as one report, a panel per stage that ran.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// pictureShared draws the plan as one report, a panel per stage, wrapped
// onto rows of the page's width (sight.Composite): X-Size's shapes against
// the forecast requests (xsize's own picture), X-Select's packing of the
// mixes into the nodes (xselect's), utilisation under X-Flex and each
// baseline on one 0–1 scale and one time axis, the imbalance of the pairs
// deepest into their bound, and the containers granted under X-Flex and
// each baseline against those asked (the ceiling). Time and container axes
// run to at least shared's tops, so a scenario's plans compare at a
// glance; it returns the tops this plan needs. Stages that did not run
// are left out and said so.
func pictureShared(request, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	_, res, meta, err := solver.DecodePicture[Request, pictured](request, response)
	if err != nil {
		return nil, nil, fmt.Errorf("xflex-plan picture: %w", err)
	}
	var panels [][]byte
	var labels, notes []string
	for _, st := range []struct {
		run         *StageRun
		name, label string
		pic         solver.PictureFunc
	}{{res.Stages.XSize, "X-Size", "1 · X-Size: shapes over the forecast", xsize.Problem().Picture},
		{res.Stages.XSelect, "X-Select", "3 · X-Select: the mixes packed", xselect.Problem().Picture}} {
		if st.run == nil || st.run.Response == nil {
			notes = append(notes, st.name+" did not run")
			continue
		}
		b, err := st.pic(st.run.Request, st.run.Response)
		if err != nil {
			return nil, nil, fmt.Errorf("xflex-plan picture: %s: %w", st.name, err)
		}
		panels, labels = append(panels, b), append(labels, st.label)
	}
	tops := map[string]float64{}
	if sim := res.Stages.Simulate; sim != nil && sim.Response != nil {
		ps, ls, n, err := simulationPanels(sim, shared, tops)
		if err != nil {
			return nil, nil, fmt.Errorf("xflex-plan picture: %w", err)
		}
		chart := successChart(&res.Summary)
		tops[containersScale] = chart.Max()
		chart.Top = shared[containersScale]
		panels = append(append(panels, ps...), chart.Doc("Success comparison", "Containers granted, expired and still waiting at the end under X-Flex and each baseline, on one scale, with the containers asked marked.").Bytes())
		labels, notes = append(append(labels, ls...), "4 · successes: X-Flex and the baselines"), append(notes, n...)
	} else {
		notes = append(notes, "the simulation did not run")
	}
	desc := fmt.Sprintf("The X-Flex plan (status %s), a panel per stage: X-Size's shapes against the forecast requests, X-Select's packing of the mixes into the nodes, utilisation over time under X-Flex and each baseline on one shared scale (0 to 1 of the cluster's capacity), the sharing imbalance of the pairs deepest into their bound, and the containers granted under X-Flex and each baseline against those asked.", meta.Status)
	svg, err := sight.Composite{Title: "X-Flex plan", Desc: desc + sight.Notes(notes), Heading: heading(&res.Summary, meta.Status),
		Gap: panelGap, Labels: labels, Panels: panels, Notes: notes}.Bytes()
	return svg, tops, err
}

// heading is the report's first line: the summary's headline figures.
func heading(s *Summary, status solver.Status) string {
	h := fmt.Sprintf("X-Flex plan (%s)", status)
	if s.Epsilon != nil {
		h += fmt.Sprintf(": %d shapes, ε %s", len(s.Shapes), sight.Value(*s.Epsilon))
	}
	if s.Waste != nil {
		h += fmt.Sprintf(", waste %s%%", sight.Value(100**s.Waste))
	}
	if s.Lambda != nil {
		h += fmt.Sprintf("; λ %s (bound %s)", sight.Value(*s.Lambda), sight.Value(*s.LambdaUpperBound))
	}
	if s.SuccessRatio != nil {
		h += fmt.Sprintf("; successes %s× DRF's (ceiling %s×)", sight.Value(*s.SuccessRatio), sight.Value(*s.Ceiling))
	}
	return h
}

// pictured is the part of a plan's result the picture reads.
type pictured struct {
	Stages  Stages  `json:"stages"`
	Summary Summary `json:"summary"`
}

// simDrawn is the part of the simulation's answer the picture reads.
type simDrawn struct {
	simRunDrawn
	Imbalance []simulate.PairSeries  `json:"imbalance"`
	Baselines map[string]simRunDrawn `json:"baselines"`
}

// simRunDrawn is the part of one scheduler's run the picture reads.
type simRunDrawn struct {
	Until       float64              `json:"until"`
	Utilization simulate.Utilization `json:"utilization"`
}

// namedRun is a run with its scheduler's name as the panels show it.
type namedRun struct {
	name string
	run  *simRunDrawn
}

// baselineTitle names a baseline (a simulate baselines key) in a panel.
func baselineTitle(key string) string {
	switch key {
	case simulate.BaselineDRF:
		return "DRF"
	case simulate.BaselineYarnFair:
		return "YARN Fair"
	case simulate.BaselineYarnCapacity:
		return "YARN Capacity"
	}
	return key
}

// simulationPanels draws a utilisation panel per run (X-Flex first,
// then the baselines in name order) on capacity's 0–1 scale and a time
// axis of at least shared[timeScale], and the imbalance of the maxPairs
// pairs deepest into their bound on the same time axis; it records the
// time its own runs need in tops and returns the panels' captions and the
// notes of what it merged or left out.
func simulationPanels(sim *StageRun, shared, tops map[string]float64) (panels [][]byte, labels, notes []string, err error) {
	ans, err := answerOf[simDrawn](sim)
	if err != nil {
		return nil, nil, nil, err
	}
	runs := []namedRun{{"X-Flex", &ans.simRunDrawn}}
	for _, k := range sortedKeys(ans.Baselines) {
		b := ans.Baselines[k]
		runs = append(runs, namedRun{baselineTitle(k), &b})
	}
	own := 0.0
	for _, r := range runs {
		own = math.Max(own, r.run.Until)
	}
	tops[timeScale] = own
	end := math.Max(own, shared[timeScale])
	apps := appsOf(runs)
	for _, r := range runs {
		area, merged := utilArea(r.run, apps)
		area.Title, area.XMax, area.XScale = "Utilisation: "+r.name, end, timeScale
		if merged {
			notes = append(notes, fmt.Sprintf("%s's utilisation steps are merged into %d", r.name, maxSteps))
		}
		if r.run.Utilization.Truncated {
			notes = append(notes, fmt.Sprintf("%s's utilisation series was truncated by the simulator", r.name))
		}
		d := sight.New(panelW, panelH, area.Title, "Utilisation over time stacked by application, as a fraction of the cluster's capacity.")
		area.Draw(d, 0, 0, panelW, panelH)
		panels, labels = append(panels, d.Bytes()), append(labels, "4 · X-Schedule: utilisation, "+r.name)
	}
	pairs := deepest(ans.Imbalance)
	for _, p := range pairs {
		t, s, sl := make([]float64, len(p.Points)), make([]float64, len(p.Points)), make([]float64, len(p.Points))
		for k, pt := range p.Points {
			t[k], s[k], sl[k] = pt.T, pt.Share, pt.Slope
		}
		ts, ss, thinned := sight.PiecewiseLinear(t, s, sl, ans.Until, maxCurve)
		if thinned {
			notes = append(notes, fmt.Sprintf("the %s/%s curve is sampled at %d times", p.A, p.B, maxCurve))
		}
		m := sight.Imbalance{Title: fmt.Sprintf("Sharing %s / %s (Δ = %s)", p.A, p.B, sight.Value(p.Bound)), A: p.A, B: p.B,
			ColourA: sight.Colour(slices.Index(apps, p.A)), ColourB: sight.Colour(slices.Index(apps, p.B)), Bound: p.Bound, T: ts, S: ss,
			TimeLabel: "time (s)", XMax: end, XScale: timeScale}
		d := sight.New(panelW, panelH, m.Title, "The pair's sharing imbalance under X-Flex over time against its bound.")
		m.Draw(d, 0, 0, panelW, panelH)
		panels, labels = append(panels, d.Bytes()), append(labels, "4 · X-Schedule: pair imbalance")
	}
	if len(ans.Imbalance) > len(pairs) {
		notes = append(notes, fmt.Sprintf("%d of %d pairs drawn, those deepest into their bound", len(pairs), len(ans.Imbalance)))
	}
	return panels, labels, notes, nil
}

// appsOf are the applications of the runs' utilisation, by total use
// (most first, ties by name): the first eight get the palette's colours
// in every panel.
func appsOf(runs []namedRun) []string {
	seen := map[string]float64{}
	for _, r := range runs {
		for _, p := range r.run.Utilization.Points {
			for a, v := range p.ByApp {
				seen[a] += v
			}
		}
	}
	names, _ := sight.TopN(seen, 0)
	return names
}

// utilArea is one run's utilisation stacked by application, the first
// eight coloured, the rest summed in grey, on capacity's 0–1 scale
// (shared by every run's panel: utilisation never exceeds it).
func utilArea(run *simRunDrawn, apps []string) (sight.StackedArea, bool) {
	pts := run.Utilization.Points
	named := apps[:min(len(apps), len(sight.Palette))]
	rows := make([][]float64, len(named)+1)
	start, end := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		start[i], end[i] = p.T, run.Until
		if i+1 < len(pts) {
			end[i] = pts[i+1].T
		}
		other := 0.0
		for _, a := range sortedKeys(p.ByApp) {
			if !slices.Contains(named, a) {
				other += p.ByApp[a]
			}
		}
		for k, a := range named {
			rows[k] = append(rows[k], p.ByApp[a])
		}
		rows[len(named)] = append(rows[len(named)], other)
	}
	start, end, rows, merged := sight.Coarsen(start, end, rows, maxSteps)
	a := sight.StackedArea{XLabel: "time (s)", YLabel: "fraction of cluster capacity", Class: "util-area", Start: start, End: end,
		YMax: 1, Scale: "utilisation"}
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

// successChart compares X-Flex with each baseline: a bar each (class
// "bar") of containers granted, expired and still waiting, with the
// containers asked marked (class "mark"), the most any scheduler can
// grant: the ceiling of the success ratio, asked over DRF's successes.
func successChart(s *Summary) sight.BarChart {
	c := sight.BarChart{Unit: "containers", Segments: []string{"granted", "expired", "waiting"},
		Colours: []string{sight.Colour(2), sight.Red, sight.Other}}
	panel := sight.BarPanel{Title: "Containers asked, by outcome"}
	if s.SuccessRatio != nil {
		panel.Note = fmt.Sprintf("X-Flex / DRF %s, ceiling %s", sight.Value(*s.SuccessRatio), sight.Value(*s.Ceiling))
	}
	add := func(name string, r RunSummary) {
		panel.Bars = append(panel.Bars, sight.Bar{Label: name, Parts: []float64{float64(r.Successes), float64(r.Expired), float64(r.Waiting)}})
	}
	if s.XFlex != nil {
		add("X-Flex", *s.XFlex)
		label := fmt.Sprintf("asked: %d", s.XFlex.Asked)
		if s.Ceiling != nil {
			label += fmt.Sprintf(" (ceiling %s× DRF)", sight.Value(*s.Ceiling))
		}
		c.Marks = []sight.Mark{{Value: float64(s.XFlex.Asked), Label: label}}
	}
	for _, name := range sortedKeys(s.Baselines) {
		add(baselineTitle(name), s.Baselines[name])
	}
	c.Panels = []sight.BarPanel{panel}
	return c
}
