package xsize

// The tolerances and limits of package xsize, each with the reason for its
// value.
const (
	// quantileTol lets the quantile baseline stop at a cumulative weight
	// within round-off of its target, so equal weights split into equal
	// shares (a sum of K weights of 1/K falls short of 1 by ulps).
	quantileTol = 1e-12

	// minGenEpsilon and maxGenEpsilon bound the ε `xflex gen xsize`
	// accepts: the schema's range, so a generated request is valid.
	minGenEpsilon = 1e-4
	maxGenEpsilon = 10
)
