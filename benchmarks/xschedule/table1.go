package xschedule

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/xflex/xflex/solver/xschedule/master"
)

// Table1Setting is one reading of the X-Flex paper's Table 1 experiment,
// whose task durations and arrivals the paper does not state.
type Table1Setting struct {
	TaskSeconds float64 // every map task's duration
	Spread      float64 // arrivals: 0 all at time 0, else Poisson over about Spread seconds
	Seed        uint64  // the arrival order and gaps
	AMShare     float64 // the DRF pool's cap on AM containers (0: none)
	// DRFRelease: DRF's jobs give each container back when its task ends
	// (YARN's MapReduce AM) instead of reusing it for their next task.
	DRFRelease bool
}

// Table1Row is one scheduler's column of Table 1: average response times
// by job class and overall, the makespan and the utilisation (the
// container-seconds spent on tasks over those of its containers, AMs
// included: 26 per X-Flex application, 78 for DRF, until its makespan).
type Table1Row struct {
	Scheduler                     string
	Small, Medium, Large, Overall float64
	Makespan, Utilisation         float64
}

// Table 1's sizes: three X-Flex applications of 25 task containers each
// (their AMs hold 3 more), the DRF pool of the same 78 containers.
const (
	appContainers = 25
	drfContainers = 78
	table1Apps    = 3
)

// RunTable1 runs one setting: each X-Flex application (flex with average
// response time, fair, fifo) alone on its 25 containers (no sharing
// between them), and DRF on 78 containers with the 93 jobs as its users,
// each job with its own AM container. The three applications get the
// same jobs (a paired comparison); DRF gets three copies of them.
func RunTable1(s Table1Setting) ([]Table1Row, error) {
	jobs := master.Table1Jobs(s.TaskSeconds, s.Spread, s.Seed)
	var rows []Table1Row
	for _, p := range []master.Policy{master.Flex, master.Fair, master.FIFO} {
		m, err := master.New(master.Config{Policy: p, Seed: int64(s.Seed)}, jobs)
		if err != nil {
			return nil, err
		}
		if _, err := (master.Pool{Containers: appContainers}).Run([]*master.Master{m}); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		rows = append(rows, summarise(p.String(), []*master.Master{m}, appContainers+1))
	}
	row, err := runDRF(s, jobs)
	if err != nil {
		return nil, err
	}
	return append(rows, row), nil
}

// runDRF runs the DRF column: every job of the three applications is its
// own DRF user (a master with one job and a job-level AM), listed by
// arrival and then application, the order DRF breaks ties in.
func runDRF(s Table1Setting, jobs []master.Job) (Table1Row, error) {
	var ms []*master.Master
	for _, j := range jobs {
		for a := range table1Apps {
			j.ID = fmt.Sprintf("app%d/%s", a, j.ID)
			m, err := master.New(master.Config{Policy: master.FIFO, AM: true, ReleaseEachTask: s.DRFRelease}, []master.Job{j})
			if err != nil {
				return Table1Row{}, err
			}
			ms = append(ms, m)
		}
	}
	if _, err := (master.Pool{Containers: drfContainers, AMShare: s.AMShare}).Run(ms); err != nil {
		return Table1Row{}, fmt.Errorf("drf: %w", err)
	}
	return summarise("drf", ms, drfContainers), nil
}

// summarise averages the masters' response times by class and sets the
// utilisation of containers containers.
func summarise(name string, ms []*master.Master, containers int) Table1Row {
	row := Table1Row{Scheduler: name}
	sum, n := map[string]float64{}, map[string]int{}
	work := 0.0
	for _, m := range ms {
		row.Makespan = math.Max(row.Makespan, m.Makespan())
		for _, r := range m.Runs() {
			work += r.End - r.Start
		}
		for _, r := range m.Results() {
			c := master.Table1Class(r.Tasks)
			sum[c] += r.Response
			n[c]++
			sum[""] += r.Response
			n[""]++
		}
	}
	row.Small, row.Medium, row.Large = sum["small"]/float64(n["small"]), sum["medium"]/float64(n["medium"]), sum["large"]/float64(n["large"])
	row.Overall = sum[""] / float64(n[""])
	row.Utilisation = work / (float64(containers) * row.Makespan)
	return row
}

