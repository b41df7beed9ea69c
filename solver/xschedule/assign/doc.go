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
//     u uses a container of a third application's (see the takeover
//     reading below). With Δ_ur = 0 an owner's reclaim needs no debt
//     (reading zero_bound below).
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
//
// # Readings that keep the guarantees
//
// Four sentences of §2.1 admit a reading that protects owners and one
// that, applied literally, lets sharing livelock or take an owner's
// share. settings.readings names each (Readings); the defaults are the
// protective readings, the literal ones (ReadingsLiteral) are kept so
// they can be simulated and compared.
//
//   - takeover: "borrowed_only" (default) | "owned_too". The second kind
//     of preemption examines "containers owned by other applications"
//     in use. Read literally (owned_too) that includes a container its
//     owner is using: an application that has borrowed (and so is in
//     debt, at once with bound 0) loses its own containers to its
//     creditors, which contradicts the paper's use of OwnedOnly for
//     "mission critical work" by applications with "small or zero
//     sharing bounds" and its premise that owners are protected by
//     their bounds ("If application A is in debt to application B by
//     ∆AB or more, application B will be allowed to preempt it": B
//     takes back what A borrowed). borrowed_only takes over only a
//     container its user borrowed from a third application, so a
//     container leaves its owner only while the owner leaves it free.
//   - zero_bound: "on_demand" (default) | "in_debt". "Applications with
//     sharing bounds of 0 can borrow containers at times. They simply
//     have to give the containers back on demand." on_demand reads it
//     as said: with Δ_ur = 0 the owner r takes its container back from
//     u whenever it asks (a reclaim), whatever the pair's balance;
//     in_debt applies the general rule (u's debt positive and ≥ 0), so
//     an owner that has itself borrowed from u waits until u is in debt.
//     Takeovers with Δ = 0 still need a positive debt.
//   - hold: "pair" (default) | "none". The paper does not say whether a
//     container taken back can be taken again before its pair's context
//     has moved. With hold pair, a container preempted from x to y is
//     not preempted between x and y again (either way) before it is
//     next free unless settings.hold_time (default 60) has passed or
//     x's debt to y has moved by at least the container's charge rate
//     times hold_time since the hand-over. A hand-over is a preemption
//     (a container taken from its user); a container freed by its user
//     starts afresh (its user finished its work, which is progress, not
//     a livelock). So a container fought over changes hands between the
//     same two applications at most once per hold_time unless their
//     balance moves by what the container itself would charge in that
//     time. Under borrowed_only the hold never delays an owner's reclaim
//     (a container reaches its owner's debtor again only through being
//     free); it bounds takeover ping-pong between two borrowers of a
//     third application's container, whose pair context the takeover
//     itself does not move.
//   - lending: "owner_first" (default) | "priority". Requests are served
//     by priority, so a borrower ahead of the owner could take the
//     owner's free container only for the owner to reclaim it in the
//     next round (with a kill). owner_first lends no free container of a
//     class (owner and size) while a request of its owner that fits the
//     class, with a free container of the class on its host or rack, is
//     still to be served in the round (the paper: OwnedFirst tries the
//     requester's own containers first, and applications lend idle
//     containers); nor takes over a borrowed container of such a class
//     (the owner is about to take it back); and the owner's reclaim
//     takes its container even when it is under another application's
//     takeover notice, withdrawing that notice (result withdrawn) and
//     keeping its deadline. priority serves in request order only: a
//     borrower ahead of the owner takes first, and a container under
//     notice waits for it. A borrower kept waiting shows reason busy.
//
// Together: an owner asking owned_only with bound 0 gets each of its own
// containers within grace_period plus one round of asking (a free one at
// once, one in a borrower's use by a reclaim whose notice expires after
// the grace period, or sooner when it replaces a takeover's notice); and
// a container never changes hands between the same two
// applications twice within hold_time without their pair context moving
// by its charge rate times hold_time. The simulator's property tests
// (solver/xschedule/simulate, props_sharing_test.go) check both over
// random traces and show both fail under the literal readings.
package assign
