// Package cmmf benchmarks the CMMF solvers on Google-like instances
// (solver/cmmf.Generate): median solve times of the flow method against
// the LP method (the paper's Algorithm 1) in the same run, at the issue's
// sizes 100/20, 1,000/50 and 5,000/100 users/types.
package cmmf

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/xflex/xflex/benchmarks"
	"github.com/xflex/xflex/solver/cmmf"
)

// Size is one benchmark size.
type Size struct {
	Users, Types, Machines int
}

// Sizes returns the sizes for a scale: "small" for a quick look, "full"
// for the sizes (5,000 users, 100 types, 100,000 machines at the
// top).
func Sizes(scale string) []Size {
	if scale == "full" {
		return []Size{{100, 20, 2000}, {1000, 50, 20000}, {5000, 100, 100000}}
	}
	return []Size{{100, 20, 2000}, {1000, 50, 20000}}
}

// Instance builds the validated instance for a size and seed.
func Instance(seed int64, sz Size, divisible bool) *cmmf.Instance {
	req := cmmf.GenerateRequest(seed, cmmf.GenParams{Users: sz.Users, Types: sz.Types, Machines: sz.Machines, Divisible: divisible})
	in, err := cmmf.Build(req)
	if err != nil {
		panic(fmt.Sprintf("generated instance invalid: %v", err))
	}
	return in
}

// Report prints, per size, median solve times over several seeds: the
// exact allocation by the flow method and by the LP method (divisible and
// whole machines), wall and CPU time, then the full response
// (baselines included), the number of rounds, and how far Choosy and
// independent allocation are from CMMF (RMSE of sorted cluster fractions).
// It fails if flow and LP disagree on any instance.
func Report(ctx context.Context, w io.Writer, scale string) error {
	seeds := 3
	if scale == "full" {
		seeds = 5
	}
	return report(ctx, w, Sizes(scale), seeds)
}

func report(ctx context.Context, w io.Writer, sizes []Size, seeds int) error {
	fmt.Fprintf(w, "CMMF on Google-like instances: median of %d seeds per size; wall / CPU ms (CPU is the process's user+sys time, what one core would need).\n\n", seeds)
	fmt.Fprintf(w, "%-20s %-15s %-15s %-15s %7s %-17s %-15s %6s %8s %8s\n", "users/types/machines", "flow divisible", "flow integer", "lp divisible", "lp/flow", "lp integer", "full response", "rounds", "choosy", "indep.")
	for _, sz := range sizes {
		var fw, fc, iw, ic, lw, lc, jw, jc, rw, rc, rounds, rmse, irmse []float64
		for seed := int64(1); seed <= int64(seeds); seed++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			in := Instance(seed, sz, true)
			inI := Instance(seed, sz, false)

			wall, cpu, a, err := timed(func() (*cmmf.Allocation, error) { return cmmf.SolveAllocation(ctx, in, cmmf.MethodFlow) })
			if err != nil {
				return fmt.Errorf("flow %v: %w", sz, err)
			}
			fw, fc = append(fw, wall), append(fc, cpu)
			wall, cpu, b, err := timed(func() (*cmmf.Allocation, error) { return cmmf.SolveAllocation(ctx, in, cmmf.MethodLP) })
			if err != nil {
				return fmt.Errorf("lp %v: %w", sz, err)
			}
			lw, lc = append(lw, wall), append(lc, cpu)
			if d := maxDiff(a.Leximin(in), b.Leximin(in)); d > leximinTol {
				return fmt.Errorf("size %v seed %d: flow and LP leximin differ by %g", sz, seed, d)
			}
			wall, cpu, flowInt, err := timed(func() (*cmmf.Allocation, error) { return cmmf.SolveAllocation(ctx, inI, cmmf.MethodFlow) })
			if err != nil {
				return fmt.Errorf("integer flow %v: %w", sz, err)
			}
			iw, ic = append(iw, wall), append(ic, cpu)
			if sz.Users <= lpIntegerMaxUsers {
				wall, cpu, c, err := timed(func() (*cmmf.Allocation, error) { return cmmf.SolveAllocation(ctx, inI, cmmf.MethodLP) })
				if err != nil {
					return fmt.Errorf("integer lp %v: %w", sz, err)
				}
				jw, jc = append(jw, wall), append(jc, cpu)
				if d := maxDiff(c.Leximin(inI), flowInt.Leximin(inI)); d != 0 {
					return fmt.Errorf("size %v seed %d: integer flow and LP leximin differ by %g", sz, seed, d)
				}
			}

			var res *cmmf.Result
			wall, cpu, _, err = timed(func() (*cmmf.Allocation, error) {
				r, _, err := cmmf.SolveInstance(ctx, inI, cmmf.MethodFlow, seed)
				res = r
				return nil, err
			})
			if err != nil {
				return fmt.Errorf("response %v: %w", sz, err)
			}
			rw, rc = append(rw, wall), append(rc, cpu)
			rounds = append(rounds, float64(len(res.Rounds)))
			rmse = append(rmse, res.Choosy.RMSE)
			irmse = append(irmse, res.Independent.RMSE)
		}
		lpInt := fmt.Sprintf("skipped (>%d)", lpIntegerMaxUsers)
		if len(jc) > 0 {
			lpInt = pair(jw, jc)
		}
		fmt.Fprintf(w, "%-20s %-15s %-15s %-15s %6.0fx %-17s %-15s %6.0f %8.5f %8.5f\n",
			fmt.Sprintf("%d/%d/%d", sz.Users, sz.Types, sz.Machines),
			pair(fw, fc), pair(iw, ic), pair(lw, lc), median(lc)/math.Max(median(fc), 0.001), lpInt, pair(rw, rc),
			median(rounds), median(rmse), median(irmse))
	}
	return nil
}

// lpIntegerMaxUsers bounds the sizes at which the whole-machine LP method
// is timed: it bisects with one LP per probe and needs ~20 s CPU at
// 5,000 users (RESULTS.md), which would dominate the report.
const lpIntegerMaxUsers = 1000

// leximinTol is how far the flow and LP methods' leximin vectors may
// differ before the report calls it a disagreement: both solve to about
// 1e-9 relative, so 1e-6 flags only a real difference.
const leximinTol = 1e-6

func pair(wall, cpu []float64) string {
	return fmt.Sprintf("%.1f / %.1f", median(wall), median(cpu))
}

// timed runs f and returns its wall and CPU time in milliseconds.
func timed(f func() (*cmmf.Allocation, error)) (wall, cpu float64, a *cmmf.Allocation, err error) {
	c0, w0 := benchmarks.CPUTime(), time.Now()
	a, err = f()
	return ms(time.Since(w0)), ms(benchmarks.CPUTime() - c0), a, err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for k := range a {
		if x := a[k] - b[k]; x > d {
			d = x
		} else if -x > d {
			d = -x
		}
	}
	return d
}
