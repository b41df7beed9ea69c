package fairshare

import (
	"time"

	"github.com/xflex/xflex/solver"
)

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md). Progressive filling (and the rounding of the
// exact policies' optima) simulates every server copy, up to maxCopies:
// a copy costs its residual capacities (8 bytes a resource) and about
// 100 bytes of bookkeeping; measured 116 B a copy with one resource, 141
// with two, 596 with 64 (a 1.4 kB body took 600 MB). Every (framework,
// server entry) pair is charged memPerPair for the solve's per-pair state
// (the filler's dense δ rows, per-group framework lists, the exact
// policies' variables): fitted when build still made dense δ and utility
// rows, 9 bytes a pair (5,000 × 5,000 pairs from a 444 kB body took 265
// MB; 21 MB since the rows are sparse), and kept, as that state was not
// measured apart; every server a
// framework lists by name (servers, utility) its decoded forms, about
// 300 bytes measured on 200 frameworks listing 885,000 names.
//
// Issue 28 measured the largest instances (100,000 frameworks × 50
// server types of 100,000 copies, 8.2 MB): mmf and drf at 2 s peaked at
// 337–382 MB above idle against 311 estimated, the frameworks' own part
// (decoded document, result rows, the answer) uncounted: memPerFramework
// charges 1,600 bytes, so the estimate (463 MB for drf) covers the whole
// peak, idle process included (437 MB).
// pf at 10 s peaked at 1,693 MB above idle: its interior-point state is
// about 340 bytes a (framework, server entry) pair (5·10^6 pairs), which
// the 16 bytes a pair left out; the exact policies (and compare, which
// runs them) are charged memPerPairExact instead, unless their LP is
// sure to be skipped (tooLarge: predicted above the request's budget).
const (
	memBase            = 4 << 20
	memPerCopy         = 160
	memPerCopyResource = 10
	memPerPair         = 16
	memPerPairExact    = 360
	memPerFramework    = 1600
	memPerListed       = 450
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *instance]) int64 {
	in := b.In
	copies := int64(0)
	for _, s := range in.servers {
		copies += int64(s.count)
	}
	if copies > maxCopies {
		copies = 0 // no copy is simulated: newFiller refuses the request
	}
	listed := int64(0)
	for _, f := range b.Req.Frameworks {
		listed += int64(len(f.Servers) + len(f.Utility))
	}
	pairs := int64(len(in.fws)) * int64(len(in.servers))
	perPair := int64(memPerPair)
	if !isFill(b.Req.Policy) || b.Req.Compare {
		perPair = memPerPairExact
	}
	if !b.Req.Compare && exactCost(b.Req.Policy, len(in.fws)) > requestBudget(b.Req) {
		// tooLarge skips the LP whatever is left of the budget (or the
		// budget ends before the model is built): no per-pair state.
		perPair = memPerPair
	}
	return memBase + copies*(memPerCopy+memPerCopyResource*int64(len(in.resources))) +
		pairs*perPair + int64(len(in.fws))*memPerFramework + listed*memPerListed
}

// requestBudget is the request's budget_ms, or the default budget: at
// most what the solve gets (the server's cap can only lower it).
func requestBudget(req *Request) time.Duration {
	if req.BudgetMS != nil {
		return time.Duration(*req.BudgetMS) * time.Millisecond
	}
	return solver.DefaultBudget
}
