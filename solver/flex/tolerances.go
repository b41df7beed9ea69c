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

	// levelTol: a job whose maximum is within this relative distance of the
	// level counts as at its maximum (λ is a quotient of integers, exact to
	// ~1e-16 relative).
	levelTol = 1e-12

	// TimeTol is the relative tolerance on times: a job is tardy only when it
	// completes more than TimeTol·max(1,|deadline|) after its deadline, so a
	// completion that meets a deadline exactly in exact arithmetic is not made
	// tardy by float round-off (completions are sums of at most a few thousand
	// quotients, whose relative error stays far below 1e-9).
	TimeTol = 1e-9

	// WorkTol is the relative tolerance on the work a schedule delivers: LP
	// solutions are exact to about 1e-7 relative, and the MPS/Fair
	// simulations accumulate round-off far below that.
	WorkTol = 1e-6

	// improveTol is the relative improvement a move must make to be accepted
	// (and the B&B margin for pruning): objectives are sums of at most ~1e4
	// penalties each exact to ~1e-15 relative, so 1e-10 separates real
	// improvements from round-off and stops cycling between equal orderings.
	improveTol = 1e-10
)
