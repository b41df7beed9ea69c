// Package flex implements the Flex allocation scheme for MapReduce-style
// slot scheduling (Wolf et al., "FLEX: A Slot Allocation Scheduling
// Optimizer for MapReduce Workloads", Middleware 2010): the malleable packing
// scheme (MPS) that turns a priority ordering of jobs into a malleable
// schedule, orderings from separable resource allocation problems (RAP) and
// from metric-specific rules, a local search over orderings, an exact
// branch-and-bound search over orderings for small instances, the FIFO and
// Fair baselines, and an LP/MILP refinement that keeps a completion order
// and re-optimises the slot allocation of every interval.
//
// Times are on the caller's clock: the schedule starts at the epoch start
// (request field start, default 0), deadlines are absolute, and response
// time and stretch are measured from a job's arrival (default: start).
//
// # Wire format and semantics
//
// Request (schemas/flex.request.json): slots S; metric (weighted_response_time,
// stretch, makespan, tardy, tardiness, lateness, sla), settable per job with
// jobs[i].metric; objective sum or max (default max for makespan, sum
// otherwise; makespan with sum is refused); start (epoch start T0); jobs with
// id, work (remaining slot-seconds), min, max (values above S act as S),
// weight (default 1), deadline, sla steps, arrival; exact; local_search (MPS
// evaluations, 0 = off); refine (auto, on, off); max_intervals.
//
// Per-job penalties f_j(C) of a completion time C:
//
//	weighted_response_time  w·(C − arrival)
//	stretch                 (C − arrival) / (work/max)     weights do not apply
//	makespan                C − start                      weights do not apply
//	tardy                   w if C > deadline (strictly), else 0
//	tardiness               w·max(0, C − deadline)
//	lateness                w·(C − deadline)               may be negative
//	sla                     penalty of the last pseudo-deadline missed (not a sum)
//
// Result: objective, ordering (the MPS priority list of the winner, or its
// completion order when Fair or the LP refinement won), ordering_source (rap,
// smith, shortest_alone, arrival, edd, moore_hodgson, lawler, local_search,
// exact_mps, fair, lp_refinement, lp_exhaustive), intervals (start, end,
// slots per job id), jobs (id, completion, penalty), baselines.fifo and
// baselines.fair (objective and ratio to flex; Fair is {"skipped": true}
// when the deadline had nearly passed before the solve, see first.go),
// candidates, mps_optimal, optimal, rap_method ("skipped" in that case).
//
// meta.status is "optimal" only when proven: (a) every completion order was
// solved by the LP/MILP refinement (exact=true, up to ExactLPMaxJobs or
// ExactMILPMaxJobs jobs), or (b) Lemma 1 applies (sum of weighted response
// time, stretch and lateness) and the exact MPS search completed. Otherwise
// "feasible" (or "timeout" when the budget cut a search) with meta.bound a
// valid lower bound on every malleable schedule (see lowerBound).
//
// # Paper claims checked
//
// Three statements of the paper do not hold as written; each is kept as a
// test:
//
//   - Lemma 1 (some MPS ordering is optimal) fails for the minimax
//     aggregate and for tardy jobs, tardiness and SLA sums: two jobs of work
//     6, min 1, max 3 on 4 slots have best MPS makespan 3.33 while an even
//     2/2 split gives 3.0 (TestLemma1Counterexample). It holds on every
//     random instance tried for sums of weighted response time, stretch and
//     lateness (TestLemma1, against the LP over all completion orders).
//     Flex therefore returns the best of all candidates, Fair and the LP
//     refinement included.
//   - The minimax RAP transform to the minisum of G_j(s) = Σ_{i≤s} F_j(i):
//     with F_j non-increasing, G_j is concave, not convex, and minimising
//     Σ G_j hands out no spare slot (TestPaperMinimaxTransform). The
//     largest-current-penalty greedy is exact instead.
//   - Tardiness is listed with the non-convex RAPs, but
//     F_j(s) = w·max(0, T0 + W/s − d) is convex in s (a convex non-decreasing
//     function of the convex W/s), so the greedy is exact for it
//     (TestRAPConvexity, TestRAPAgainstBruteForce). Tardy jobs and SLA steps
//     do need the DP (TestGreedyFailsOnTardy).
//
// The paper leaves the conversion of work to maximum slots open; Generate's
// task parameter sets it (default: work in one-slot tasks, M_j =
// min(S, ⌈work_j⌉), with total work 10·S).
package flex
