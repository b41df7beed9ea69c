package cmmf

// The tolerances of package cmmf, each with the reason for its value.
const (
	// bisectRel ends the integer water level's bisection when the bracket
	// is this small relative to its top: a few ulps of a float64, where
	// halving no longer changes the midpoint.
	bisectRel = 1e-15
)
