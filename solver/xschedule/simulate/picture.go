package simulate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// Picture limits: applications past the palette's eight (by use) share
// the grey "other"; at most maxPairs imbalance panels (the pairs that
// went deepest into their bound); at most maxSteps utilisation steps and
// maxCurve vertices per imbalance curve.
//
// With the packing's own bound (sight.MaxItemRects) these keep the
// document under about 300 KB: a stacked layer costs about 26 bytes a
// step, a pair's five shapes about 65 bytes a vertex, more where the
// curve crosses its bounds.
const (
	maxPairs = 4
	maxSteps = 100
	maxCurve = 150
	panelW   = 350 // two panels and their gap fill sight.PageWidth
	panelH   = 320
	panelGap = 20
)

// picture draws X-Sight's three views of a simulation (the xflex paper,
// section 2.1): cluster utilisation over time stacked by application
// (X-Schedule beside the online-DRF baseline), the sharing imbalance of
// each pair of applications against its bound (Figure 2), and the final
// packing of containers into nodes with their owners and users.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// timeScale names the time axis the utilisation and imbalance panels
// share, with each other and with other answers drawn beside this one
// (solver.SharedPictureFunc).
const timeScale = "time"

// pictureShared is picture with every time axis running to at least
// shared[timeScale]; it returns the end its own runs need.
func pictureShared(request, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	req, result, _, err := solver.DecodePicture[Request, drawn](request, response)
	if err != nil {
		return nil, nil, fmt.Errorf("xschedule-simulate picture: %w", err)
	}
	res := &result
	own := math.Max(res.Until, res.Baselines.DRF.Until)
	end := math.Max(own, shared[timeScale])
	apps := appsByUse(res.Apps)
	pairs, notes := pickPairs(res.Imbalance)
	head := fmt.Sprintf("X-Schedule simulation to t = %s s (%s): %d granted, %d preemptions, mean wait %s s",
		sight.Value(res.Until), res.Ended, res.Summary.Granted, res.Summary.Preemptions, sight.Value(res.Summary.AvgWait))
	var panels [][]byte
	for i, run := range []*drawnRun{&res.drawnRun, &res.Baselines.DRF} {
		area, n := utilArea(run, apps)
		area.Title = []string{"Utilisation: X-Schedule", "Utilisation: online DRF"}[i]
		area.XScale, area.XMax = timeScale, end
		d := sight.New(panelW, panelH, area.Title, "Utilisation over time stacked by application.")
		area.Draw(d, 0, 0, panelW, panelH)
		panels = append(panels, d.Bytes())
		notes = append(notes, n...)
	}
	for _, p := range pairs {
		m, thinned := imbalanceView(p, apps, res.Until)
		m.XScale, m.XMax = timeScale, end
		if thinned {
			notes = append(notes, fmt.Sprintf("the %s/%s curve is sampled at %d times", p.A, p.B, maxCurve))
		}
		d := sight.New(panelW, panelH, m.Title, "The pair's sharing imbalance over time against its bound.")
		m.Draw(d, 0, 0, panelW, panelH)
		panels = append(panels, d.Bytes())
	}
	panels = append(panels, packingView(&req, res.Packing, apps).Draw().Bytes())
	desc := fmt.Sprintf("Cluster utilisation over time stacked by application under X-Schedule and online DRF, on one scale (0 to 1 of the cluster's capacity); the sharing imbalance of %d pairs of applications over time with the centre line, the ±Δ bounds, the borrower's colour and the red zone where the lender may preempt; the final packing of containers into %d nodes, filled by owner and outlined by user. %d applications.",
		len(pairs), len(res.Packing), len(res.Apps))
	svg, err := sight.Composite{Title: "X-Schedule simulation", Desc: desc + sight.Notes(notes), Heading: head, Gap: panelGap,
		Panels: panels, Notes: notes}.Bytes()
	return svg, map[string]float64{timeScale: own}, err
}

// drawn is the part of a Result the picture reads: decoding only these
// fields skips the per-request outcomes and events, most of a large
// answer's bytes.
type drawn struct {
	drawnRun
	Imbalance []PairSeries `json:"imbalance"`
	Baselines struct {
		DRF drawnRun `json:"drf"`
	} `json:"baselines"`
}

// drawnRun is the part of a Run the picture reads.
type drawnRun struct {
	Until       float64     `json:"until"`
	Ended       string      `json:"ended"`
	Summary     Summary     `json:"summary"`
	Apps        []AppTotals `json:"apps"`
	Utilization Utilization `json:"utilization"`
	Packing     []NodeOut   `json:"packing"`
}

// appsByUse orders the applications by use under X-Schedule, most first
// (ties by name): the first eight get the palette's colours in every
// view, the rest are grey.
func appsByUse(totals []AppTotals) []string {
	use := map[string]float64{}
	for _, a := range totals {
		use[a.App] = a.Used
	}
	names, _ := sight.TopN(use, 0)
	return names
}

// colourOf is app's colour: its rank's palette colour, grey past eight.
func colourOf(apps []string, app string) string {
	return sight.Colour(slices.Index(apps, app))
}

