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
		Decode:         decode,
		Build:          Build,
		Solve:          solve,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}

// decode is the parse alongside validation: the request read by
// Request.UnmarshalJSON without encoding/json's two scans of the body
// first (solver.Decode's syntax check and value extraction, 12 ms of 27 on
// a 1.6 MB request); the Runner checks the syntax itself while this runs.
// UnmarshalJSON hands anything unusual to encoding/json, so it returns on
// any input.
func decode(raw json.RawMessage) (*Request, error) {
	var req Request
	if err := req.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return &req, nil
}
