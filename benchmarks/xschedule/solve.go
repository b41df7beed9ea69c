package xschedule

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/xflex/xflex/solver"
)

// solveRequest solves v through a problem's Go API (the HTTP endpoint's
// decode, build and solve) and returns its result; a timeout is an
// error (the benchmarks' figures come from complete runs).
func solveRequest[R any](ctx context.Context, solve func(context.Context, json.RawMessage, solver.Options) (any, solver.Meta, error), v any) (R, error) {
	var zero R
	raw, err := json.Marshal(v)
	if err != nil {
		return zero, err
	}
	out, meta, err := solve(ctx, raw, solver.Options{})
	if err != nil {
		return zero, fmt.Errorf("%T: %w", v, err)
	}
	if meta.Status == solver.StatusTimeout {
		return zero, fmt.Errorf("%T: timeout", v)
	}
	return out.(R), nil
}
