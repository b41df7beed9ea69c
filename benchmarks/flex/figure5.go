package flex

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strconv"
	"time"

	fx "github.com/xflex/xflex/solver/flex"
)

// Figure5Point is one x value of the paper's Fig. 5(a) or 5(b): the
// average and worst ratios of FIFO, Fair and the paper's Flex (MPS over
// the RAP and metric-specific orderings, no search) to the exact MPS
// optimum, average response time, over the instances.
type Figure5Point struct {
	X                float64
	FIFO, Fair, Flex Ratios
	Unproven         int
}

// Figure5 sweeps one generator parameter (param: "slack" for Fig. 5(a),
// "small" for 5(b)) over xs with n instances (seeds 1..n) per point, the
// other parameters at base (plus the base case's defaults: 10 jobs, 100
// slots, 80% small, 75% slack); each exact search gets perInstance.
func Figure5(ctx context.Context, param string, xs []float64, base map[string]string, n int, perInstance time.Duration) ([]Figure5Point, error) {
	var out []Figure5Point
	for _, x := range xs {
		p := Figure5Point{X: x}
		params := maps.Clone(base)
		if params == nil {
			params = map[string]string{}
		}
		params[param] = strconv.FormatFloat(x, 'g', -1, 64)
		for seed := 1; seed <= n; seed++ {
			inst, err := fx.Generate(int64(seed), params)
			if err != nil {
				return nil, err
			}
			ictx, cancel := context.WithTimeout(ctx, perInstance)
			parts, err := fx.Measure(ictx, inst.(*fx.Request), int64(seed))
			cancel()
			if err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !parts.Proven || !(parts.MPSOptimum > 0) {
				p.Unproven++
				continue
			}
			p.FIFO.Add(parts.FIFO / parts.MPSOptimum)
			p.Fair.Add(parts.Fair / parts.MPSOptimum)
			p.Flex.Add(parts.Orderings / parts.MPSOptimum)
		}
		out = append(out, p)
	}
	return out, nil
}

// Figure5Slack and Figure5Small are the x values of Fig. 5(a) (slack,
// small jobs at 80%) and 5(b) (the fraction of small jobs, slack at 75%;
// the paper leaves out 10 of 10, which is the same distribution as 0).
var (
	Figure5Slack = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9}
	Figure5Small = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
)

// Figure5Report prints Fig. 5(a) and 5(b) as tables (n instances per
// point), the generator's other parameters at base (task: the
// work-to-slots conversion).
func Figure5Report(ctx context.Context, w io.Writer, n int, base map[string]string) error {
	for _, f := range []struct {
		title, param string
		xs           []float64
	}{{"Fig. 5(a): average response time against slack (80% small jobs)", "slack", Figure5Slack},
		{"Fig. 5(b): average response time against the fraction of small jobs (75% slack)", "small", Figure5Small}} {
		pts, err := Figure5(ctx, f.param, f.xs, base, n, 20*time.Second)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s, %d instances per point, generator parameters %v, ratio to the exact MPS optimum (avg / worst):\n\n", f.title, n, base)
		fmt.Fprintf(w, "| %s | FIFO | Fair | Flex | unproven |\n|---|---|---|---|---|\n", f.param)
		for _, p := range pts {
			fmt.Fprintf(w, "| %g | %.3f / %.3f | %.3f / %.3f | %.4f / %.4f | %d |\n", p.X, p.FIFO.Avg(), p.FIFO.Worst, p.Fair.Avg(), p.Fair.Worst,
				p.Flex.Avg(), p.Flex.Worst, p.Unproven)
		}
	}
	return nil
}
