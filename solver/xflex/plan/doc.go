// Package plan is the X-Flex plan (POST /v1/xflex/plan, `xflex solve
// xflex-plan`): the offline pipeline of the X-Flex paper (Wolf et al.,
// "The X-Flex Cross-Platform Scheduler: Who's the Fairest of Them All?",
// Middleware 2014, §2) run as one what-if, from the applications' demand forecasts to "how
// would X-Flex do against DRF on this cluster". Each stage is the
// service's own endpoint, called through a Runner exactly as its
// endpoint calls it, so the plan reports every stage's request and the
// answer that endpoint gives for it, byte for byte (meta.elapsed_ms
// aside): any stage can be re-run, inspected or edited alone. (A stage the
// budget cut short answers its best so far, which depends on the clock;
// re-run alone with its request's budget_ms, which is at least the time
// it had, it may answer better.)
//
// # The stages
//
//  1. X-Size (POST /v1/xsize). "The primary input to X-Size is a profile
//     of the various resource requests made by the applications using
//     the cluster, weighted by frequency. The number K of container
//     shapes allowed is also input … The output is a set of K different
//     container dimensions so that every request 'fits' into at least
//     one." The profile is the union of the applications' forecasts, in
//     application then forecast order, each weighted by its weight or,
//     without one, rate × duration (the number of such containers in use
//     at once, by Little's law: a request's share of the resources in use
//     is what its shape's cost should be weighed by, not how often it
//     arrives). Totals are the cluster's capacities (reserves included,
//     as X-Schedule's charges normalise by them; a resource no node has
//     gets 1). "Every container must fit within the dimensions of at
//     least one processing node": node_types are the nodes' capacities
//     less their reserves, the dominated ones dropped (a shape fitting a
//     dominated capacity fits the one dominating it), at most 64 (xsize's
//     limit; the largest in total are kept). ε defaults to 0.1, so that
//     X-Size stops when its guarantee is proven and its answer does not
//     depend on the clock.
//  2. The mix. "X-Select … input here is … the container sizes from
//     X-Size, and the forecasted mix of required containers and their
//     applications." Each forecast request goes to the cheapest shape
//     that covers it as X-Size's cost defines it (the sum, or with fit
//     max the largest, of the shape's coordinates over the totals; ties
//     by the lower shape index), the shape X-Size's own assignment gives
//     it. An application's expected concurrency on a shape is the sum of
//     its requests' there; its mix asks ⌈scale · concurrency⌉ containers
//     of the shape (scale, mix.scale, default 1; at least 1 for a shape
//     it uses, so every forecast request is covered by at least one
//     container; the ceiling less 1e-9, so that a sum of products that
//     rounds just above an integer does not add a container). The mix is
//     a ratio: X-Select packs λ times it, so λ ≥ 1 says the cluster holds
//     the forecast's mean concurrency.
//  3. X-Select (POST /v1/xselect). "The output is a valid vector packing
//     of containers (together with application owners) into processing
//     nodes which optimizes the overall number of containers that are
//     packed, while giving each application its share of containers."
//     The nodes are the cluster's (each node type's count expanded into
//     nodes TYPE-1 … TYPE-n, on its racks round-robin, then the explicit
//     nodes), the shapes X-Size's, named s1 … sK; each application's mix,
//     Garbo flag (mode garbo: "the containers assigned to it by X-Select
//     will only be used by that application") and placement predicate,
//     and the plan's colocation, exlocation, score and method. λ = 0 in an
//     answer that is not a timeout is an infeasible packing (422): some
//     application's mix cannot be placed at all; λ = 0 in a timeout
//     leaves nothing to simulate, and the plan ends there (timeout, cut
//     naming the simulation).
//  4. X-Schedule (POST /v1/xschedule/simulate). "X-Schedule uses the
//     container assignment configurations generated via periodic X-Size
//     and X-Select runs": the placement is X-Select's request and the
//     result of its answer, the applications' modes and sharing bounds
//     are the plan's, and the trace is replayed under X-Schedule and
//     under every baseline the simulator runs (result.baselines: online
//     DRF, and the YARN schedulers where the simulator offers them) on the
//     same nodes. The plan's baselines go to the simulation request's
//     baselines field when its wire type has one (set by field tag, so
//     the plan follows the simulator's list), and names it does not offer
//     (its request schema's list, else its answer's fields) are refused.
//     The summary reports every baseline the simulator ran.
//
// # The trace
//
// Given, it is the simulator's trace (its applications must be the
// plan's). Generated (trace.horizon), each application's arrivals are a
// Poisson process of rate R_a = Σ of its forecast rates over [0,
// horizon), drawn from its own stream (PCG(seed, salt + application
// index)); each arrival is one of its forecast requests drawn with
// probability rate / R_a (the superposition of one Poisson process per
// forecast request), asking for one container of that size held for
// that duration (the forecast gives a mean duration; the generator
// reads it as fixed). A forecast request given by weight alone asks
// nothing. Requests are named APP-k, merged by arrival, ties by
// application then draw; more than trace.max_requests (default and at
// most 100,000, the simulator's limit) is refused at /trace/horizon. The
// seed is trace.seed, else the request's seed.
//
// # The summary
//
// Successes are granted containers (the paper's "successful container
// requests"; a container granted again after a preemption counts again,
// as asked does); the ratio is X-Flex's successes over DRF's and its
// ceiling the requests asked over DRF's successes (the ratio cannot
// exceed it). Utilisation is the time-mean over [0, until] of the
// simulator's utilisation series summed over applications. Waste is
// X-Size's cost over the exact-fit cost (every forecast request in a
// container of exactly its size) less 1. Without patience
// (simulate.settings.patience) or a horizon every request is granted in
// the end and the ratio is 1: a planner comparing schedulers sets them.
//
// # Budget
//
// Each stage is guaranteed a share of the plan's budget B (X-Size 0.15,
// X-Select 0.3, the simulation 0.45; xsize.budget_share,
// xselect.budget_share and simulate.budget_share change them, scaled to
// sum to 0.9), and the last 10% writes the plan's answer. Stage i may run
// until the plan's start plus B·(0.9 − the shares of the stages after
// it), so what a stage leaves passes on to the next (X-Size usually stops
// at its ε target, X-Select when its λ bracket closes). That span is the
// stage request's budget_ms: it depends on B alone, so the same plan
// sends the same stage requests byte for byte, and re-running a stage
// alone with its request gives it at least the time it had in the plan.
// A stage answering timeout (its best answer so far) hands that answer
// on and makes the plan's status timeout, stages.cut naming it; a stage
// with no answer at all (its time spent first, or the job cancelled)
// ends the plan there with the stages that finished, status timeout,
// and cut naming it. The plan reserves the memory of the whole pipeline
// once (memory.go); its stages do not ask again.
//
// # Jobs
//
// As a job, the plan reports "stage i/3 NAME: PHASE" with the fraction
// of the pipeline done, relaying each stage's own reports, and offers as
// its partial answer the stages finished so far with the running stage's
// incumbent (stage status "running"). Cancelling the job cancels the
// stage running.
//
// # Errors
//
// Bad input is a 422 whose violations point into the plan's request and
// whose messages name the stage that refused it ("xsize: …", "xselect:
// …", "trace: …"): a forecast request that fits no node the application
// may use (xsize), an application whose predicate matches no node
// (xselect), a trace naming an unknown application (trace), forecasts no
// K shapes can cover (xsize, at /xsize/k), an infeasible packing
// (xselect). A stage's own refusal keeps its kind, with its pointer
// translated into the plan's request and kept in the message.
package plan
