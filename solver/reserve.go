package solver

import (
	"context"
	"time"
)

// WithReserve returns ctx with its deadline moved reserve earlier (no
// deadline: unchanged), for a solver that must leave time after its
// search to build the answer within the budget.
func WithReserve(ctx context.Context, reserve time.Duration) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, dl.Add(-reserve))
}
