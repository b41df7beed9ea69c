package flex

// The tolerances and generator floors of package flex, each with the
// reason for its value.
const (
	// ceilTol keeps ⌈work/task⌉ from counting one task too many when the
	// quotient is an integer up to round-off.
	ceilTol = 1e-9

	// minMeanFloor keeps the generator's truncated normal of minimum slots
	// well defined (positive mean and spread) when the slack leaves no
	// minimum to spread.
	minMeanFloor = 1e-9

	// minDraw is the smallest uniform draw the generator uses for a
	// weight, deadline, SLA step time or step penalty: zero would make a job free to delay and
	// its objective term vanish; 1e-6 still rounds to a nonzero
	// six-decimal value.
	minDraw = 1e-6
)
