// Package fairshare allocates tasks of application frameworks to
// heterogeneous servers fairly, after Kesidis et al., "Scheduling
// Distributed Resources in Heterogeneous Private Clouds" (IEEE MASCOTS
// 2018).
//
// It offers two families of policies on one instance (resources, servers or
// server types with counts, frameworks with per-task demand vectors,
// priorities φ_n, allowed servers δ_{n,i} and optional task caps):
//
//   - exact optima of the divisible problem (eq. 1 constraints): the
//     U-max-min fair allocation ("mmf", Definition 1) for a criterion U of
//     the form of eq. 2, found by iterative LP with saturation tests (one
//     LP per level, grown by column generation and re-solved warm); the
//     weighted α-fair optimum of eq. 8 ("pf", α = 1 is proportional
//     fairness), found by a structured primal-dual interior-point method
//     on the convex program (pfipm.go) and, as the independent second
//     method and fallback, by inner approximation (breakpoint columns
//     priced in by LP duals, pf_method "inner_lp"), both certified by the
//     same Lagrangian bound; and the maximum-efficiency allocation of
//     eq. 10 ("efficiency"). Identical servers are coalesced into one
//     column block, so 10,000 servers of 50 types cost what 50 servers
//     cost. The interior-point allocation is purified (purify.go) to a
//     sparse one with the same criterion values.
//   - progressive filling with whole tasks ("drf", "tsf", "psdsf", "rpsdsf",
//     "bfdrf") exactly as section IV defines them, under randomized
//     round-robin ("rrr", seeded) or joint server selection.
//
// Every result reports x_{n,i}, total tasks, unused (stranded) resources per
// server, the efficiency (eq. 10) and the PF objective (eq. 8), so policies
// can be compared side by side; compare: true runs them all.
//
// # Readings and paper claims
//
// The progressive-filling readings are documented in fill.go; they
// reproduce Table I exactly for BF-DRF (20, 2, 0, 19), PS-DSF (19, 0, 2, 20)
// and rPS-DSF (19, 2, 2, 19), and the RRR rows and Table II within sampling
// error (paper_test.go). Over 100,000 seeded trials the RRR means are
// DRF/TSF (6.58, 4.68, 4.68, 6.58) and PS-DSF (19.45, 1.08, 1.09, 19.45)
// with standard deviations (0.57, 1.00, 1.00, 0.55), against the paper's
// 200-trial (6.55, 4.69, 4.69, 6.55) and (19.44, 1.15, 1.07, 19.42) with
// (0.59, 0.99, 1, 0.49).
//
// One claim holds only in distribution: "RRR-rPS-DSF performed just as
// rPS-DSF over 200 trials". Under the issue's RRR reading 0.06% of trials
// end in (15, 2, 3, 19) or (19, 3, 2, 15) instead of (19, 2, 2, 19), so a
// run of 200 trials shows a deviation with probability ≈ 0.12; the seed
// of paper_test.go shows one, and the test accepts up to three.
//
// Definition 1 (U-MMF) and the PF condition (eq. 9) hold as properties on
// random instances (exact_test.go). Definition 1 needs every resource
// booked on a shared server to be demanded by both frameworks; the tests
// use strictly positive demands accordingly, and with task caps the
// leximin optimum may violate it (a capped framework cannot take more).
package fairshare
