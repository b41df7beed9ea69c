// Package simulate is the X-Schedule simulator
// (Wolf et al., "The X-Flex Cross-Platform Scheduler: Who's the Fairest of
// Them All?", Middleware 2014, §2.1 and §3): it drives the
// decision round of solver/xschedule/assign event by event over a trace
// of requests, records what each request got and when, each
// application's totals, every container event, each pair's sharing
// imbalance over time (the data of the paper's Figure 2, X-Sight's
// second view), the utilisation by application (its first view) and
// the final packing with owners and users (its third), and runs the same
// demand under baselines on the same nodes: online DRF as a global best
// fit (drf, also named drf_best_fit), and, when asked, YARN's Fair
// Scheduler (yarn_fair) and Capacity Scheduler (yarn_capacity) as node
// heartbeats with reservations (yarn.go), the schedulers the X-Flex
// paper measured as "DRF".
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
//   - Withdrawn notices. When an owner's reclaim replaces another
//     application's takeover notice on its container (assign's result
//     withdrawn), the request that notice promised the container to
//     wants it again, with its ask time kept; the user is told of the
//     owner's notice as of any (it already stopped starting tasks there).
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
//     The user is the ask's user, default its application. This is
//     stronger than YARN: every node is searched for the best fit every
//     round and nothing is reserved (drf_best_fit).
//   - YARN. yarn_fair and yarn_capacity serve one node per heartbeat
//     (settings heartbeat_interval, default 1, and heartbeat_order,
//     rotate or seeded jitter): Fair gives the user with the lowest
//     dominant share (ties by first ask, then name) its top-priority ask
//     on that node, Capacity the user that asked first; an ask that does
//     not fit reserves the node for its user, blocking it for everyone
//     else until it fits; one container per heartbeat for Fair unless
//     assign_multiple. yarn.go's doc lists what of YARN is modelled and
//     where in YARN's code it is.
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
//   - Budget. X-Schedule runs first with half the time left, then each
//     baseline with an equal part of the rest (DRF alone: all of it); a run stops while the time left still covers
//     writing what it recorded (5 µs an item), ends "budget" at the
//     time it reached, and the status is timeout.
//   - Bound 0. Under the literal readings (settings.readings, see
//     xschedule/assign) two applications with Δ = 0 and no grace period
//     can preempt each other as soon as either is in debt: with demand
//     on both sides they thrash (work is lost at every swap) until the
//     horizon or the budget. The default readings rule that out: a
//     takeover takes only a borrowed container, a bound-0 owner takes
//     its containers back on demand, and the hand-over hold keeps a
//     container from changing hands between the same two applications
//     again within hold_time unless their balance moves.
//
// # Application masters
//
// masters (master.go) make an application's demand from map-only jobs
// through solver/xschedule/master (its doc lists the policies' readings):
//
//   - Asks. Under X-Schedule a master asks, under the one request id
//     "APP#master", for the containers it wants (its AM, one per task
//     waiting or running) beyond those it holds and has asked (with
//     overflow_type: under "APP#master" up to the containers its
//     application owns, counting those held or asked under it, and under
//     "APP#borrow" with the overflow type for the rest); asks
//     cannot be withdrawn, so a container granted after the master
//     stopped wanting it is given back at once. A preempted task loses
//     its work and is asked for again at once. A master is told of a
//     notice (the loop calls an agent's notice when it has one): the
//     container takes no new task, its running task finishes if the
//     grace period allows, and it is given back once idle.
//   - DRF. Under DRF every job is its own DRF user "APP#JOB" with its own
//     AM (a one-job FIFO master), as YARN runs a MapReduce job. The AMs,
//     asked or held, may take at most settings.am_share of the cluster
//     (the sum of their dominant shares; default 0.5, YARN's
//     maxAMShare; one is always allowed): a job first asks for its AM
//     alone when the cap lets it, then for its tasks once the AM is
//     granted (so they are served from the next round on). The YARN
//     baselines run the jobs the same way, their AMs capped by am_share
//     (yarn_fair, maxAMShare 0.5) or capacity_am_share (yarn_capacity,
//     maximum-am-resource-percent 0.1).
//   - Latencies. am_latency delays a master's use of its AM container
//     (the AM starting before it asks for tasks), launch_latency that of
//     a task container, in every run (latency.go; default 0).
//   - Results. Each run lists masters: per application its jobs'
//     completion and response times, their mean and the makespan
//     (absent while a job is unfinished).
//   - Patience. A master's container requests that expire are asked
//     again at once (its tasks still need them; they count as expired
//     and asked again), after that time's round. Under DRF an expired AM
//     ask keeps its place under the AM cap until asked again. With a
//     patience below the scheduling interval every ask made between
//     rounds expires before the next one, a master's too.
package simulate
