package flex

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// maxBaselineJobs is the most jobs whose FIFO and Fair schedules the
// picture recomputes: the response carries only their objectives, and
// Fair's interval listing takes O(J² log J).
const maxBaselineJobs = sight.MaxRows

// picture draws a Flex answer as a Gantt chart: one row per job in the
// answer's priority order, bars for the slots it holds over time, a tick
// at its completion; beside it, on the same time axis, the FIFO and Fair
// schedules of the same request (recomputed: the response lists only
// their objectives), each panel titled with its objective.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// timeScale names the shared scale of the schedules' time axes
// (solver.SharedPictureFunc).
const timeScale = "time"

// pictureShared is picture with the time axis running to at least
// shared[timeScale] (a scenario's variants on one axis); it returns the
// end its own schedules need.
func pictureShared(request, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	req, res, meta, err := solver.DecodePicture[Request, pictureResult](request, response)
	if err != nil {
		return nil, nil, err
	}
	row := make(map[string]int, len(res.Ordering))
	for i, id := range res.Ordering {
		row[id] = i
	}
	g := sight.Gantt{
		Title: fmt.Sprintf("Flex: %s %s = %s (%s)", res.Aggregate, res.Metric, sight.Num(res.Objective), meta.Status),
		Desc:  fmt.Sprintf("Malleable schedule of %d jobs on %d slots; rows in the answer's priority order (%s).", len(req.Jobs), req.Slots, res.OrderingSource),
		Rows:  res.Ordering,
		Start: req.Start,
		// Work is in slot-seconds (the request's schema), so its clock
		// is in seconds.
		TimeLabel: "time (s)",
	}
	g.Panels = append(g.Panels, flexPanel(res, row))
	if res.IntervalsCut {
		g.Notes = append(g.Notes, fmt.Sprintf("the response lists only its first %d intervals: the bars stop there, the completion ticks do not", len(res.Intervals)))
	}
	base, note, err := baselinePanels(&req, res, row)
	if err != nil {
		return nil, nil, err
	}
	g.Panels = append(g.Panels, base...)
	if note != "" {
		g.Notes = append(g.Notes, note)
	}
	g.End = shared[timeScale]
	svg, err := g.Draw()
	return svg, map[string]float64{timeScale: g.LastEnd()}, err
}

// pictureResult is the part of Result the picture reads, with each
// interval's slots as the JSON object they are written as.
type pictureResult struct {
	Objective      float64  `json:"objective"`
	Metric         string   `json:"metric"`
	Aggregate      string   `json:"aggregate"`
	Ordering       []string `json:"ordering"`
	OrderingSource string   `json:"ordering_source"`
	Intervals      []struct {
		Start float64        `json:"start"`
		End   float64        `json:"end"`
		Slots map[string]int `json:"slots"`
	} `json:"intervals"`
	IntervalsCut bool      `json:"intervals_truncated"`
	Jobs         []JobOut  `json:"jobs"`
	Baselines    Baselines `json:"baselines"`
}

// flexPanel is the answer's own schedule.
func flexPanel(res pictureResult, row map[string]int) sight.GanttPanel {
	p := sight.GanttPanel{Title: fmt.Sprintf("Flex (%s ordering): %s %s = %s", res.OrderingSource, res.Aggregate, res.Metric, sight.Num(res.Objective)), Ends: nanEnds(len(row))}
	for _, iv := range res.Intervals {
		for id, s := range iv.Slots {
			if s > 0 {
				p.Bars = append(p.Bars, sight.GanttBar{Row: row[id], Start: iv.Start, End: iv.End, Slots: float64(s)})
			}
		}
	}
	for _, j := range res.Jobs {
		p.Ends[row[j.ID]] = j.Completion
	}
	return p
}

// nanEnds is n unknown completion times.
func nanEnds(n int) []float64 {
	e := make([]float64, n)
	for i := range e {
		e[i] = math.NaN()
	}
	return e
}

// baselinePanels recomputes the FIFO and Fair schedules (up to
// maxBaselineJobs jobs; a note says why they are missing otherwise),
// titled with the objectives the response reports.
func baselinePanels(req *Request, res pictureResult, row map[string]int) ([]sight.GanttPanel, string, error) {
	if len(req.Jobs) > maxBaselineJobs {
		return nil, fmt.Sprintf("FIFO (%s) and Fair (%s) not drawn past %d jobs", objective(res.Baselines.FIFO), objective(res.Baselines.Fair), maxBaselineJobs), nil
	}
	in, err := Build(req)
	if err != nil {
		return nil, "", fmt.Errorf("request: %w", err)
	}
	n := in.N()
	comp := make([]float64, n)
	rec := &mpsRecord{events: make([]rateEvent, 0, 2*n)}
	in.mps(in.arrivalOrder(), true, newMPSWork(n), comp, rec)
	fifo := in.intervalsFromRecord(rec, comp, -1)
	fairComp, _, fair := in.fairReference(-1)
	return []sight.GanttPanel{
		in.panel("FIFO: "+objective(res.Baselines.FIFO), fifo, comp, row),
		in.panel("Fair: "+objective(res.Baselines.Fair), fair, fairComp, row),
	}, "", nil
}

// objective is a baseline's objective and ratio to Flex's, as text.
func objective(b Baseline) string {
	if b.Objective == nil {
		return "skipped"
	}
	if b.Ratio == nil {
		return sight.Num(*b.Objective)
	}
	return fmt.Sprintf("%s (%s× Flex)", sight.Num(*b.Objective), sight.Num(*b.Ratio))
}

// panel is a schedule given by its intervals and completion times.
func (in *Instance) panel(title string, ivs []Interval, comp []float64, row map[string]int) sight.GanttPanel {
	p := sight.GanttPanel{Title: title, Ends: nanEnds(len(row))}
	for _, iv := range ivs {
		for k, j := range iv.Jobs {
			p.Bars = append(p.Bars, sight.GanttBar{Row: row[in.Jobs[j].ID], Start: iv.Start, End: iv.End, Slots: float64(iv.Slots[k])})
		}
	}
	for j, c := range comp {
		p.Ends[row[in.Jobs[j].ID]] = c
	}
	return p
}