// Table1Paper is the paper's Table 1 (seconds, averages of 5 runs), with
// the CPU utilisation its text gives (92% for X-Flex as a whole, 80% for
// DRF).
var Table1Paper = []Table1Row{
	{Scheduler: "flex", Small: 76.2, Medium: 270.1, Large: 539.0, Overall: 122.4, Makespan: 544.2, Utilisation: 0.92},
	{Scheduler: "fair", Small: 124.7, Medium: 333.5, Large: 539.6, Overall: 171.8, Makespan: 544.6, Utilisation: 0.92},
	{Scheduler: "fifo", Small: 268.3, Medium: 275.8, Large: 188.6, Overall: 267.0, Makespan: 563.0, Utilisation: 0.92},
	{Scheduler: "drf", Small: 376.8, Medium: 364.0, Large: 154.3, Overall: 367.5, Makespan: 713.4, Utilisation: 0.80},
}

// MedianTable1 runs s with seeds 1..seeds and takes each entry's median
// over the seeds (the mean of the middle two for an even count).
func MedianTable1(s Table1Setting, seeds int) ([]Table1Row, error) {
	var all [][]Table1Row
	for k := 1; k <= seeds; k++ {
		s.Seed = uint64(k)
		rows, err := RunTable1(s)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", k, err)
		}
		all = append(all, rows)
	}
	return medianRows(all), nil
}

