// Package simulate is the X-Schedule simulator
// (xflex-cross-platform-scheduler.txt, §2.1 and §3): it drives the
// decision round of solver/xschedule/assign event by event over a trace
// of requests, records what each request got and when, each
// application's totals, every container event, each pair's sharing
// imbalance over time (the data of the paper's Figure 2, X-Sight's
// second view), the utilisation by application (its first view) and
// the final packing with owners and users (its third), and runs the same
// demand under online DRF on the same nodes as the baseline.
//
// # The loop
//
// Demand comes from agents (agent.go): the request trace, and
// application masters; Instance.agents lists a run's agents (each run
// makes its own), and the loop knows them only through the agent
// interface. Time moves from event to event. At one time the
// agents step in order (each gives back the containers whose work is
// done, then makes its new asks), asks that waited longer than the
// patience expire, then a decision round runs if the time is a multiple
// of the scheduling interval and a request is pending or a notice is
// outstanding. A round's output is applied in its order: its grants
// (a container taken from a user at once or at the end of its notice is
// preempted first), then its notices.
//
// # Readings
//
// Where the paper is silent or loose, this package reads it so:
//
//   - Start. Every container starts free and every pair context at
//     zero ("all three values are initially set to zero"), at time 0.
//   - Rounds. YARN allocates on heartbeats; we run the decision round at
//     the multiples of scheduling_interval (default 1) while something
//     is pending. A round is skipped when nothing changed since the last
//     one and nothing is in use (it would decide the same). A notice's
//     container changes hands in the first round at or after its
//     deadline, so the kill waits for the round (at most one interval
//     after the grace period).
//   - Durations. A granted container is held for the request's duration
//     from its grant, then released. A container whose user releases it
//     while under notice completes its work (nothing is lost) and goes
//     to the notifier in the next round.
//   - Preemption. A preempted container's work is lost: the request
//     asks again for one container at the time of the preemption, and
//     that container waits anew (its wait counts from then) and runs its
//     whole duration again when granted.
//   - Patience. With settings.patience, a container asked and not
//     granted within patience of its ask is dropped (expired); a
//     container under notice for the request is not dropped.
//   - Ties. Events at one time: agents in order (the trace first), each
//     releasing in grant order then asking in arrival order (ties in
//     trace order); then the round. The round orders requests by
//     priority, ties in queue order (first ask first), as assign does.
//   - DRF. Online DRF has no containers made in advance and no owners:
//     each round, the user with the lowest dominant share (ties by first
//     ask) whose asks fit somewhere gets one container of exactly its
//     ask's size (highest priority ask first, ties in queue order) on
//     the best-fit node (least normalised free capacity left, ties by
//     node order); request types are ignored and nothing is preempted.
//     The user is the ask's user, default its application.
//   - Totals. Container-seconds count containers, not their size: own
//     (in the user's own containers), borrowed (in others'), lent (its
//     containers in others' use); under DRF all use is "used".
//     Utilisation counts the containers' sizes: the mean over resources
//     of the fraction of the cluster in the containers an application
//     uses.
//   - Bounds on the answer. Events beyond limits.max_events are counted
//     (events_dropped), not listed; a series (utilisation, each pair)
//     keeps a point per change up to limits.max_points and then stops
//     with truncated set. Points at one time collapse into the last.
//   - Budget. X-Schedule runs first with half the time left, then DRF
//     with the rest; a run stops while the time left still covers
//     writing what it recorded (5 µs an item), ends "budget" at the
//     time it reached, and the status is timeout.
//   - Bound 0. Two applications with Δ = 0 and no grace period can
//     preempt each other as soon as either is in debt: with demand on
//     both sides they thrash (work is lost at every swap) until the
//     horizon or the budget. That is the paper's rule applied
//     literally; a positive bound is the hysteresis that prevents it.
package simulate
