package simulate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xflex/xflex/sight"
)

// Picture limits: at most maxSteps utilisation steps (bins are merged
// past that), maxResources resources (the most used), and maxCDFPoints
// points per completion-time CDF.
const (
	maxSteps     = 400
	maxResources = 8
	maxCDFPoints = 500
	panelW       = 350 // two panels and their gap fill sight.PageWidth
	panelH       = 360
	panelGap     = 20
)

// cdfTop is the top of a fraction's axis, and the x extent of a CDF
// panel beyond its largest time: a little room so lines at 1 and at the
// largest time stay off the frame.
const cdfTop = 1.05

// demandTol is how far demanded may exceed used (as fractions of
// capacity) before the picture draws the demand line too: below it the
// two lines coincide.
const demandTol = 1e-9

// picture draws a Tetris simulation as two panels: utilisation of each
// resource over time (used, and demanded where it exceeds capacity), and
// the job-completion-time CDF of the policy run and, when the answer
// compares with the fair policy, of that run too.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// Shared scales (solver.SharedPictureFunc): the utilisation's time axis
// and the CDF's completion-time axis.
const (
	timeScale       = "time"
	completionScale = "completion"
)

// pictureShared is picture with its x axes running to at least the
// shared tops (a scenario's variants on one axis each); it returns the
// ends its own answer needs.
func pictureShared(_, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	var resp struct {
		Result Result `json:"result"`
	}
	if err := json.Unmarshal(response, &resp); err != nil {
		return nil, nil, fmt.Errorf("tetris-simulate picture: response: %w", err)
	}
	res := &resp.Result
	util, notes := utilChart(res)
	cdf := cdfChart(res)
	tops := map[string]float64{timeScale: util.LastX(), completionScale: cdf.LastX()}
	util.XScale, util.XMax = timeScale, shared[timeScale]
	cdf.XScale, cdf.XMax = completionScale, shared[completionScale]
	desc := fmt.Sprintf("Utilisation of %d resources over time under %s (fraction of cluster capacity; dashed: demanded, above 1 when over-allocated), and the CDF of job completion times (%d jobs) under %s.",
		len(util.Series)-countDashed(util.Series), res.Policy, len(res.Jobs), policies(cdf))
	if len(res.Unfinished) > 0 {
		notes = append(notes, fmt.Sprintf("%d jobs did not finish and are not in the CDF", len(res.Unfinished)))
	}
	desc += sight.Notes(notes)
	head := fmt.Sprintf("Tetris simulation under %s: makespan %s (lower bound %s), mean completion %s",
		res.Policy, sight.Value(res.Makespan), sight.Value(res.MakespanLB), sight.Value(res.AvgCompletion))
	if !res.Complete {
		head += fmt.Sprintf("; incomplete, %d jobs unfinished", len(res.Unfinished))
	}
	svg, err := sight.Composite{Title: "Tetris simulation: " + res.Policy, Desc: desc, Heading: head, Gap: panelGap,
		Panels: [][]byte{panel(util), panel(cdf)}, Notes: notes}.Bytes()
	return svg, tops, err
}

// panel is a chart drawn as a document of its own, a panel of the
// composite.
func panel(c sight.LineChart) []byte {
	d := sight.New(panelW, panelH, c.Title, c.Title+": "+c.YLabel+" against "+c.XLabel+".")
	c.Draw(d, 0, 0, panelW, panelH)
	return d.Bytes()
}

