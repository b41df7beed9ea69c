package cmmf

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// Picture limits: more users than maxBars are drawn as the largest
// maxBars (by CMMF total) and one "other" bar; more machine types (or
// machines) than maxSegments as the maxSegments-1 most allocated and
// "other", so every colour stays distinct.
const (
	maxBars     = 60
	maxSegments = 7
)

// picture draws a CMMF answer as X-Sight draws allocations: a stacked bar
// per user (its machines by type, or by machine for a machines request)
// beside the same users' totals under Choosy and under independent
// allocation, one panel each on one scale.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// barScale names the shared scale of the bars (solver.SharedPictureFunc).
const barScale = "machines"

// pictureShared is picture with the bars on a scale of at least
// shared[barScale] machines (a scenario's variants on one scale); it
// returns the longest bar its own answer needs.
func pictureShared(request, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	req, result, meta, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, nil, fmt.Errorf("cmmf picture: %w", err)
	}
	res := &result
	chart := sight.BarChart{Unit: "machines", Segments: segmentNames(&req, res)}
	chart.Panels = append(chart.Panels, cmmfPanel(res, chart.Segments, string(meta.Status)))
	var notes []string
	if n := chart.KeepSegments(maxSegments); n > 0 {
		notes = append(notes, fmt.Sprintf("the %d %ss least allocated are grouped as other", n, kindOf(&req)))
	}
	chart = withBaselines(chart)
	n := len(chart.Segments)
	chart.Panels[0] = widen(chart.Panels[0], n)
	if res.Choosy.Skipped == "" {
		chart.Panels = append(chart.Panels, totalsPanel("Choosy", res.Choosy.Users, res.Choosy.RMSE, n, n-2))
	} else {
		notes = append(notes, "Choosy not run: "+res.Choosy.Skipped)
	}
	chart.Panels = append(chart.Panels, totalsPanel("Independent", res.Independent.Users, res.Independent.RMSE, n, n-1))
	if n := chart.KeepBars(maxBars); n > 0 {
		notes = append(notes, fmt.Sprintf("the %d users with the largest CMMF totals are drawn; the other %d are drawn as one bar of their mean", maxBars, n))
	}
	desc := fmt.Sprintf("Allocation per user, stacked by %s: CMMF (%s, divisible %t) beside the baselines' totals. %d users, %d panels.",
		kindOf(&req), meta.Status, res.Divisible, len(res.Users), len(chart.Panels))
	chart.Top = shared[barScale]
	d := chart.Doc("CMMF allocation", desc+sight.Notes(notes))
	d.Footnote(notes)
	return d.Bytes(), map[string]float64{barScale: chart.Max()}, nil
}

// kindOf names what a bar's segments are.
func kindOf(req *Request) string {
	if len(req.Machines) > 0 {
		return "machine"
	}
	return "machine type"
}

// segmentNames lists the machine types (or machines) in request order,
// then any name only the answer uses, sorted.
func segmentNames(req *Request, res *Result) []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, t := range req.MachineTypes {
		add(t.Name)
	}
	for _, m := range req.Machines {
		add(m.Name)
	}
	var extra []string
	for _, u := range res.Users {
		for _, e := range u.Allocation {
			if !seen[e.Name] {
				extra = append(extra, e.Name)
			}
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		add(k)
	}
	return names
}

// cmmfPanel is CMMF's bars: each user's allocation by segment.
func cmmfPanel(res *Result, segs []string, status string) sight.BarPanel {
	index := map[string]int{}
	for i, s := range segs {
		index[s] = i
	}
	p := sight.BarPanel{Title: "CMMF", Note: fmt.Sprintf("%s; moved %s", status, sight.Value(res.Moved))}
	if len(res.Leximin) > 0 {
		p.Note = fmt.Sprintf("%s; min share %s; moved %s", status, sight.Value(res.Leximin[0]), sight.Value(res.Moved))
	}
	for _, u := range res.Users {
		b := sight.Bar{Label: u.Name, Parts: make([]float64, len(segs))}
		for _, e := range u.Allocation {
			b.Parts[index[e.Name]] += e.Amount
		}
		p.Bars = append(p.Bars, b)
	}
	return p
}

// totalsPanel is a baseline's bars: each user's total, not split by
// machine type (the baselines report totals only), in segment seg of
// segs.
func totalsPanel(title string, users []Total, rmse float64, segs, seg int) sight.BarPanel {
	p := sight.BarPanel{Title: title, Note: "RMSE vs CMMF " + sight.Value(rmse)}
	for _, u := range users {
		b := sight.Bar{Label: u.Name, Parts: make([]float64, segs)}
		b.Parts[seg] = u.Total
		p.Bars = append(p.Bars, b)
	}
	return p
}

// Baselines' colours: they report totals only, drawn light in a dashed
// outline (sight.BarChart.Dashes), each its own dash and grey, so neither
// is mistaken for a machine kind nor for the other.
const (
	choosyColour      = "#000000"
	independentColour = "#666666"
)

// withBaselines adds the segments of the two baselines' unsplit totals
// after the machine kinds (palette colours unless already coloured).
func withBaselines(c sight.BarChart) sight.BarChart {
	if c.Colours == nil {
		for i := range c.Segments {
			c.Colours = append(c.Colours, sight.Colour(i))
		}
	}
	c.Dashes = make([]string, len(c.Segments), len(c.Segments)+2)
	c.Segments = append(c.Segments, "Choosy total (not split)", "Independent total (not split)")
	c.Colours = append(c.Colours, choosyColour, independentColour)
	c.Dashes = append(c.Dashes, "4 2", "1 2")
	return c
}

// widen gives every bar of p n parts (the new ones zero).
func widen(p sight.BarPanel, n int) sight.BarPanel {
	for i, b := range p.Bars {
		p.Bars[i].Parts = append(b.Parts, make([]float64, n-len(b.Parts))...)
	}
	return p
}