// medianRows takes each entry's median over the tables.
func medianRows(all [][]Table1Row) []Table1Row {
	out := make([]Table1Row, len(all[0]))
	for i := range out {
		field := func(f func(Table1Row) float64) float64 {
			var v []float64
			for _, rows := range all {
				v = append(v, f(rows[i]))
			}
			return median(v)
		}
		out[i] = Table1Row{
			Scheduler:   all[0][i].Scheduler,
			Small:       field(func(r Table1Row) float64 { return r.Small }),
			Medium:      field(func(r Table1Row) float64 { return r.Medium }),
			Large:       field(func(r Table1Row) float64 { return r.Large }),
			Overall:     field(func(r Table1Row) float64 { return r.Overall }),
			Makespan:    field(func(r Table1Row) float64 { return r.Makespan }),
			Utilisation: field(func(r Table1Row) float64 { return r.Utilisation }),
		}
	}
	return out
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Table1Claims are the paper's statements about Table 1, each checked on
// a table (rows in the order flex, fair, fifo, drf).
var Table1Claims = []struct {
	Name  string
	Holds func(r []Table1Row) bool
}{
	{"overall ART flex < fair", func(r []Table1Row) bool { return r[0].Overall < r[1].Overall }},
	{"overall ART fair < fifo", func(r []Table1Row) bool { return r[1].Overall < r[2].Overall }},
	{"overall ART fifo < drf", func(r []Table1Row) bool { return r[2].Overall < r[3].Overall }},
	{"small ART flex < fair < fifo < drf", func(r []Table1Row) bool {
		return r[0].Small < r[1].Small && r[1].Small < r[2].Small && r[2].Small < r[3].Small
	}},
	{"large ART drf < fifo < flex ≤ fair", func(r []Table1Row) bool {
		return r[3].Large < r[2].Large && r[2].Large < r[0].Large && r[0].Large <= r[1].Large
	}},
	{"X-Flex makespans within 5%", func(r []Table1Row) bool {
		lo := min(r[0].Makespan, r[1].Makespan, r[2].Makespan)
		return max(r[0].Makespan, r[1].Makespan, r[2].Makespan) <= 1.05*lo
	}},
	{"drf makespan > every X-Flex one", func(r []Table1Row) bool {
		return r[3].Makespan > max(r[0].Makespan, r[1].Makespan, r[2].Makespan)
	}},
}

// Table1Settings are the readings RESULTS.md reports: the batch (every job
// at time 0, where every response time scales with the task duration) and
// Poisson arrivals over 150 and 300 s, with 36 s tasks (15 waves of the
// 375 tasks on 25 containers take 540 s, the paper's makespan) and 20 s
// tasks, the DRF AM cap at YARN's 0.5 and at 0.2, and DRF's jobs reusing
// their containers or giving each back at its task's end.
func Table1Settings(scale string) []Table1Setting {
	if scale != "full" {
		return []Table1Setting{{TaskSeconds: 36, AMShare: 0.5}, {TaskSeconds: 36, Spread: 300, AMShare: 0.5}}
	}
	var out []Table1Setting
	for _, rel := range []bool{false, true} {
		for _, am := range []float64{0.5, 0.2} {
			for _, d := range []float64{36, 20} {
				for _, sp := range []float64{0, 150, 300} {
					out = append(out, Table1Setting{TaskSeconds: d, Spread: sp, AMShare: am, DRFRelease: rel})
				}
			}
		}
	}
	return out
}

// Table1Report prints a summary row per setting (overall ART and
// makespan medians over five seeds, the paper's ratios, the claims that
// fail), then each setting's full table next to the paper's.
func Table1Report(w io.Writer, scale string) error {
	var all [][]Table1Row
	settings := Table1Settings(scale)
	for _, s := range settings {
		rows, err := MedianTable1(s, 5)
		if err != nil {
			return err
		}
		all = append(all, rows)
	}
	fmt.Fprintf(w, "| task s | arrivals | DRF AM share, containers | overall ART flex / fair / fifo / drf | makespan X-Flex / drf | flex/drf, /fair, /fifo | paper claims that fail |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| paper | | | %s | %.0f / %.0f | %s | |\n", overallLine(Table1Paper), Table1Paper[0].Makespan, Table1Paper[3].Makespan, table1Line(Table1Paper))
	for i, s := range settings {
		r := all[i]
		fmt.Fprintf(w, "| %g | %s | %g, %s | %s | %.0f / %.0f | %s | %s |\n", s.TaskSeconds, spreadName(s.Spread), s.AMShare, reuseName(s.DRFRelease),
			overallLine(r), max(r[0].Makespan, r[1].Makespan, r[2].Makespan), r[3].Makespan, table1Line(r), failedClaims(r))
	}
	fmt.Fprintf(w, "\npaper:\n")
	printTable1(w, Table1Paper)
	for i, s := range settings {
		fmt.Fprintf(w, "\ntasks %g s, arrivals %s, DRF AM share %g, %s (medians of 5 seeds):\n", s.TaskSeconds, spreadName(s.Spread), s.AMShare, reuseName(s.DRFRelease))
		printTable1(w, all[i])
	}
	return nil
}

// printTable1 prints one table in the paper's layout.
func printTable1(w io.Writer, rows []Table1Row) {
	fmt.Fprintf(w, "| | flex | fair | fifo | drf |\n|---|---|---|---|---|\n")
	for _, f := range append(slices.Clip(table1Fields), table1Field{"utilisation", func(r Table1Row) float64 { return r.Utilisation }}) {
		fmt.Fprintf(w, "| %s | %.3g | %.3g | %.3g | %.3g |\n", f.name, f.get(rows[0]), f.get(rows[1]), f.get(rows[2]), f.get(rows[3]))
	}
}

// overallLine is the overall ART of the four columns.
func overallLine(r []Table1Row) string {
	return fmt.Sprintf("%.1f / %.1f / %.1f / %.1f", r[0].Overall, r[1].Overall, r[2].Overall, r[3].Overall)
}

// failedClaims lists the claims that fail on r.
func failedClaims(r []Table1Row) string {
	var out []string
	for _, c := range Table1Claims {
		if !c.Holds(r) {
			out = append(out, c.Name)
		}
	}
	return strings.Join(out, "; ")
}

// table1Line is the paper's ratios of overall ART for a table.
func table1Line(r []Table1Row) string {
	return fmt.Sprintf("%.0f%%, %.0f%%, %.0f%%",
		100*r[0].Overall/r[3].Overall, 100*r[0].Overall/r[1].Overall, 100*r[0].Overall/r[2].Overall)
}

func reuseName(release bool) string {
	if release {
		return "released per task"
	}
	return "reused"
}

func spreadName(sp float64) string {
	if sp == 0 {
		return "all at 0"
	}
	return fmt.Sprintf("Poisson over ~%g s", sp)
}
