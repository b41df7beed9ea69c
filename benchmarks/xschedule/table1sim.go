package xschedule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/master"
	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// SimSetting is a Table 1 reading run through the X-Schedule simulator:
// the three applications share the cluster under X-Schedule, Flex asking
// with FlexType (and FlexOverflow beyond its own containers, when set)
// and sharing bound 0, Fair and FIFO with Type and bound Bound,
// preemption notices of Grace seconds.
type SimSetting struct {
	Table1Setting
	FlexType, FlexOverflow, Type string
	Bound, Grace                 float64
	// Readings are X-Schedule's readings (nil: the defaults, which keep
	// the paper's guarantees; assign.ReadingsLiteral for the literal
	// ones).
	Readings *assign.Readings
	// LightFair keeps only every third of Fair's jobs (in arrival
	// order), so Fair's containers are often idle while Flex and FIFO
	// have work: the load where sharing can help (not the paper's).
	LightFair bool
}

// SimOutcome is one simulated reading: the rows (flex, fair, fifo, drf;
// utilisation here is the container-seconds held, AMs included, over
// all 78 containers until the last makespan), the preemptions under
// X-Schedule, and whether both runs ended with every job done before the
// horizon (simHorizon makespans of the work on 25 containers).
type SimOutcome struct {
	Rows        []Table1Row
	Preemptions int
	Finished    bool
}

// simHorizon bounds a simulated reading at this many times the 540 s
// (for 36 s tasks) that one application's 375 tasks take on its 25
// containers: X-Schedule can preempt forever (see RESULTS.md).
const simHorizon = 3

// RunTable1Sim runs s through POST /v1/xschedule/simulate's solver within
// ctx.
func RunTable1Sim(ctx context.Context, s SimSetting) (SimOutcome, error) {
	req := simulate.Table1Request(s.TaskSeconds, s.Spread, s.Seed, s.Bound, s.Grace, s.FlexType, s.Type)
	req.Settings.AMShare = &s.AMShare
	req.Settings.Readings = s.Readings
	if s.LightFair {
		var jobs []simulate.MasterJobIn
		for i, j := range req.Masters[1].Jobs {
			if i%3 == 0 {
				jobs = append(jobs, j)
			}
		}
		req.Masters[1].Jobs = jobs
	}
	req.Masters[0].OverflowType = s.FlexOverflow
	horizon := simHorizon * 375 * s.TaskSeconds / appContainers
	req.Horizon = &horizon
	raw, err := json.Marshal(req)
	if err != nil {
		return SimOutcome{}, err
	}
	v, _, err := simulate.Problem().Solve(ctx, raw, solver.Options{})
	if err != nil {
		return SimOutcome{}, err
	}
	res := v.(*simulate.Result)
	out := SimOutcome{Preemptions: res.Summary.Preemptions, Finished: res.Ended == simulate.EndQuiet && res.Baselines.DRF.Ended == simulate.EndQuiet}
	if !out.Finished {
		return out, nil
	}
	for _, m := range res.Masters {
		out.Rows = append(out.Rows, simRow(m.Policy, []simulate.MasterOut{m}, res.Summary.Used))
	}
	drf := res.Baselines.DRF
	out.Rows = append(out.Rows, simRow("drf", drf.Masters, drf.Summary.Used))
	return out, nil
}

// simRow averages the masters' jobs' response times by class.
func simRow(name string, ms []simulate.MasterOut, used float64) Table1Row {
	row := Table1Row{Scheduler: name}
	sum, n := map[string]float64{}, map[string]int{}
	for _, m := range ms {
		row.Makespan = math.Max(row.Makespan, *m.Makespan)
		for _, j := range m.Jobs {
			c := master.Table1Class(j.Tasks)
			sum[c] += *j.Response
			n[c]++
			sum[""] += *j.Response
			n[""]++
		}
	}
	row.Small, row.Medium, row.Large = sum["small"]/float64(n["small"]), sum["medium"]/float64(n["medium"]), sum["large"]/float64(n["large"])
	row.Overall = sum[""] / float64(n[""])
	row.Utilisation = used / (drfContainers * row.Makespan)
	return row
}

