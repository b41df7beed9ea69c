// Package xsize is X-Size's quality and speed table: generated request
// profiles (a few hundred distinct sizes, like real CPU/memory histograms)
// of 1,000 to 100,000 requests, K = 4, 8, 16, in 2, 3 and 4 dimensions,
// solved through the same Runner as POST /v1/xsize with a 1 s budget. Each
// row gives the guarantee ε reached (cost/lower bound − 1), the cost against
// the lower bound, and the cost of the baselines a planner would otherwise
// pick (per-resource quantiles, k-means centroids rounded up) relative to
// ours. The target row times 2D, 10,000 requests, K = 8, ε = 0.05.
package xsize

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/xflex/xflex/benchmarks"
	"github.com/xflex/xflex/ptas"
	"github.com/xflex/xflex/solver"
	xs "github.com/xflex/xflex/solver/xsize"
)

// Distinct is the number of distinct sizes the generator draws; real
// request histograms have a few hundred.
const Distinct = 300

// Row is one measured case.
type Row struct {
	Requests, Distinct, Dims, K int
	Budget                      time.Duration
	Target                      float64 // asked ε, 0 for none
	Epsilon                     float64 // reached
	Cost, Bound                 float64
	Status                      string
	Elapsed                     time.Duration
	// CPU is the process CPU time of the run: on a shared, loaded machine
	// it is the better measure of what the run costs.
	CPU              time.Duration
	Quantile, KMeans float64 // baseline cost / our cost
	Levels           int
	// SolverEpsilon and SolverLevels are what ptas.Solve reaches on the
	// decoded instance in the same budget, without request decoding and
	// schema validation (which at 100,000 requests take much of 1 s).
	SolverEpsilon float64
	SolverLevels  int
}

// Request generates one benchmark request body.
func Request(requests, dims, k int, budget time.Duration, eps float64, seed int64) ([]byte, error) {
	params := map[string]string{
		"requests": strconv.Itoa(requests), "distinct": strconv.Itoa(Distinct), "dims": strconv.Itoa(dims),
		"k": strconv.Itoa(k), "budget_ms": strconv.FormatInt(budget.Milliseconds(), 10),
	}
	if eps > 0 {
		params["epsilon"] = strconv.FormatFloat(eps, 'g', -1, 64)
	}
	req, err := xs.Generate(seed, params)
	if err != nil {
		return nil, err
	}
	return json.Marshal(req)
}

