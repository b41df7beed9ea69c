package cmmf

import (
	"context"
	"fmt"
	"math"

	"github.com/xflex/xflex/internal/progress"
)

// roundProgress reports progressive filling to an asynchronous job
// (package progress): after each round, phase "round k", the highest level
// any user froze at so far as the objective, and the share of users frozen
// as the fraction. Its cost is a comparison per frozen user and one report
// per round, nothing next to a round's max-flow or LP solves; outside a job
// the report is a no-op.
type roundProgress struct {
	ctx    context.Context
	users  int
	frozen int
	round  int
	level  float64
}

func newRoundProgress(ctx context.Context, users int) *roundProgress {
	return &roundProgress{ctx: ctx, users: users}
}

// freeze counts user i, whose level a.Level[i] is final.
func (r *roundProgress) freeze(a *Allocation, i int) {
	r.frozen++
	r.level = math.Max(r.level, a.Level[i])
}

// report ends a round.
func (r *roundProgress) report() {
	r.round++
	frac := 1.0
	if r.users > 0 {
		frac = float64(r.frozen) / float64(r.users)
	}
	progress.Report(r.ctx, progress.Progress{Phase: fmt.Sprintf("round %d", r.round),
		Fraction: progress.F(frac), Objective: progress.F(r.level)})
}
