// Package cmmf computes constrained max-min fair (CMMF) allocations of
// machines to users with placement constraints, after Ghodsi et al.,
// "Choosy: Max-Min Fair Sharing for Datacenter Jobs with Constraints"
// (EuroSys 2013).
//
// A CMMF allocation maximises the smallest weighted share total_i/w_i,
// then the second smallest, and so on (leximin), subject to every user
// receiving only machines it can run on and at most its demand. xflex
// computes it exactly:
//
//   - divisible machines by parametric max-flow (divisible.go) or by the
//     paper's iterative LP, Algorithm 1 (lp.go); both agree within 1e-9;
//   - whole machines by a batched greedy that is exact for this objective,
//     with max-flow (integer.go) or LP (lpint.go) feasibility tests,
//     checked against brute force;
//   - every answer re-proved optimal at run time by an exchange-path
//     certificate (certify.go);
//   - with a current allocation, the optimal allocation that moves the
//     fewest machines, by min-cost flow (replan.go);
//   - the paper's baselines, independent allocation (baselines.go) and
//     Choosy (choosy.go), for comparison.
//
// This package is the reference every other xflex problem copies: the
// package documentation (this file), the request's wire types
// (request.go), semantic validation and the instance the algorithms need
// (build.go, with predicates in predicate.go and grouping keys in
// keys.go), algorithms in their own files, the wire result (result.go),
// and Problem() wiring it to the Runner (problem.go).
package cmmf
