package xselect

// The tolerances of package xselect, each with the reason for its value.
const (
	// boundFitTol lets ⌊cap/size⌋ round up when cap/size is an integer up
	// to round-off, so the per-node cap never undercounts (which would
	// make the bound invalid); 1e-9 matches vecpack.FitTol.
	boundFitTol = 1e-9

	// fitTotalTol is the relative shortfall of the counting LP's optimum
	// from Σ counts that still counts as "fits": CLP meets constraints to
	// about 1e-7 relative, so 1e-6 never rejects a count vector that fits,
	// and a real shortfall is at least one container, far above it.
	fitTotalTol = 1e-6

	// cfgPriceEps is the reduced cost a configuration must exceed to
	// enter: the LP's duals are accurate to about 1e-9 (relative), and a
	// reduced cost that small cannot change the bound beyond its own
	// tolerance.
	cfgPriceEps = 1e-7

	// countTol is how far below an integer a count computed in floating
	// point (an LP's y_p, a kind's remaining demand, change_fraction × N)
	// may fall and still count as that integer when floored: the LP meets
	// its constraints to about 1e-9, and a real fraction of a node or a
	// container is far larger.
	countTol = 1e-9

	// pricePruneTol is the margin by which the pricing's fractional bound
	// must beat the best configuration so far for a branch to be
	// explored: values are dual-weighted container counts of order 1, so
	// 1e-12 absorbs the bound's summation round-off and prunes branches
	// that can only tie.
	pricePruneTol = 1e-12
)
