package simulate

// The tolerances of package simulate, each with the reason for its value.
const (
	// amCapTol keeps a cap on the AMs' dominant share that is met exactly
	// in exact arithmetic (0.5 of 78 containers is 39 AMs of 1/78) from
	// failing on the float sum.
	amCapTol = 1e-9
)
