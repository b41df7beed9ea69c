// Package lp, in detail: how to call it, the backends, results, duals and
// tolerances.
//
// # Calling it
//
//	m := lp.NewModel()
//	x := m.AddVar("x", 0, lp.Inf, 1, false)
//	y := m.AddVar("y", 0, lp.Inf, 2, false)
//	m.AddRow("cover", []int{x, y}, []float64{1, 1}, 2, lp.Inf)
//	sol, err := lp.Solve(ctx, m, lp.Options{TimeLimit: time.Second})
//
// Solve returns an error only for an invalid model (Model.Validate) or an
// unavailable backend (wrapping ErrNoBackend). Everything about the problem
// itself is in Solution.Status. An expired or cancelled context, like the
// time limit, gives Feasible with the incumbent or TimeLimit without one;
// callers that must tell cancellation from a budget check ctx.Err().
// Crossed bounds and integer columns whose bounds contain no integer are
// reported Infeasible before any engine runs; a model without columns is
// solved directly (every row activity is 0).
//
// # Backends
//
// Backends() lists what this binary contains, the default first.
//
//   - "coin" (cgo builds only): COIN-OR CLP 1.17 for LPs and CBC 2.10 for
//     MIPs through a thin binding of their C interfaces (coin.go). It is the
//     default and the one to use for anything sizeable. Every C object is
//     created and deleted inside one call; nothing is kept between calls.
//     The remaining budget is passed as CLP's/CBC's time limit (CBC in
//     wall-clock mode). CBC's driver is not reentrant, so MIP solves are
//     serialised process-wide (waiting honours the context); LP solves run
//     concurrently. Rows and columns without entries never reach COIN-OR,
//     and MIPs go through a small presolve in Go first (presolve.go).
//     Solves never touch the process's signal handlers: CLP's interrupt
//     handling, which would take SIGINT from Go, is switched off for CLP
//     and for the CLP inside CBC (clpInitialSolve, coin_cbc.cpp).
//   - "native" (always): a bounded-variable revised primal simplex with a
//     dense explicit basis inverse (native_simplex.go), Dantzig partial
//     pricing with a Bland fallback against cycling, and depth-first branch
//     and bound for MIPs (native.go) with a rounding heuristic, a node limit
//     of 200,000 and the deadline; node LPs start from the parent's optimal
//     basis. Dense O(rows²) work per pivot: fine up to a few hundred rows,
//     refused (Status Failed) beyond 4,000; the search has no cuts, so it is
//     meant for small MIPs. It is deterministic.
//
// With CGO_ENABLED=0 only "native" exists and is the default;
// BackendByName("coin") returns ErrNoBackend. The tests that need COIN-OR
// live in files with the cgo build constraint and the rest run on whatever
// Backends() returns, so `CGO_ENABLED=0 go test ./lp/` passes.
//
// Neither CLP 1.17 nor CBC 2.10.8 gets the last word. The randomized
// cross-checks against the native backend and brute-force enumeration found
// them wrong on a small fraction of small models (wrong optimum, infeasible
// or unbounded confused, false infeasibility, even a process abort inside
// CBC); the models are kept as tests (TestQuirkMIPs and the hand LPs).
// So an "optimal" LP is accepted only after Verify confirms it,
// "infeasible"/"unbounded" are settled by a zero-objective solve, CBC runs
// without its own preprocessing and gets a second opinion with it (a run
// that looks only for strictly better solutions), and MIP verdicts of
// infeasibility or unboundedness are re-derived (see solveCLP and solveMIP).
// The second opinion costs up to one more CBC run per MIP; with MIPGap > 0
// it is skipped. A CBC run that ends with neither a verdict nor an
// incumbent is re-derived the same way (LP relaxation, then a run with
// preprocessing) instead of being passed on as Failed: before CBC solves
// were serialised, concurrent solves produced exactly that on infeasible
// feasibility-only MIPs (TestCoinConcurrentFeasibility,
// TestCoinFailedFirstRunRederived). Solve itself reports Failed for any
// Optimal or Feasible answer without one value per column.
//
// Feasibility-only MIPs (all costs zero) get the same verdicts as any other:
// Infeasible or Optimal with Objective = Bound = ObjOffset. The native
// search can stall on them when integer columns are unbounded (finding a
// first integer point by depth-first branching may not terminate). In a
// sweep of 16,000 random small MIPs (half of them feasibility-only, many
// with free integer columns) 4 feasible feasibility-only models, and 11
// unbounded ones whose verdict needs the same search, ended TimeLimit after
// 5 s natively, where CBC answered correctly; no backend gave a wrong
// verdict.
//
// # Results
//
// X has one value per column for Optimal and Feasible; integer columns are
// rounded to the nearest integer. Objective is c·X + ObjOffset computed in
// Go. Bound is the best proven bound in the model's sense (≤ Objective for a
// minimisation): equal to Objective for an optimal LP, CBC's best possible
// value or the native search's best open node for a MIP. With MIPGap > 0 a
// MIP is reported Optimal once the gap is closed to within MIPGap
// (relative), and Bound then shows the remaining gap. Callers measure that
// gap in their own convention (xflex's is solver.RelGap); this package has
// none of its own.
//
// # Duals
//
// For an Optimal LP, RowDuals[i] is the derivative of Objective with
// respect to row i's active bound and ReducedCosts[j] = c_j − Σ_i a_ij·y_i
// the derivative with respect to column j's active bound, in the model's own
// sense. So for a minimisation a binding "≥" row (at its lower bound) has a
// non-negative dual and a binding "≤" row a non-positive one; for a
// maximisation the signs flip. Strong duality then reads
//
//	Objective − ObjOffset = Σ_i y_i·(active bound of row i) + Σ_j d_j·(active bound of column j)
//
// which Verify checks. Degenerate problems have many valid dual vectors;
// the backends may return different ones. MIPs carry no duals.
//
// # Tolerances
//
// Native: primal feasibility 1e-9 (relative to 1+|bound|), reduced-cost
// optimality 1e-9, pivots below 1e-9 rejected, phase-1 infeasibility
// threshold 1e-7, integrality 1e-6 (as CBC), node pruning at relative 1e-9.
// CLP/CBC: their defaults (primal and dual tolerance 1e-7, integrality
// 1e-6). Verify uses VerifyTol = 1e-6 relative. The tests demand objective
// agreement between backends within 1e-7 relative.
//
// # Re-solves
//
// Incremental (NewIncremental, AddCol, Solve, Reset, Close) re-solves an LP
// that grows by columns, as column generation does. With coin it keeps the
// CLP model and its optimal basis between solves and continues with primal
// simplex (new columns enter at their lower bound); every warm "optimal" is
// checked with Verify, and anything else is answered by a cold Solve. With
// native (or without cgo) each Solve is a cold Solve. A warm optimum of a
// degenerate LP may carry other valid duals than a cold one; Reset makes the
// next Solve start from scratch.
package lp
