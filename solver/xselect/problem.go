// Package xselect is X-Select (xflex-cross-platform-scheduler.txt, §2.2):
// vector-pack containers of given shapes, each with an application owner,
// into processing nodes so that every application gets λ times its
// forecast mix, for the largest λ.
//
// λ is the largest value such that some valid packing holds ⌈λ·c_as⌉
// containers of shape s owned by application a for every required count
// c_as; it is always a fraction k/c and the search (vecpack.MaxLambda)
// brackets and bisects over those breakpoints, asking an oracle whether a
// count vector packs. The heuristic oracle runs the fill-one-node-at-a-time
// greedy with each pluggable rule (vecpack.Rules), plain and guided by the
// LP relaxation's per-class solution, then the local search (moves, swaps,
// evictions, node re-packs); a failed call still reports the λ its partial
// packing attains, so the search is anytime. The exact oracle (method
// "exact", small instances) solves a CBC MIP. An LP relaxation per node
// class (node type × allowed-group signature), tightened to rounded-up
// counts by a bisection over breakpoints, bounds λ from above, so every
// answer carries a gap. Incremental replans keep all but ⌊f·nodes⌋ nodes
// as they are.
//
// Constraints: shape and application predicates on node type, rack, name
// and labels; per-node reserved capacity; colocation (the k-th container
// of one side shares a node with the k-th of the other); exlocation (never
// the same node); Garbo applications share no node with anyone.
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
