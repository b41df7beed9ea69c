package fairshare

// The tolerances of package fairshare, each with the reason for its value.
const (
	// pfPromisedGap is the relative gap the service promises for a PF
	// answer it calls optimal (the loop stops at pfGapTarget, a tenth of
	// it); a larger certified gap downgrades the status to feasible.
	pfPromisedGap = 1e-6

	// minRadius is the smallest trust radius of the PF breakpoint pricing:
	// the radius shrinks by 4 each round, and below 1e-9 (relative to
	// allocations of order 1) new breakpoints would only repeat old ones.
	minRadius = 1e-9

	// boundShrink is how much the rPS-DSF search shades its lower bound:
	// the bound is computed in another order of operations than the
	// criterion (a product with the reciprocal), so it is shrunk by far
	// more than its round-off and far less than tieRel.
	boundShrink = 1e-14

	// divRoundOff covers the round-off of the division in lossCut.
	divRoundOff = 1e-15

	// rcMagFloor is the smallest magnitude a reduced cost is judged
	// against (rcTol·max(mag, rcMagFloor)): a column whose terms all
	// vanish still needs a positive threshold to enter.
	rcMagFloor = 1e-12

	// pfGapTarget is where the PF loop stops: a tenth of the 1e-6
	// relative gap the service promises, leaving room for the round-off in
	// evaluating Σ φ log V over a thousand terms (≈1e-13 relative).
	pfGapTarget = 1e-7

	// rcTol: a column enters when its reduced cost exceeds this relative to
	// the magnitude of the terms it is computed from; LP duals are accurate to
	// ≈1e-9 relative, so smaller reduced costs are indistinguishable from 0.
	rcTol = 1e-9

	// tieRel treats two criterion values as equal when they differ by at most
	// this relative amount: criteria are products of a few floats, so values
	// that are equal in exact arithmetic differ by a few ulps (≈1e-16) and
	// values that truly differ do so by far more than 1e-12.
	tieRel = 1e-12

	// dualTol: a level row whose dual exceeds this is binding in the LP's
	// optimal dual, which proves (Goldman–Tucker) that its framework cannot
	// exceed the level: duals sum to 1 over the level rows, so true positives
	// are ≥ 1/N ≫ 1e-9, while backends report degenerate zeros as |y| ≲ 1e-12.
	dualTol = 1e-9

	// nullTol: a pivot below this fraction of the largest entry of the matrix
	// counts as zero in nullVector; demands are given to ≈1e-15 relative, so
	// 1e-12 separates real dependence from round-off.
	nullTol = 1e-12
)
