package xschedule

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
)

// SweepBaselines are the baselines the Table 1 sweep runs: the
// simulator's global best fit (drf_best_fit, wire name drf) and the YARN
// schedulers the paper measured.
var SweepBaselines = []string{"drf", "yarn_fair", "yarn_capacity"}

// sweepSeeds is how many seeded job sequences each reading takes the
// medians over (the paper averaged 5 runs).
const sweepSeeds = 5

// paperTie is how close two of the paper's figures in a row may be for
// the paper to call them level (Flex's and Fair's large job, 539.0 and
// 539.6 s): then either order of ours counts as the paper's.
const paperTie = 0.02

// RowOrders are the paper's Table 1 orderings, one per row: the four
// schedulers (flex, fair, fifo, baseline) in the paper's order of that
// row, levels within paperTie allowed either way; the makespan row is
// the paper's "X-Flex makespans comparable (within 5%), the baseline's
// longer".
var RowOrders = []struct {
	Name  string
	Holds func(r []Table1Row) bool
}{
	{"small", func(r []Table1Row) bool { return paperOrder(r, func(x Table1Row) float64 { return x.Small }) }},
	{"medium", func(r []Table1Row) bool { return paperOrder(r, func(x Table1Row) float64 { return x.Medium }) }},
	{"large", func(r []Table1Row) bool { return paperOrder(r, func(x Table1Row) float64 { return x.Large }) }},
	{"overall", func(r []Table1Row) bool { return paperOrder(r, func(x Table1Row) float64 { return x.Overall }) }},
	{"makespan", func(r []Table1Row) bool {
		lo := min(r[0].Makespan, r[1].Makespan, r[2].Makespan)
		hi := max(r[0].Makespan, r[1].Makespan, r[2].Makespan)
		return hi <= 1.05*lo && r[3].Makespan > hi
	}},
}

