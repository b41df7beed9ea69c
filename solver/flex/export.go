package flex

import (
	"context"
	"math"

	"github.com/xflex/xflex/solver"
)

// This file exposes the pieces the benchmarks (benchmarks/flex) measure
// separately: the full solve on a decoded request, the exact MPS optimum,
// the RAP ordering alone and the FIFO baseline alone.

// SolveRequest validates req and runs the whole Flex pipeline.
func SolveRequest(ctx context.Context, req *Request, opts solver.Options) (*Result, solver.Meta, error) {
	in, err := Build(req)
	if err != nil {
		return nil, solver.Meta{}, err
	}
	return run(ctx, in, req, opts)
}

// Parts are the objectives of the individual schemes on one instance.
type Parts struct {
	FIFO, Fair float64
	// RAP is MPS on the generic RAP ordering alone; Orderings the best MPS
	// schedule over the RAP and metric-specific orderings (no search).
	RAP, Orderings float64
	// MPSOptimum is the best MPS ordering by exhaustive branch and bound;
	// Proven is false when ctx stopped the search.
	MPSOptimum float64
	Proven     bool
}

// Measure computes Parts for req (the exact search runs within ctx).
func Measure(ctx context.Context, req *Request, seed int64) (Parts, error) {
	in, err := Build(req)
	if err != nil {
		return Parts{}, err
	}
	var p Parts
	n := in.N()
	comp := make([]float64, n)
	w := newMPSWork(n)
	in.mps(in.arrivalOrder(), true, w, comp, nil)
	p.FIFO = in.Objective(comp)
	fc, _, _ := in.fair(0)
	p.Fair = in.Objective(fc)
	alloc, _ := in.rapSolve()
	ev := newEvaluator(in)
	rapPrio := in.rapOrdering(alloc)
	p.RAP = ev.eval(rapPrio)
	best, bestObj := rapPrio, p.RAP
	for _, o := range in.specificOrderings() {
		if v := ev.eval(o.prio); better(v, bestObj) {
			best, bestObj = o.prio, v
		}
	}
	p.Orderings = bestObj
	_, p.MPSOptimum, p.Proven = in.exactMPS(ctx, best, bestObj)
	if math.IsInf(p.MPSOptimum, 0) {
		p.Proven = false
	}
	return p, nil
}

// FIFOObjective runs only the FIFO baseline (MPS in arrival order with the
// minima set to 0): the speed reference of the benchmarks.
func FIFOObjective(req *Request) (float64, error) {
	in, err := Build(req)
	if err != nil {
		return 0, err
	}
	comp := make([]float64, in.N())
	in.mps(in.arrivalOrder(), true, newMPSWork(in.N()), comp, nil)
	return in.Objective(comp), nil
}