// utilChart is the utilisation panel: a staircase per resource (class
// "util-line"), its demand dashed (class "demand-line") where it ever
// exceeds use. notes says what was merged or left out.
func utilChart(res *Result) (sight.LineChart, []string) {
	names := resourcesByUse(res)
	var notes []string
	if len(names) > maxResources {
		notes = append(notes, fmt.Sprintf("the %d least used resources are not drawn", len(names)-maxResources))
		names = names[:maxResources]
	}
	start, end := make([]float64, len(res.Utilization)), make([]float64, len(res.Utilization))
	rows := make([][]float64, 2*len(names))
	for i, b := range res.Utilization {
		start[i], end[i] = b.Start, b.End
		for k, r := range names {
			rows[2*k] = append(rows[2*k], b.Used[r])
			rows[2*k+1] = append(rows[2*k+1], b.Demanded[r])
		}
	}
	start, end, rows, merged := sight.Coarsen(start, end, rows, maxSteps)
	if merged {
		notes = append(notes, fmt.Sprintf("%d time bins are merged into %d", len(res.Utilization), len(start)))
	}
	c := sight.LineChart{Title: "Utilisation", XLabel: "time (s)", YLabel: "fraction of capacity", Class: "util-line", Step: true, YMax: cdfTop}
	for k, r := range names {
		used, demanded := rows[2*k], rows[2*k+1]
		c.Series = append(c.Series, stepSeries(r+" used", start, end, used, sight.Colour(k), ""))
		if exceeds(demanded, used) {
			s := stepSeries(r+" demanded", start, end, demanded, sight.Colour(k), "4 3")
			s.Class = "demand-line"
			c.Series = append(c.Series, s)
			c.YMax = math.Max(c.YMax, slices.Max(demanded))
		}
	}
	return c, notes
}

// stepSeries is a binned value as the points of a staircase: each bin's
// value from its start, held to the last bin's end.
func stepSeries(name string, start, end, v []float64, colour, dash string) sight.Series {
	s := sight.Series{Name: name, Colour: colour, Dash: dash, X: slices.Clone(start), Y: slices.Clone(v)}
	if n := len(end); n > 0 {
		s.X, s.Y = append(s.X, end[n-1]), append(s.Y, v[n-1])
	}
	return s
}

// exceeds reports whether some a[i] is above b[i].
func exceeds(a, b []float64) bool {
	for i := range min(len(a), len(b)) {
		if a[i] > b[i]+demandTol {
			return true
		}
	}
	return false
}

// countDashed counts the demand series (drawn dashed).
func countDashed(ss []sight.Series) int {
	n := 0
	for _, s := range ss {
		if s.Dash != "" {
			n++
		}
	}
	return n
}

// resourcesByUse lists the resources of the utilisation bins by average
// use, highest first, ties by name.
func resourcesByUse(res *Result) []string {
	use := map[string]float64{}
	for _, b := range res.Utilization {
		for r, v := range b.Used {
			use[r] += v * (b.End - b.Start)
		}
	}
	names, _ := sight.TopN(use, 0)
	return names
}

// cdfChart is the completion-time CDF panel: one staircase per policy
// (class "cdf-line"), the run's and, when compared, the fair policy's.
func cdfChart(res *Result) sight.LineChart {
	c := sight.LineChart{Title: "Job completion time CDF", XLabel: "completion time (s, finish − arrival)", YLabel: "fraction of jobs", Class: "cdf-line", Step: true, YMax: cdfTop, ZeroX: true}
	var own, fair []float64
	for _, j := range res.Jobs {
		own = append(own, j.Duration)
		if j.FairDuration != nil {
			fair = append(fair, *j.FairDuration)
		}
	}
	xs, ys := sight.CDF(own, maxCDFPoints)
	c.Series = append(c.Series, sight.Series{Name: res.Policy, X: xs, Y: ys, Colour: sight.Colour(0)})
	if res.Fair != nil {
		xs, ys = sight.CDF(fair, maxCDFPoints)
		c.Series = append(c.Series, sight.Series{Name: res.Fair.Policy + " (fair)", X: xs, Y: ys, Colour: sight.Colour(1), Dash: "5 3"})
	}
	last := 0.0
	for _, s := range c.Series {
		if len(s.X) > 0 {
			last = math.Max(last, s.X[len(s.X)-1])
		}
	}
	for i, s := range c.Series {
		if len(s.X) > 0 { // every CDF runs on at 1 to the axis' end
			c.Series[i].X, c.Series[i].Y = append(s.X, last*cdfTop), append(s.Y, 1)
		}
	}
	return c
}

// policies names the CDF's policies.
func policies(c sight.LineChart) string {
	names := make([]string, len(c.Series))
	for i, s := range c.Series {
		names[i] = s.Name
	}
	return strings.Join(names, " and ")
}
