// Package assign is X-Schedule (Wolf et al., "The X-Flex Cross-Platform
// Scheduler: Who's the Fairest of Them All?", Middleware 2014, §2.1), the
// online component of X-Flex, as one decision round: given the
// containers X-Select placed (each with an owner and perhaps a current
// user), the applications' sharing bounds, the pair contexts and the
// pending requests at time now, it grants containers, starts preemptions
// and returns the updated pair contexts and why each request left waiting
// waits. The round works on a model (build.go) whose state it mutates in
// place, so a simulator can drive the same code event by event.
//
// # The model
//
// Applications are "share" or "garbo". Each sharing application A has a
// universal bound δ_A and optional per-peer bounds δ_AB; the pair's bound
// is Δ_AB = Δ_BA = min(δ_AB, δ_BA). Each pair (a, b), a before b in the
// apps list, has a context: lastShare (how far b is in debt to a),
// lastSlope (Σ charge rates of a's containers used by b minus those of b's
// used by a) and lastCalcTime. A container's charge rate is its normalised
// size Σ_r size_r / total_r (total_r the cluster's capacity of r, less
// reserved for a placement), or Σ_r size_r·price_r with prices.
//
// # A round
//
//  1. Notices whose deadline has come (or whose container the user has
//     released) complete: the container goes to the notice's application.
//  2. Requests are served by priority, highest first, ties in request
//     order, one container at a time up to count. owned_only: a free own
//     container, else preemption of the first kind (reclaim an own
//     container from a borrower). owned_first: free own, free others',
//     reclaim, then preemption of the second kind (takeover of another's
//     container from a user in debt to the requester). non_owned: free
//     others', then takeover.
//  3. Candidates are eliminated for locality (host or rack), any dimension
//     short, or aggregate normalised size over fitness × the request's
//     (default 2); the rest score request/container normalised size (1 is
//     an exact fit), plus, for others' containers, the weighted TTL term.
//     The highest score wins; ties go to the lower container index, and
//     among preemption candidates first to the lower preemption priority.
//  4. A preemption sends the user a notice with deadline now + grace
//     period; with grace period 0 the container changes hands at once.
//
// # Readings
//
// Where the paper is silent or loose, this package reads it so:
//
//   - Base score. The paper keeps "a numerical score indicating how well
//     the attributes ... satisfy the request" without giving it: we use
//     request norm / container norm in (1/fitness, 1], a best fit.
//   - TTL. newShareProjection is the requester's debt to the owner now,
//     lastShare + lastSlope·(now − lastCalcTime) from the requester's side;
//     newSlopeProjection adds the container's charge rate to the
//     requester's debt slope; TTL = (Δ − newShare)/newSlope, clipped to
//     [0, ttl_horizon] (a slope that is not positive never reaches the
//     bound: the horizon), and the score adds ttl_weight·TTL/ttl_horizon,
//     so the term is at most ttl_weight.
//   - Eligibility. A user u may be preempted by the requester r when u's
//     newShareProjection toward r, its debt to r now, is at least Δ_ur and
//     positive: the paper's "≥ Δ" would let a bound of 0 preempt a pair in
//     perfect balance, while its text says only an application "in debt"
//     may be preempted. For a reclaim u uses r's container; for a takeover
//     u uses a container of its own or a third application's.
//   - A container that changed hands in a round is not preempted again in
//     the same round (no churn within one decision).
//   - Order of the steps. owned_first tries reclaim before takeover (the
//     paper lists the first kind for owned_only and owned_first).
//   - Garbo. Garbo applications never lend or borrow: their containers are
//     no one else's candidates, their requests are served as owned_only,
//     a non_owned request of theirs waits with reason "garbo", and they
//     have no pair contexts (input that lends across a Garbo boundary is a
//     422).
//   - Notices. A notice changes no usage, so it updates no pair context;
//     the context moves when the container changes hands (at once with
//     grace period 0, else in the round at or after the deadline, or the
//     first round after the user released it). A container under notice
//     is neither free nor preemptable. A request served by a notice counts
//     that container as served.
//   - Context updates. Whenever a container changes user, the contexts of
//     the pair it leaves and the pair it joins are brought to now
//     (lastShare += lastSlope·(now − lastCalcTime), lastCalcTime = now) and
//     their slopes move by its charge rate; other pairs keep their context
//     (their extrapolation is unchanged). Input slopes are trusted: a
//     slope that disagrees with the containers' use is kept as given.
//   - Pending reasons. no_fit: no container the request type could ever
//     use fits size and fitness; locality: some fit, none on the rack or
//     host; bound_not_reached: fitting ones are in use by others but no
//     user is eligible; busy: fitting ones are held by the requester or
//     under notice; garbo; timeout (the budget ran out first).
//   - A request larger than every container of the cluster (some
//     dimension short of every container) is a 422, as the issue lists it.
package assign