// pickPairs keeps the maxPairs pairs whose imbalance went deepest past
// their bound (largest peak |share| / Δ, ties in answer order), in answer
// order, and says what it left out.
func pickPairs(all []PairSeries) ([]PairSeries, []string) {
	var notes []string
	for _, p := range all {
		if p.Truncated {
			notes = append(notes, fmt.Sprintf("the %s/%s series was truncated by the simulator", p.A, p.B))
		}
	}
	if len(all) <= maxPairs {
		return all, notes
	}
	depth := func(p PairSeries) float64 {
		peak := 0.0
		for _, pt := range p.Points {
			peak = math.Max(peak, math.Abs(pt.Share))
		}
		return peak / math.Max(p.Bound, math.SmallestNonzeroFloat64)
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(depth(all[j]), depth(all[i])) })
	idx = idx[:maxPairs]
	slices.Sort(idx)
	kept := make([]PairSeries, len(idx))
	for k, i := range idx {
		kept[k] = all[i]
	}
	notes = append(notes, fmt.Sprintf("%d pairs are drawn, those deepest into their bound; %d more are not", maxPairs, len(all)-maxPairs))
	return kept, notes
}

// utilArea is a run's utilisation stacked by application (the first
// eight by X-Schedule use, the rest summed in grey "other"), one layer
// of class "util-area" per application drawn.
func utilArea(run *drawnRun, apps []string) (sight.StackedArea, []string) {
	pts := run.Utilization.Points
	named := apps[:min(len(apps), len(sight.Palette))]
	rows := make([][]float64, len(named)+1)
	start, end := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		start[i], end[i] = p.T, run.Until
		if i+1 < len(pts) {
			end[i] = pts[i+1].T
		}
		other := 0.0 // summed in name order: the same bits on every run
		for _, app := range slices.Sorted(maps.Keys(p.ByApp)) {
			if !slices.Contains(named, app) {
				other += p.ByApp[app]
			}
		}
		for k, app := range named {
			rows[k] = append(rows[k], p.ByApp[app])
		}
		rows[len(named)] = append(rows[len(named)], other)
	}
	var notes []string
	if run.Utilization.Truncated {
		notes = append(notes, "a utilisation series was truncated by the simulator")
	}
	start, end, rows, merged := sight.Coarsen(start, end, rows, maxSteps)
	if merged {
		notes = append(notes, fmt.Sprintf("%d utilisation steps are merged into %d", len(pts), len(start)))
	}
	// Both runs' panels share one y scale, capacity's 0 to 1 (utilisation
	// never exceeds it), so X-Schedule and DRF compare at a glance.
	a := sight.StackedArea{XLabel: "time (s)", YLabel: "fraction of cluster capacity", Class: "util-area", Start: start, End: end,
		YMax: 1, Scale: "utilisation"}
	for k, app := range named {
		a.Names, a.Colours, a.Values = append(a.Names, app), append(a.Colours, sight.Colour(k)), append(a.Values, rows[k])
	}
	if len(apps) > len(named) {
		a.Names = append(a.Names, fmt.Sprintf("other (%d)", len(apps)-len(named)))
		a.Colours, a.Values = append(a.Colours, sight.Other), append(a.Values, rows[len(named)])
	}
	return a, notes
}

// imbalanceView is one pair's Figure 2 panel.
func imbalanceView(p PairSeries, apps []string, until float64) (sight.Imbalance, bool) {
	t, s, sl := make([]float64, len(p.Points)), make([]float64, len(p.Points)), make([]float64, len(p.Points))
	for i, pt := range p.Points {
		t[i], s[i], sl[i] = pt.T, pt.Share, pt.Slope
	}
	ts, ss, thinned := sight.PiecewiseLinear(t, s, sl, until, maxCurve)
	return sight.Imbalance{
		Title: fmt.Sprintf("Sharing %s / %s (Δ = %s)", p.A, p.B, sight.Value(p.Bound)),
		A:     p.A, B: p.B, ColourA: colourOf(apps, p.A), ColourB: colourOf(apps, p.B),
		Bound: p.Bound, T: ts, S: ss, TimeLabel: "time (s)",
	}, thinned
}

// packingView is the final packing: a column per node, containers filled
// by owner and outlined by user (dashed when free).
func packingView(req *Request, packing []NodeOut, apps []string) sight.Packing {
	p := sight.Packing{
		Title:     "Final packing (X-Schedule)",
		Desc:      "Containers in nodes at the end of the X-Schedule run, filled by owning application and outlined by the application using them (dashed: free).",
		Resources: resourceNames(req, packing),
		Owners:    apps,
	}
	for _, n := range packing {
		pn := sight.PackNode{Name: n.Name, Capacity: n.Capacity}
		for _, c := range n.Containers {
			user := -1
			if c.User != "" {
				user = slices.Index(apps, c.User)
			}
			pn.Items = append(pn.Items, sight.PackItem{Size: c.Size, Owner: slices.Index(apps, c.Owner), User: user,
				Tip: fmt.Sprintf("%s owned by %s, used by %s", c.ID, c.Owner, cmp.Or(c.User, "nobody"))})
		}
		p.Nodes = append(p.Nodes, pn)
	}
	return p
}

// resourceNames are the request's resources, or the placement's, or
// r0, r1, ... for as many as the nodes have.
func resourceNames(req *Request, packing []NodeOut) []string {
	if len(req.Resources) > 0 {
		return req.Resources
	}
	if req.Placement != nil && len(req.Placement.Request.Resources) > 0 {
		return req.Placement.Request.Resources
	}
	var names []string
	if len(packing) > 0 {
		for i := range packing[0].Capacity {
			names = append(names, fmt.Sprintf("r%d", i))
		}
	}
	return names
}
