package solver

import (
	"context"
	"fmt"
)

// MemoryGate reserves memory for a solve about to start from a front
// end's memory budget: total is the problem's estimate of what the whole
// request needs at its peak (Typed.Memory), of which the front end may
// already hold part (the HTTP API charges every body before reading it).
// It returns an error when the memory cannot be had in time.
type MemoryGate func(ctx context.Context, total int64) error

// memoryGateKey keys a request's MemoryGate in a context.
type memoryGateKey struct{}

// WithMemoryGate returns ctx carrying gate. A problem with a memory
// estimate (Typed.Memory) asks it for the estimate once the request is
// built and before it is solved: where memory grows with numbers in the
// body (counts, copies), a charge per body byte bounds nothing. Without a
// gate (`xflex solve`) the solve starts without asking.
func WithMemoryGate(ctx context.Context, gate MemoryGate) context.Context {
	return context.WithValue(ctx, memoryGateKey{}, gate)
}

// reserveMemory asks ctx's gate, if any, for total bytes; a refusal is a
// KindOverloaded error wrapping the gate's.
func reserveMemory(ctx context.Context, total int64) error {
	gate, ok := ctx.Value(memoryGateKey{}).(MemoryGate)
	if !ok {
		return nil
	}
	if err := gate(ctx, total); err != nil {
		return &Error{Kind: KindOverloaded, Err: err,
			Detail: fmt.Sprintf("the solve needs an estimated %d MB of memory, more than the server has free now", (total+1<<20-1)>>20)}
	}
	return nil
}