// RunCase generates one instance and solves it through a Runner, as the
// service would, then once more with ptas.Solve alone.
func RunCase(ctx context.Context, requests, dims, k int, budget time.Duration, eps float64, seed int64) (Row, error) {
	raw, err := Request(requests, dims, k, budget, eps, seed)
	if err != nil {
		return Row{}, err
	}
	r, err := solver.NewRunner([]solver.Problem{xs.Problem()}, 0)
	if err != nil {
		return Row{}, err
	}
	start, cpu0 := time.Now(), benchmarks.CPUTime()
	resp, err := r.Run(ctx, "xsize", raw)
	if err != nil {
		return Row{}, err
	}
	el, cpu := time.Since(start), benchmarks.CPUTime()-cpu0
	res := resp.Result.(*xs.Result)
	row := Row{Requests: requests, Distinct: res.DistinctRequests, Dims: dims, K: k, Budget: budget, Target: eps,
		Epsilon: res.Epsilon, Cost: res.Cost, Bound: res.LowerBound, Status: string(resp.Meta.Status), Elapsed: el, CPU: cpu, Levels: len(res.Levels)}
	if res.Baselines != nil {
		row.Quantile, row.KMeans = res.Baselines.Quantile.Ratio, res.Baselines.KMeans.Ratio
	}
	in, popts, err := xs.Instance(raw)
	if err != nil {
		return Row{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	pres, err := ptas.Solve(sctx, in, popts)
	if err != nil {
		return Row{}, err
	}
	row.SolverEpsilon, row.SolverLevels = pres.Epsilon, len(pres.Levels)
	return row, nil
}

// Report prints the table. scale "small" runs 1,000 and 10,000 requests,
// K = 4 and 8, in 2 and 3 dimensions; "full" runs the grid and
// then SeedTable at 10,000 requests over 5 seeds.
func Report(ctx context.Context, w io.Writer, scale string) error {
	sizes, ks, dims, reps := []int{1000, 10000}, []int{4, 8}, []int{2, 3}, 3
	if scale == "full" {
		sizes, ks, dims, reps = []int{1000, 10000, 100000}, []int{4, 8, 16}, []int{2, 3, 4}, 5
	}
	fmt.Fprintf(w, "X-Size: anytime PTAS with a 1 s budget (ε reached = cost/lower bound − 1; baselines = their cost / ours;\n")
	fmt.Fprintf(w, "ε (solver) = ptas.Solve alone on the decoded instance in the same budget)\n")
	fmt.Fprintf(w, "%9s %8s %4s %3s %9s %11s %11s %6s %8s %8s %8s %8s %7s %10s %7s\n",
		"requests", "distinct", "dims", "K", "ε reached", "cost", "lower bound", "levels", "status", "wall", "cpu", "quantile", "k-means", "ε (solver)", "levels")
	for _, n := range sizes {
		for _, d := range dims {
			for _, k := range ks {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				row, err := RunCase(ctx, n, d, k, time.Second, 0, 1)
				if err != nil {
					return fmt.Errorf("xsize bench %d/%dD/K=%d: %w", n, d, k, err)
				}
				fmt.Fprintf(w, "%9d %8d %4d %3d %9.4f %11.5f %11.5f %6d %8s %8s %8s %8.3f %7.3f %10.4f %7d\n",
					row.Requests, row.Distinct, row.Dims, row.K, row.Epsilon, row.Cost, row.Bound, row.Levels, row.Status,
					row.Elapsed.Round(time.Millisecond), row.CPU.Round(time.Millisecond), row.Quantile, row.KMeans,
					row.SolverEpsilon, row.SolverLevels)
			}
		}
	}
	fmt.Fprintf(w, "\nTarget: 2D, 10,000 requests, K = 8, ε = 0.05 (median of %d seeds; wall time includes JSON decoding and schema validation)\n", reps)
	var times, cpus []time.Duration
	var worst float64
	reached := 0
	for s := 0; s < reps; s++ {
		row, err := RunCase(ctx, 10000, 2, 8, 10*time.Second, 0.05, int64(s+1))
		if err != nil {
			return err
		}
		times = append(times, row.Elapsed)
		cpus = append(cpus, row.CPU)
		worst = max(worst, row.Epsilon)
		if row.Epsilon <= 0.05 {
			reached++
		}
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	sort.Slice(cpus, func(a, b int) bool { return cpus[a] < cpus[b] })
	fmt.Fprintf(w, "wall median %s (max %s), cpu median %s (max %s), reached %d/%d, worst ε %.4f\n",
		times[len(times)/2].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond),
		cpus[len(cpus)/2].Round(time.Millisecond), cpus[len(cpus)-1].Round(time.Millisecond), reached, reps, worst)
	if scale != "full" {
		return nil
	}
	fmt.Fprintln(w)
	_, err := SeedTable(ctx, w, 10000, dims, ks, reps)
	return err
}

// SeedRow is one case of SeedTable: the ε reached through the Runner in a
// 1 s budget over several seeds.
type SeedRow struct {
	Dims, K               int
	Median, Max           float64
	WallMedian, CPUMedian time.Duration
}

// SeedTable solves requests × dims × K with seeds 1..seeds through the
// Runner (budget 1 s, no ε asked) and prints the median and largest ε
// reached and the median wall and CPU time per case.
func SeedTable(ctx context.Context, w io.Writer, requests int, dims, ks []int, seeds int) ([]SeedRow, error) {
	fmt.Fprintf(w, "%d requests, budget 1 s, ε reached over seeds 1..%d\n", requests, seeds)
	fmt.Fprintf(w, "%4s %3s %9s %9s %8s %8s\n", "dims", "K", "median ε", "max ε", "wall", "cpu")
	var rows []SeedRow
	for _, d := range dims {
		for _, k := range ks {
			var eps []float64
			var walls, cpus []time.Duration
			for s := 1; s <= seeds; s++ {
				row, err := RunCase(ctx, requests, d, k, time.Second, 0, int64(s))
				if err != nil {
					return nil, fmt.Errorf("xsize seeds %dD/K=%d/seed %d: %w", d, k, s, err)
				}
				eps, walls, cpus = append(eps, row.Epsilon), append(walls, row.Elapsed), append(cpus, row.CPU)
			}
			slices.Sort(eps)
			slices.Sort(walls)
			slices.Sort(cpus)
			r := SeedRow{Dims: d, K: k, Median: eps[len(eps)/2], Max: eps[len(eps)-1], WallMedian: walls[len(walls)/2], CPUMedian: cpus[len(cpus)/2]}
			fmt.Fprintf(w, "%4d %3d %9.4f %9.4f %8s %8s\n", r.Dims, r.K, r.Median, r.Max,
				r.WallMedian.Round(time.Millisecond), r.CPUMedian.Round(time.Millisecond))
			rows = append(rows, r)
		}
	}
	return rows, nil
}
