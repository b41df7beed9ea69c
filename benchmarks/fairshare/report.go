// Package fairshare benchmarks the fair-share solvers (solver/fairshare)
// on generated clusters (fairshare.Generate): the exact MMF, PF and
// maximum-efficiency optima next to the progressive-filling schedulers
// (DRF, TSF, PS-DSF, rPS-DSF under RRR and joint selection, BF-DRF) in the
// same run, at the size of 1,000 frameworks on 10,000 servers of 50
// types (each server its own entry, so coalescing is exercised).
package fairshare

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/xflex/xflex/benchmarks"
	"github.com/xflex/xflex/solver"
	fs "github.com/xflex/xflex/solver/fairshare"
)

// Size is one benchmark size.
type Size struct {
	Frameworks, Servers, Types int
}

// Sizes returns the sizes for a scale: "small" for a quick look, "full"
// adds the 1,000 × 10,000 / 50 types.
func Sizes(scale string) []Size {
	if scale == "full" {
		return []Size{{100, 1000, 20}, {1000, 10000, 50}}
	}
	return []Size{{20, 200, 10}, {100, 1000, 20}}
}

// Policy is one row of the table: a policy and its server selection.
type Policy struct{ Name, Selection string }

// Policies lists what the report runs, exact optima first.
func Policies() []Policy {
	return []Policy{
		{fs.PolicyMMF, ""}, {fs.PolicyPF, ""}, {fs.PolicyEfficiency, ""},
		{fs.PolicyDRF, fs.SelectRRR}, {fs.PolicyTSF, fs.SelectRRR},
		{fs.PolicyPSDSF, fs.SelectRRR}, {fs.PolicyRPSDSF, fs.SelectRRR},
		{fs.PolicyDRF, fs.SelectJoint}, {fs.PolicyPSDSF, fs.SelectJoint}, {fs.PolicyRPSDSF, fs.SelectJoint},
		{fs.PolicyBFDRF, ""},
	}
}

// Request builds the generated request for a size, seed and policy, with
// every server its own entry.
func Request(seed int64, sz Size, p Policy) []byte { return request(seed, sz, p, true) }

// TypedRequest is the same instance with one entry per server type and a
// count.
func TypedRequest(seed int64, sz Size, p Policy) []byte { return request(seed, sz, p, false) }

func request(seed int64, sz Size, p Policy, expand bool) []byte {
	v, err := fs.Generate(seed, map[string]string{
		"frameworks": fmt.Sprint(sz.Frameworks), "servers": fmt.Sprint(sz.Servers),
		"types": fmt.Sprint(sz.Types), "expand": fmt.Sprint(expand), "policy": p.Name,
	})
	if err != nil {
		panic(err)
	}
	req := v.(*fs.Request)
	req.Selection = p.Selection
	raw, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return raw
}

// Row is one measured run.
type Row struct {
	Policy            Policy
	Status            solver.Status
	WallMS, CPUMS     float64
	Tasks, Efficiency float64
	PF                float64 // NaN when -Inf
	Gap               float64 // NaN when none
	Notes             []string
}

// Run solves one request with a budget and measures it.
func Run(ctx context.Context, raw []byte, p Policy, budget time.Duration) (Row, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	c0, t0 := benchmarks.CPUTime(), time.Now()
	res, meta, err := fs.Solve(ctx, raw, solver.Options{Budget: budget, Start: t0})
	wall, cpu := time.Since(t0), benchmarks.CPUTime()-c0
	if err != nil {
		return Row{}, fmt.Errorf("%s/%s: %w", p.Name, p.Selection, err)
	}
	r := res.(*fs.Result)
	row := Row{Policy: p, Status: meta.Status, WallMS: ms(wall), CPUMS: ms(cpu), Tasks: r.TotalTasks,
		Efficiency: r.Efficiency, PF: math.NaN(), Gap: math.NaN(), Notes: meta.Notes}
	if r.PFObjective != nil {
		row.PF = *r.PFObjective
	}
	if meta.Gap != nil {
		row.Gap = *meta.Gap
	}
	return row, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Budget is the per-policy budget of the report: generous, so a timeout in
// the table means the policy is slow at that size, not that it was cut
// short for convenience.
const Budget = 60 * time.Second

// Report prints, per size, one row per policy: status, median wall and CPU
// milliseconds over the seeds, and the first seed's total tasks,
// efficiency (eq. 10), PF objective (eq. 8, α = 1) and certified gap.
func Report(ctx context.Context, w io.Writer, scale string) error {
	seeds := 3
	if scale == "full" {
		seeds = 1
	}
	fmt.Fprintf(w, "Fair shares on heterogeneous servers (fairshare.Generate, every server its own entry).\n")
	fmt.Fprintf(w, "Median of %d seed(s); wall / CPU ms (CPU = process user+sys: what one core needs on a shared machine); budget %v per policy.\n\n", seeds, Budget)
	for _, sz := range Sizes(scale) {
		fmt.Fprintf(w, "%d frameworks x %d servers of %d types\n", sz.Frameworks, sz.Servers, sz.Types)
		fmt.Fprintf(w, "%-14s %-9s %12s %12s %10s %12s %12s %9s\n", "policy", "status", "wall ms", "cpu ms", "tasks", "efficiency", "pf obj", "gap")
		for _, p := range Policies() {
			var walls, cpus []float64
			var first Row
			for seed := int64(1); seed <= int64(seeds); seed++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				row, err := Run(ctx, Request(seed, sz, p), p, Budget)
				if err != nil {
					return err
				}
				if seed == 1 {
					first = row
				}
				walls, cpus = append(walls, row.WallMS), append(cpus, row.CPUMS)
			}
			name := p.Name
			if p.Selection != "" {
				name += "/" + p.Selection
			}
			fmt.Fprintf(w, "%-14s %-9s %12.1f %12.1f %10.1f %12.1f %12.2f %9s\n", name, first.Status, median(walls), median(cpus),
				first.Tasks, first.Efficiency, first.PF, gapString(first.Gap))
		}
		// Coalescing: the same instance as server types with counts.
		for _, p := range []Policy{{fs.PolicyMMF, ""}, {fs.PolicyEfficiency, ""}} {
			row, err := Run(ctx, TypedRequest(1, sz, p), p, Budget)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-14s %-9s %12.1f %12.1f %10.1f   (same instance as %d typed entries with counts)\n", p.Name+"/typed", row.Status, row.WallMS, row.CPUMS, row.Tasks, sz.Types)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func gapString(g float64) string {
	if math.IsNaN(g) {
		return "-"
	}
	return fmt.Sprintf("%.1e", g)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
