package fairshare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// Picture limits: more frameworks than maxBars are drawn as the largest
// maxBars (by the answer's own policy) and one "other" bar per panel; more
// servers than maxSegments as the maxSegments-1 most used and "other".
// panelsPerRow wraps a compare answer's panels.
const (
	maxBars      = 60
	maxSegments  = 8
	panelsPerRow = 3
)

// picture draws a fair-share answer as X-Sight draws allocations: a bar
// per framework stacked by server, one panel per policy — the requested
// policy alone, or with compare every policy (the exact optima mmf, pf
// and efficiency beside the progressive-filling family) on one scale.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// barScale names the shared scale of the bars (solver.SharedPictureFunc).
const barScale = "tasks"

// pictureShared is picture with the bars on a scale of at least
// shared[barScale] tasks (a scenario's variants on one scale); it returns
// the longest bar its own answer needs.
func pictureShared(request, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	req, res, _, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, nil, fmt.Errorf("fairshare picture: %w", err)
	}
	results := res.Compare
	if len(results) == 0 {
		results = []*Result{&res}
	}
	chart := sight.BarChart{PerRow: panelsPerRow, Unit: "tasks", Segments: serverNames(&req, results)}
	index := map[string]int{}
	for i, s := range chart.Segments {
		index[s] = i
	}
	for _, r := range results {
		chart.Panels = append(chart.Panels, policyPanel(r, index))
	}
	var notes []string
	if n := chart.KeepSegments(maxSegments); n > 0 {
		notes = append(notes, fmt.Sprintf("the %d servers least used are grouped as other", n))
	}
	if chart.Colours == nil {
		for i := range chart.Segments {
			chart.Colours = append(chart.Colours, sight.Colour(i))
		}
	}
	if n := chart.KeepBars(maxBars); n > 0 {
		notes = append(notes, fmt.Sprintf("the %d frameworks with the most tasks under %s are drawn; the other %d are drawn as one bar of their mean", maxBars, panelTitle(results[0]), n))
	}
	desc := fmt.Sprintf("Tasks per framework, stacked by server, under %d %s (%s). %d frameworks on %d servers.",
		len(results), plural(len(results), "policy", "policies"), titles(results), len(res.Frameworks), len(req.Servers))
	chart.Top = shared[barScale]
	d := chart.Doc("Fair shares on heterogeneous servers", desc+sight.Notes(notes))
	d.Footnote(notes)
	return d.Bytes(), map[string]float64{barScale: chart.Max()}, nil
}

// serverNames lists the servers in request order, then any name only an
// answer uses, sorted.
func serverNames(req *Request, results []*Result) []string {
	var names, extra []string
	seen := map[string]bool{}
	for _, s := range req.Servers {
		if !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	for _, r := range results {
		for _, f := range r.Frameworks {
			for s := range f.ByServer {
				if !seen[s] {
					seen[s] = true
					extra = append(extra, s)
				}
			}
		}
	}
	slices.Sort(extra)
	return append(names, extra...)
}

// policyPanel is one policy's bars: each framework's tasks by server.
func policyPanel(r *Result, index map[string]int) sight.BarPanel {
	note := "total " + sight.Value(r.TotalTasks) + " tasks"
	if r.Status != "" {
		note += "; " + r.Status
	}
	if r.Gap != nil && *r.Gap > 0 {
		note += "; gap " + sight.Value(*r.Gap)
	}
	p := sight.BarPanel{Title: panelTitle(r), Note: note}
	for _, f := range r.Frameworks {
		b := sight.Bar{Label: f.Name, Parts: make([]float64, len(index))}
		for s, v := range f.ByServer {
			b.Parts[index[s]] += v
		}
		p.Bars = append(p.Bars, b)
	}
	return p
}

// panelTitle names a policy with its server selection and criterion.
func panelTitle(r *Result) string {
	var q []string
	for _, s := range []string{r.Selection, r.Criterion} {
		if s != "" {
			q = append(q, s)
		}
	}
	if r.Integer {
		q = append(q, "integer")
	}
	if len(q) == 0 {
		return r.Policy
	}
	return r.Policy + " (" + strings.Join(q, ", ") + ")"
}

// titles lists the panels' titles.
func titles(rs []*Result) string {
	ts := make([]string, len(rs))
	for i, r := range rs {
		ts[i] = panelTitle(r)
	}
	return strings.Join(ts, ", ")
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
