package vecpack

// The tolerances of package vecpack, each with the reason for its value.
const (
	// snapSlack is the absolute slack BreakpointAtMost adds to an upper
	// bound (besides BoundTol relative) before snapping it down to a
	// breakpoint k/c_g: a thousandth of BoundTol, so a bound near 0 that is
	// a breakpoint up to round-off keeps that breakpoint.
	snapSlack = BoundTol / 1000

	// FitTol absorbs float round-off when comparing a demand with free capacity:
	// capacities are sums of at most ~1e6 terms of magnitude ≤ 1e6, so 1e-9
	// relative is far above accumulated error and far below any real size.
	FitTol = 1e-9

	// BoundTol is the relative slack applied to an LP upper bound before it
	// caps the search: LP solvers meet their constraints to about 1e-7
	// relative, so a true optimum can exceed the reported bound by that much.
	BoundTol = 1e-6

	// breakTol absorbs the round-off of x·c_g when x is itself a breakpoint
	// computed in floating point (e.g. an LP bound equal to 7/3): products of
	// order ≤ 1e9 carry errors near 1e-7 at worst, far below the spacing 1 of
	// the integers being rounded.
	breakTol = 1e-6

	// quotaEps lets an accumulated quota of 0.9999999 (a sum of fractions
	// that should be an integer) count as 1.
	quotaEps = 1e-7

	// improveEps is the smallest decrease of unplaced weight (normalised size
	// sums, order 1 per item) or increase of free-space concentration that
	// counts as progress; it sits far above float round-off and far below the
	// weight of any real item.
	improveEps = 1e-9
)