// SimSettings are the simulated readings of RESULTS.md: 36 s tasks, DRF
// AM share 0.5, every job at 0 or Poisson over 300 s; X-Schedule with
// owned_only asks (no borrowing), with Flex owned_only and the others
// owned_first (Flex lends its idle containers and takes them back, but
// never borrows), the same with Flex's asks beyond its own containers
// non_owned (best effort elsewhere), and with every application
// owned_first; Fair's and
// FIFO's bound 1 (about 39 container-seconds of one container), notices
// of 30 s and of 0 s (killed at once). Each group starts with its
// no-sharing reading (every ask owned_only). Then the same with Fair
// light (LightFair), without sharing, with Flex owned_only + non_owned
// and with every application owned_first.
func SimSettings(scale string) []SimSetting {
	var out []SimSetting
	for _, sp := range []float64{0, 300} {
		base := Table1Setting{TaskSeconds: 36, Spread: sp, AMShare: 0.5}
		out = append(out, SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_only"})
		for _, g := range []float64{30, 0} {
			out = append(out, SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_first", Bound: 1, Grace: g},
				SimSetting{Table1Setting: base, FlexType: "owned_only", FlexOverflow: "non_owned", Type: "owned_first", Bound: 1, Grace: g},
				SimSetting{Table1Setting: base, FlexType: "owned_first", Type: "owned_first", Bound: 1, Grace: g})
		}
		out = append(out, SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_only", LightFair: true})
		for _, g := range []float64{30, 0} {
			out = append(out, SimSetting{Table1Setting: base, FlexType: "owned_only", FlexOverflow: "non_owned", Type: "owned_first", Bound: 1, Grace: g, LightFair: true},
				SimSetting{Table1Setting: base, FlexType: "owned_first", Type: "owned_first", Bound: 1, Grace: g, LightFair: true})
		}
		if scale != "full" {
			break
		}
	}
	return out
}

// Table1SimReport prints each simulated reading's medians over seeds
// 1..5: the three X-Flex applications' overall average response times
// with sharing next to their figures without it (the reading with every
// ask owned_only, same arrivals), DRF's, the makespans and the median
// and largest preemption count (a reading any of whose seeds did not
// finish within ctx and the horizon says so).
func Table1SimReport(ctx context.Context, w io.Writer, scale string) error {
	fmt.Fprintf(w, "\n| task s | arrivals | asks flex / others, bound, grace | overall ART flex / fair / fifo, shared (alone) | drf | makespan X-Flex / drf | preemptions median (max) | paper claims that fail |\n|---|---|---|---|---|---|---|---|\n")
	var alone []Table1Row
	for _, s := range SimSettings(scale) {
		rows, pre, err := seedsSim(ctx, s, 5)
		if err != nil {
			return err
		}
		if s.Type == assign.OwnedOnly && s.FlexOverflow == "" {
			alone = rows
		}
		ft := s.FlexType
		if s.FlexOverflow != "" {
			ft += "+" + s.FlexOverflow
		}
		name := fmt.Sprintf("%s / %s, %g, %g s", ft, s.Type, s.Bound, s.Grace)
		claims := ""
		if s.LightFair {
			name = "fair ⅓ jobs: " + name
		} else if rows != nil {
			claims = failedClaims(rows)
		}
		if rows == nil {
			fmt.Fprintf(w, "| %g | %s | %s | did not finish | | | %.0f (%.0f) | |\n", s.TaskSeconds, spreadName(s.Spread), name, median(pre), slices.Max(pre))
			continue
		}
		fmt.Fprintf(w, "| %g | %s | %s | %s | %.1f | %.0f / %.0f | %.0f (%.0f) | %s |\n", s.TaskSeconds, spreadName(s.Spread), name,
			sharedLine(rows, alone), rows[3].Overall, max(rows[0].Makespan, rows[1].Makespan, rows[2].Makespan), rows[3].Makespan,
			median(pre), slices.Max(pre), claims)
	}
	return nil
}

// sharedLine is the X-Flex applications' overall ART, each with its
// figure alone when known.
func sharedLine(rows, alone []Table1Row) string {
	var parts []string
	for i := range 3 {
		p := fmt.Sprintf("%.1f", rows[i].Overall)
		if alone != nil {
			p += fmt.Sprintf(" (%.1f)", alone[i].Overall)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " / ")
}

// seedsSim runs s with seeds 1..seeds: the entries' medians and each
// seed's preemption count, or nil rows when some seed did not finish.
func seedsSim(ctx context.Context, s SimSetting, seeds int) ([]Table1Row, []float64, error) {
	var all [][]Table1Row
	var pre []float64
	finished := true
	for k := 1; k <= seeds; k++ {
		s.Seed = uint64(k)
		o, err := RunTable1Sim(ctx, s)
		if err != nil {
			return nil, nil, fmt.Errorf("seed %d: %w", k, err)
		}
		pre = append(pre, float64(o.Preemptions))
		finished = finished && o.Finished
		all = append(all, o.Rows)
	}
	if !finished {
		return nil, pre, nil
	}
	return medianRows(all), pre, nil
}
