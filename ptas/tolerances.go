package ptas

// The tolerances and numeric thresholds of package ptas, each with the
// reason for its value.
const (
	// finestEpsilon ends the halvings of a target-ε schedule: the rays
	// and candidates of a level grow like 1/ε per dimension, so below
	// 1e-4 no level finishes in any budget the service allows.
	finestEpsilon = 1e-4

	// improveShare is the share of optTol (relative to the bound) by which
	// a Lagrangian value must beat the best so far to count as progress:
	// smaller gains are round-off, and counting them would keep the
	// subgradient step from ever halving.
	improveShare = 1e-3

	// minStepFactor stops the subgradient search once its step factor θ
	// (halved after each stall) is this small: the multipliers then move
	// by less than the bound's own round-off.
	minStepFactor = 1e-5

	// lbSafety is subtracted (relative to Σ|λ|) from every Lagrangian value
	// before it is used as a bound: the value is a sum of O(n·chains) float
	// terms, whose round-off is below 1e-12 relative, so 1e-10 keeps the bound
	// valid with room to spare while costing nothing measurable in the gap.
	lbSafety = 1e-10

	// optTol is the relative gap at which a ray-restricted solution counts as
	// proven optimal; it must exceed lbSafety so an exact Lagrangian bound can
	// close the gap.
	optTol = 1e-9

	// improveTol is the relative improvement a local-search move must bring to
	// be taken: 1e-12 of the objective is far above the round-off of the O(n)
	// sums that evaluate a move and far below any improvement worth a pass.
	improveTol = 1e-12
)
