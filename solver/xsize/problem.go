package xsize

import (
	"context"
	"encoding/json"

	"github.com/xflex/xflex/solver"
)

// Problem is the X-Size problem.
func Problem() solver.Problem {
	return solver.Typed[Request, *prepared]{
		Name:           "xsize",
		RequestSchema:  "xsize.request.json",
		ResponseSchema: "xsize.response.json",
		Summary:        "X-Size: choose K container shapes from a weighted request profile (anytime PTAS over rays with a (1+ε) guarantee, CBC p-median, exact max-fit DP)",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          prepare,
		Solve:          solve,
		Picture:        picture,
		Memory:         memory,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}
