package flex

import (
	"context"

	"github.com/xflex/xflex/solver"
)

// Problem is the flex problem: POST /v1/flex, `xflex solve flex`.
func Problem() solver.Problem {
	return solver.Typed[Request, *Instance]{
		Name:           "flex",
		RequestSchema:  "flex.request.json",
		ResponseSchema: "flex.response.json",
		Summary:        "Flex: malleable slot schedules (MPS over RAP, metric-specific and searched orderings, LP refinement) for response time, stretch, makespan, tardiness, lateness, tardy jobs and SLA costs",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          Build,
		PreBuild:       true,
		Solve:          solve,
		Picture:        picture,
		PictureShared:  pictureShared,
		Memory:         memory,
	}.Problem()
}

// solve schedules a built request.
func solve(ctx context.Context, b solver.Built[Request, *Instance], opts solver.Options) (any, solver.Meta, error) {
	return run(ctx, b.In, b.Req, opts)
}
