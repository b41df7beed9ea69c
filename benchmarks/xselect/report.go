// Package xselect benchmarks X-Select (issue #6): λ against the LP bound
// on generated clusters of 100, 1,000 and 10,000 nodes; each greedy rule's
// λ in the same run; and the paper's realtime-stream comparison of
// pre-packed X-Flex containers against online best-fit (DRF) placement.
package xselect

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/xflex/xflex/benchmarks"
	"github.com/xflex/xflex/solver"
	xs "github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/vecpack"
)

// ServiceBudget is the budget of the "as served" column: the service
// default, and the time target at 10,000 nodes.
const ServiceBudget = 2 * time.Second

// CompleteBudget lets the search finish (every breakpoint between λ and
// the bound decided by the heuristic) for the "complete" column.
const CompleteBudget = 120 * time.Second

// Case is one generated cluster of the λ-versus-bound table.
type Case struct {
	Nodes, Resources, Apps int
}

// Cases returns the table's instances for a scale: 2 to 4 resources and
// 10 to 50 applications at each size.
func Cases(scale string) []Case {
	sizes := []int{100, 1000}
	if scale == "full" {
		sizes = append(sizes, 10000)
	}
	var out []Case
	for _, n := range sizes {
		out = append(out, Case{n, 2, 10}, Case{n, 3, 30}, Case{n, 4, 50})
	}
	return out
}

// Instance is the request of a case (seeded by its parameters).
func (c Case) Instance() *xs.Request {
	return xs.GenerateWith(int64(c.Nodes*10+c.Resources*1000+c.Apps), xs.GenParams{Nodes: c.Nodes, Resources: c.Resources, Apps: c.Apps, Shapes: 8, Types: 3, MaxCount: 20})
}

// Run is one timed solve.
type Run struct {
	Result *xs.Result
	Status solver.Status
	Wall   time.Duration
	CPU    time.Duration
}

// Solve runs one variant under a budget and times it.
func Solve(ctx context.Context, req *xs.Request, budget time.Duration, v xs.Variant) (Run, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	c0, t0 := benchmarks.CPUTime(), time.Now()
	res, meta, err := xs.SolveVariant(ctx, req, solver.Options{Budget: budget, Start: t0, Seed: 1}, v)
	if err != nil {
		return Run{}, err
	}
	return Run{Result: res, Status: meta.Status, Wall: time.Since(t0), CPU: benchmarks.CPUTime() - c0}, nil
}

// Repeats is how many times table (1) solves each case; it prints medians.
const Repeats = 3

