package xselect

import (
	"context"
	"encoding/json"

	"github.com/xflex/xflex/solver"
)

// Problem is X-Select as served at POST /v1/xselect.
func Problem() solver.Problem {
	return solver.Typed[Request, *model]{
		Name:           "xselect",
		RequestSchema:  "xselect.request.json",
		ResponseSchema: "xselect.response.json",
		Summary:        "X-Select: pack owned containers into nodes, maximizing the share multiplier λ",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          build,
		Solve:          solve,
		Picture:        picture,
		Memory:         memory,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}
