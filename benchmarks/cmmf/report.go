// Package cmmf benchmarks the CMMF solvers on Google-like instances
// (solver/cmmf.Generate): median solve times of the flow method against
// the LP method (the paper's Algorithm 1) in the same run, at the issue's
// sizes 100/20, 1,000/50 and 5,000/100 users/types.
package cmmf

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

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

// Report prints, per size, the median solve time over several seeds of
// the flow method (divisible and whole machines) and of the LP method
// (divisible), the median number of rounds, and Choosy's RMSE.
func Report(ctx context.Context, w io.Writer, scale string) error {
	seeds := 5
	lpLimit := 1000 // users: the LP method runs one LP per user per round
	if scale == "full" {
		seeds = 5
		lpLimit = 1000
	}
	fmt.Fprintf(w, "CMMF solve times, median of %d Google-like instances per size (one core)\n\n", seeds)
	fmt.Fprintf(w, "%-22s %12s %12s %12s %8s %10s %12s\n", "users/types/machines", "flow div", "flow int", "lp div", "rounds", "lp/flow", "choosy rmse")
	for _, sz := range Sizes(scale) {
		var tf, ti, tl, rounds, rmse []float64
		for seed := int64(1); seed <= int64(seeds); seed++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			in := Instance(seed, sz, true)
			t0 := time.Now()
			res, _, err := cmmf.SolveInstance(ctx, in, cmmf.MethodFlow, seed)
			if err != nil {
				return fmt.Errorf("flow %v: %w", sz, err)
			}
			tf = append(tf, ms(time.Since(t0)))
			rounds = append(rounds, float64(len(res.Rounds)))
			rmse = append(rmse, res.Choosy.RMSE)

			inI := Instance(seed, sz, false)
			t0 = time.Now()
			if _, _, err := cmmf.SolveInstance(ctx, inI, cmmf.MethodFlow, seed); err != nil {
				return fmt.Errorf("integer flow %v: %w", sz, err)
			}
			ti = append(ti, ms(time.Since(t0)))

			if sz.Users <= lpLimit {
				t0 = time.Now()
				lres, _, err := cmmf.SolveInstance(ctx, in, cmmf.MethodLP, seed)
				if err != nil {
					return fmt.Errorf("lp %v: %w", sz, err)
				}
				tl = append(tl, ms(time.Since(t0)))
				if d := maxDiff(res.Leximin, lres.Leximin); d > 1e-6 {
					return fmt.Errorf("size %v seed %d: flow and LP leximin differ by %g", sz, seed, d)
				}
			}
		}
		lp, ratio := "skipped", "-"
		if len(tl) > 0 {
			lp = fmt.Sprintf("%.1f ms", median(tl))
			ratio = fmt.Sprintf("%.0fx", median(tl)/median(tf))
		}
		fmt.Fprintf(w, "%-22s %9.1f ms %9.1f ms %12s %8.0f %10s %12.5f\n",
			fmt.Sprintf("%d/%d/%d", sz.Users, sz.Types, sz.Machines), median(tf), median(ti), lp, median(rounds), ratio, median(rmse))
	}
	return nil
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
