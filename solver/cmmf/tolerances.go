package cmmf

// The tolerances of package cmmf, each with the reason for its value.
const (
	// bisectRel ends the integer water level's bisection when the bracket
	// is this small relative to its top: a few ulps of a float64, where
	// halving no longer changes the midpoint.
	bisectRel = 1e-15

	// reportTol: divisible flows accumulate float error of order 1e-13 per
	// machine; 1e-11 relative removes it from output without hiding any real
	// fraction of a machine.
	reportTol = 1e-11

	// currentTol absorbs decimal round-off in a client's current allocation
	// (e.g. three users holding 1/3 of a machine each, written with 16 digits).
	currentTol = 1e-9

	// certTol: divisible allocations come from float max-flows whose amounts
	// err by ~1e-12 relative; a share gap or an idle amount below 1e-9
	// (relative) is treated as none.
	certTol = 1e-9

	// lpTol: CLP's primal feasibility tolerance is 1e-7; a user counts as
	// able to rise only when its rise beats that, so solver noise never keeps
	// a user active, and a demand within lpTol (relative) of the level counts
	// as reached.
	lpTol = 1e-7

	// intLPTol: vertices of a totally unimodular system with integer data
	// are integral; CLP reports them to ~1e-9, so anything further than 1e-6
	// from an integer means something is wrong.
	intLPTol = 1e-6

	// replanTol: the divisible totals come from a float max-flow and may exceed
	// what the min-cost flow can route by round-off; 1e-9 relative is far
	// above that error and far below a meaningful fraction of a machine.
	replanTol = 1e-9
)
