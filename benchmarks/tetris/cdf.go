package tetris

import (
	"context"
	"math/rand/v2"

	"github.com/xflex/xflex/solver/tetris/simulate"
)

// Deployment runs the report's deployment workload (seed Seed, 100 jobs
// at full size) on machines machines, arrivals uniform over [0,
// horizon] (0: all at 0), under each policy with the report's own
// simRun: the results by policy, for the completion-time CDFs of the
// paper's Fig. 7 and the headline reductions (benchmarks/repro).
func Deployment(ctx context.Context, machines int, horizon float64, pols []string) (map[string]*simulate.Result, error) {
	wl := scales["full"]
	req := simulate.GenerateRequest(rand.New(rand.NewPCG(Seed, 1)), wl.jobs, machines, wl.size, horizon, simulate.PolicyTetris)
	out := map[string]*simulate.Result{}
	for _, p := range pols {
		r, _, err := simRun(ctx, req, p, nil)
		if err != nil {
			return nil, err
		}
		out[p] = r
	}
	return out, nil
}