// medianRun returns the run of median λ (ties by order) with its wall and
// CPU times replaced by the medians over runs.
func medianRun(runs []Run) Run {
	byLam := slices.Clone(runs)
	slices.SortStableFunc(byLam, func(a, b Run) int { return cmp.Compare(a.Result.Lambda, b.Result.Lambda) })
	out := byLam[len(byLam)/2]
	walls := make([]time.Duration, len(runs))
	cpus := make([]time.Duration, len(runs))
	for i, r := range runs {
		walls[i], cpus[i] = r.Wall, r.CPU
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	out.Wall, out.CPU = walls[len(walls)/2], cpus[len(cpus)/2]
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }

// HardCase is a generated cluster outside the issue-6 table: node
// predicates, Garbo applications, exlocation and colocation, or more kinds
// than the class-based path used to take (issue 21).
type HardCase struct {
	Name   string
	Params xs.GenParams
}

// HardCases returns table (5)'s clusters (seed 5 each).
func HardCases() []HardCase {
	return []HardCase{
		{"1,000 nodes, R=3, 30 apps, 30% with a node predicate", xs.GenParams{Nodes: 1000, Resources: 3, Apps: 30, Shapes: 8, Types: 3, MaxCount: 20, Require: 0.3}},
		{"1,000 nodes, R=3, 30 apps, 3 Garbo, 5 exlocate, 3 colocate pairs", xs.GenParams{Nodes: 1000, Resources: 3, Apps: 30, Shapes: 8, Types: 3, MaxCount: 20, Garbo: 3, Exlocate: 5, Colocate: 3}},
		{"10,000 nodes, R=4, 200 apps, 20 shapes, 10 types, 50% predicates", xs.GenParams{Nodes: 10000, Resources: 4, Apps: 200, Shapes: 20, Types: 10, MaxCount: 20, Require: 0.5}},
	}
}

// HardRepeats is how many times table (5) solves each case per budget.
const HardRepeats = 5

// reportHard prints table (5): the constrained clusters at the service
// budget and at 10 s, medians over HardRepeats runs (at scale small
// without the 10,000-node cluster).
func reportHard(ctx context.Context, w io.Writer, scale string) error {
	fmt.Fprintf(w, "\n(5) constrained clusters (issue 21), seed 5\n")
	fmt.Fprintf(w, "%-68s %7s %9s %9s %7s %8s %8s  %s\n", "instance", "budget", "λ", "bound", "gap", "wall ms", "cpu ms", "status")
	for _, hc := range HardCases() {
		if scale != "full" && hc.Params.Nodes > 1000 {
			continue
		}
		req := xs.GenerateWith(5, hc.Params)
		for _, budget := range []time.Duration{ServiceBudget, 10 * time.Second} {
			var runs []Run
			for range HardRepeats {
				r, err := Solve(ctx, req, budget, xs.Variant{})
				if err != nil {
					return fmt.Errorf("%s: %w", hc.Name, err)
				}
				runs = append(runs, r)
			}
			m := medianRun(runs)
			fmt.Fprintf(w, "%-68s %7s %9.4f %9.4f %6.2f%% %8s %8s  %s\n", hc.Name, budget, m.Result.Lambda, m.Result.UpperBound, 100*m.Result.Gap, ms(m.Wall), ms(m.CPU), m.Status)
		}
	}
	fmt.Fprintf(w, "  (median over %d runs per budget; λ, gap and status from the run of median λ)\n", HardRepeats)
	return nil
}

// Report prints the tables: (1) λ against the bound, (3) the greedy
// rules, (4) incremental replans, (2) the realtime stream and (5) the
// constrained clusters.
func Report(ctx context.Context, w io.Writer, scale string) error {
	if scale != "small" && scale != "full" {
		return fmt.Errorf("scale %q: want small or full", scale)
	}
	fmt.Fprintf(w, "X-Select (issue #6), scale %s\n\n", scale)
	for _, table := range []func(context.Context, io.Writer, string) error{reportBound, reportRules, reportReplans, reportStream, reportHard} {
		if err := table(ctx, w, scale); err != nil {
			return err
		}
	}
	return nil
}

// reportBound prints table (1): λ at the service budget and run to
// completion, against the LP bound.
func reportBound(ctx context.Context, w io.Writer, scale string) error {
	fmt.Fprintf(w, "(1) λ against the LP bound (upper_bound = largest k/c under the LP relaxation)\n")
	fmt.Fprintf(w, "%7s %3s %4s %10s | %9s %9s %8s %8s %8s | %9s %8s %9s %9s\n", "nodes", "R", "apps", "containers",
		"λ@2s", "bound", "gap@2s", "wall ms", "cpu ms", "λ done", "gap", "wall ms", "cpu ms")
	for _, c := range Cases(scale) {
		req := c.Instance()
		var as, bs []Run
		for range Repeats {
			a, err := Solve(ctx, req, ServiceBudget, xs.Variant{})
			if err != nil {
				return fmt.Errorf("%+v: %w", c, err)
			}
			b, err := Solve(ctx, req, CompleteBudget, xs.Variant{})
			if err != nil {
				return fmt.Errorf("%+v: %w", c, err)
			}
			as, bs = append(as, a), append(bs, b)
		}
		a, b := medianRun(as), medianRun(bs)
		fmt.Fprintf(w, "%7d %3d %4d %10d | %9.4f %9.4f %7.2f%% %8s %8s | %9.4f %7.2f%% %9s %9s  %s/%s\n", c.Nodes, c.Resources, c.Apps, b.Result.Containers,
			a.Result.Lambda, a.Result.UpperBound, 100*a.Result.Gap, ms(a.Wall), ms(a.CPU),
			b.Result.Lambda, 100*b.Result.Gap, ms(b.Wall), ms(b.CPU), a.Status, b.Status)
	}
	fmt.Fprintf(w, "  (each column the median over %d runs; λ, gap and status from the run of median λ)\n", Repeats)
	return nil
}

// reportRules prints table (3): each greedy rule's λ, plain and guided,
// with and without the local search.
func reportRules(ctx context.Context, w io.Writer, scale string) error {
	fmt.Fprintf(w, "\n(3) each greedy rule's λ on the same instance (plain = fill one node at a time; guided = configuration-LP packing (with its short repair search), then LP-guided fill; +LS = then local search)\n")
	sizes := []int{100, 1000}
	if scale == "full" {
		sizes = append(sizes, 10000)
	}
	fmt.Fprintf(w, "%7s %-12s %9s %9s %9s %9s %9s\n", "nodes", "rule", "plain", "plain+LS", "guided", "full", "bound")
	for _, n := range sizes {
		req := Case{n, 3, 30}.Instance()
		for _, r := range vecpack.Rules() {
			req.Score = r.Name
			var lam [4]float64
			var bound float64
			budget := 10 * time.Second
			for i, v := range []xs.Variant{{NoGuide: true, NoLocalSearch: true}, {NoGuide: true}, {NoLocalSearch: true}, {}} {
				run, err := Solve(ctx, req, budget, v)
				if err != nil {
					return err
				}
				lam[i] = run.Result.Lambda
				bound = run.Result.UpperBound
			}
			fmt.Fprintf(w, "%7d %-12s %9.4f %9.4f %9.4f %9.4f %9.4f\n", n, r.Name, lam[0], lam[1], lam[2], lam[3], bound)
		}
	}
	return nil
}

// reportReplans prints table (4): incremental replans after one
// application doubles its forecast.
func reportReplans(ctx context.Context, w io.Writer, _ string) error {
	fmt.Fprintf(w, "\n(4) incremental replans: solve, then one application doubles its forecast; replan changing at most ⌊f·nodes⌋ nodes\n")
	fmt.Fprintf(w, "%7s %5s %9s %9s %9s %8s %8s %9s %8s\n", "nodes", "f", "λ before", "λ kept", "λ replan", "changed", "allowed", "moved", "wall ms")
	for _, n := range []int{1000} {
		req := Case{n, 2, 10}.Instance()
		first, err := Solve(ctx, req, ServiceBudget, xs.Variant{})
		if err != nil {
			return err
		}
		for s := range req.Apps[0].Mix {
			req.Apps[0].Mix[s] *= 2
		}
		req.Current = first.Result.Nodes
		for _, f := range []float64{0, 0.05, 0.1, 0.25, 1} {
			req.ChangeFraction = &f
			run, err := Solve(ctx, req, 10*time.Second, xs.Variant{})
			if err != nil {
				return err
			}
			ch := run.Result.Changes
			fmt.Fprintf(w, "%7d %5.2f %9.4f %9.4f %9.4f %8d %8d %9d %8s\n", n, f, first.Result.Lambda, ch.PreviousLambda, run.Result.Lambda, ch.Changed, ch.MaxChanged, ch.ContainersMoved, ms(run.Wall))
		}
	}
	return nil
}

// reportStream prints table (2): the realtime stream, X-Flex against
// online best fit.
func reportStream(ctx context.Context, w io.Writer, scale string) error {
	fmt.Fprintf(w, "\n(2) realtime stream: pre-packed X-Flex containers vs online best-fit (DRF) placement, same stream, same nodes\n")
	fmt.Fprintf(w, "%6s %4s %5s %8s %8s %8s %8s %8s\n", "nodes", "apps", "load", "requests", "λ", "X-Flex", "DRF", "ratio")
	streamNodes := []int{20, 100}
	seeds := 3
	if scale == "full" {
		streamNodes = []int{20, 100, 1000}
		seeds = 5
	}
	for _, n := range streamNodes {
		for _, load := range []float64{0.8, 1.0, 1.2} {
			var ratios []float64
			var last StreamResult
			for s := 0; s < seeds; s++ {
				r, err := RunStream(ctx, StreamConfig{Nodes: n, Apps: 10, Shapes: 6, Resources: 2, Load: load, Requests: 200 * n, Seed: int64(s + 1)})
				if err != nil {
					return err
				}
				ratios = append(ratios, r.Ratio())
				last = r
			}
			sort.Float64s(ratios)
			fmt.Fprintf(w, "%6d %4d %5.1f %8d %8.3f %8d %8d %8.3f  (median ratio over %d seeds; counts from seed %d)\n",
				n, 10, load, last.Requests, last.Lambda, last.XFlex, last.DRF, ratios[len(ratios)/2], seeds, seeds)
		}
	}
	return nil
}