// paperOrder says whether rows r order the four schedulers by f as the
// paper's Table 1 does.
func paperOrder(r []Table1Row, f func(Table1Row) float64) bool {
	idx := []int{0, 1, 2, 3}
	// The paper's order of the row (insertion sort: four entries).
	for i := 1; i < 4; i++ {
		for j := i; j > 0 && f(Table1Paper[idx[j]]) < f(Table1Paper[idx[j-1]]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	for k := 1; k < 4; k++ {
		a, b := idx[k-1], idx[k]
		if f(Table1Paper[b]) <= (1+paperTie)*f(Table1Paper[a]) {
			if f(r[a]) > (1+paperTie)*f(r[b]) {
				return false
			}
			continue
		}
		if !(f(r[a]) < f(r[b])) {
			return false
		}
	}
	return true
}

// SweepReadings are the readings of the sweep: 36 s tasks (the paper's
// 544 s makespan) and 20 s; every job at 0 or Poisson over ~150 or
// ~300 s; the jobs in a random order or the large one first; the
// baseline's AM limit at 0.5 (Fair's maxAMShare), 0.2 and 0.1
// (Capacity's maximum-am-resource-percent); no latency or a 10 s AM
// start-up and 1 s container launch; containers reused or released per
// task. quick keeps the reading closest to the paper and its neighbours
// in order and spread.
func SweepReadings(quick bool) []Reading {
	if quick {
		return []Reading{
			{TaskSeconds: 36, Spread: 300, LargeFirst: true, AMShare: 0.1, Release: true},
			{TaskSeconds: 36, Spread: 300, AMShare: 0.1, Release: true},
			{TaskSeconds: 36, AMShare: 0.5},
		}
	}
	var out []Reading
	for _, d := range []float64{36, 20} {
		for _, sp := range []float64{0, 150, 300} {
			for _, lf := range []bool{false, true} {
				for _, am := range []float64{0.5, 0.2, 0.1} {
					for _, lat := range []float64{0, 10} {
						for _, rel := range []bool{false, true} {
							out = append(out, Reading{TaskSeconds: d, Spread: sp, LargeFirst: lf, AMShare: am,
								AMLatency: lat, LaunchLatency: lat / 10, Release: rel})
						}
					}
				}
			}
		}
	}
	return out
}

// SweepResult is one reading's tables under each baseline: Rows[b] is
// flex, fair, fifo and baseline SweepBaselines[b] (medians over the
// seeds).
type SweepResult struct {
	Reading Reading
	Rows    [][]Table1Row
}

// RunSweep runs every reading with seeds 1..sweepSeeds; the X-Flex
// columns, which depend only on the task length, arrivals, order and
// latencies, run once per such key.
func RunSweep(ctx context.Context, readings []Reading) ([]SweepResult, error) {
	xcache := map[Reading][][]Table1Row{}
	var out []SweepResult
	for _, r := range readings {
		xs, ok := xcache[r.xflexKey()]
		if !ok {
			for k := uint64(1); k <= sweepSeeds; k++ {
				x, err := RunXFlexColumns(ctx, r, k)
				if err != nil {
					return nil, err
				}
				xs = append(xs, x)
			}
			xcache[r.xflexKey()] = xs
		}
		res := SweepResult{Reading: r}
		for _, b := range SweepBaselines {
			var all [][]Table1Row
			for k := uint64(1); k <= sweepSeeds; k++ {
				row, err := RunBaselineColumn(ctx, r, k, b)
				if err != nil {
					return nil, err
				}
				all = append(all, append(append([]Table1Row(nil), xs[k-1]...), row))
			}
			res.Rows = append(res.Rows, medianRows(all))
		}
		out = append(out, res)
	}
	return out, nil
}

// Closest is the reading whose table under baseline b is nearest the
// paper's (distance), and that distance.
func Closest(rs []SweepResult, b int) (SweepResult, float64) {
	best, bd := SweepResult{}, math.Inf(1)
	for _, r := range rs {
		if d := distance(r.Rows[b]); d < bd {
			best, bd = r, d
		}
	}
	return best, bd
}

// OrderCounts counts, per baseline and row ordering, the readings where
// it holds; the last count per baseline is the readings where all five
// hold.
func OrderCounts(rs []SweepResult) [][]int {
	out := make([][]int, len(SweepBaselines))
	for b := range SweepBaselines {
		out[b] = make([]int, len(RowOrders)+1)
		for _, r := range rs {
			all := true
			for i, o := range RowOrders {
				if o.Holds(r.Rows[b]) {
					out[b][i]++
				} else {
					all = false
				}
			}
			if all {
				out[b][len(RowOrders)]++
			}
		}
	}
	return out
}

// String names a reading in a table.
func (r Reading) String() string {
	order := "random order"
	if r.LargeFirst {
		order = "large first"
	}
	lat := "no latency"
	if r.AMLatency > 0 || r.LaunchLatency > 0 {
		lat = fmt.Sprintf("AM %gs/launch %gs", r.AMLatency, r.LaunchLatency)
	}
	return fmt.Sprintf("%gs tasks, %s, %s, AM %g, %s, %s", r.TaskSeconds, spreadName(r.Spread), order, r.AMShare, lat, reuseName(r.Release))
}

// SweepReport prints the sweep: per baseline, how many readings keep
// each of the paper's row orderings, the readings where the large-job
// and overall orderings both hold, and the closest reading's table next
// to the paper's.
func SweepReport(ctx context.Context, w io.Writer, quick bool) error {
	rs, err := RunSweep(ctx, SweepReadings(quick))
	if err != nil {
		return err
	}
	counts := OrderCounts(rs)
	fmt.Fprintf(w, "Readings where each of the paper's Table 1 orderings holds (of %d; medians of %d seeds):\n\n", len(rs), sweepSeeds)
	fmt.Fprintf(w, "| baseline | small | medium | large | overall | makespan | all five |\n|---|---|---|---|---|---|---|\n")
	for b, name := range SweepBaselines {
		c := counts[b]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d |\n", name, c[0], c[1], c[2], c[3], c[4], c[5])
	}
	for b, name := range SweepBaselines {
		var both []string
		for _, r := range rs {
			if RowOrders[2].Holds(r.Rows[b]) && RowOrders[3].Holds(r.Rows[b]) {
				both = append(both, r.Reading.String())
			}
		}
		fmt.Fprintf(w, "\n%s: the large-job and overall orderings both hold in %d readings%s\n", name, len(both), examples(both, 3))
		c, d := Closest(rs, b)
		fmt.Fprintf(w, "\nclosest reading under %s (RMS relative error %.2f): %s\n\n", name, d, c.Reading)
		printAgainstPaper(w, c.Rows[b])
	}
	return nil
}

// printAgainstPaper prints a table's response times and makespans next
// to the paper's.
func printAgainstPaper(w io.Writer, rows []Table1Row) {
	fmt.Fprintf(w, "| | flex | paper | fair | paper | fifo | paper | %s | paper (DRF) |\n|---|---|---|---|---|---|---|---|---|\n", rows[3].Scheduler)
	for _, f := range table1Fields {
		fmt.Fprintf(w, "| %s |", f.name)
		for i := range rows {
			fmt.Fprintf(w, " %.1f | %.1f |", f.get(rows[i]), f.get(Table1Paper[i]))
		}
		fmt.Fprintln(w)
	}
}

// table1Field is one of Table 1's rows: its name and how a column's
// figure is read.
type table1Field struct {
	name string
	get  func(Table1Row) float64
}

// table1Fields are Table 1's rows.
var table1Fields = []table1Field{
	{"small ART", func(r Table1Row) float64 { return r.Small }},
	{"medium ART", func(r Table1Row) float64 { return r.Medium }},
	{"large ART", func(r Table1Row) float64 { return r.Large }},
	{"overall ART", func(r Table1Row) float64 { return r.Overall }},
	{"makespan", func(r Table1Row) float64 { return r.Makespan }},
}

// examples lists the first n of names after a colon, saying how many
// more there are.
func examples(names []string, n int) string {
	if len(names) == 0 {
		return ""
	}
	s := ", e.g. " + strings.Join(names[:min(n, len(names))], "; ")
	if len(names) > n {
		s += fmt.Sprintf(" (and %d more)", len(names)-n)
	}
	return s
}
