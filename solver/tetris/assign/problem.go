package assign

import (
	"context"
	"encoding/json"

	"github.com/xflex/xflex/solver"
)

// Problem describes tetris/assign.
func Problem() solver.Problem {
	return solver.Typed[Request, *Instance]{
		Name:           "tetris/assign",
		CLIName:        "tetris-assign",
		RequestSchema:  "tetris-assign.request.json",
		ResponseSchema: "tetris-assign.response.json",
		Summary:        "Tetris: one multi-resource packing round (alignment, SRTF, fairness and barrier knobs)",
		Generate:       Generate,
		GenParams:      genParamTable,
		Decode:         decode,
		Build:          Build,
		PreBuild:       true,
		Solve:          solve,
		Picture:        picture,
		Memory:         memory,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}
