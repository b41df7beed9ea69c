// Package master is an application master over map-only jobs, the AM of
// the X-Flex paper's experiments (Wolf et al., "The X-Flex Cross-Platform
// Scheduler: Who's the Fairest of Them All?", Middleware 2014, §3):
// it asks the cluster for containers and splits those it holds among its
// jobs under one of three policies, fifo, fair or flex, and records each
// job's response time and the makespan. It knows nothing of the cluster:
// a driver (the X-Schedule simulator, or Pool here, a fixed pool of
// containers) calls Wake, Step, Granted and Revoked with plain container
// ids and times.
//
// # Readings
//
// The paper describes its AM in a paragraph; where it is silent this
// package reads it so:
//
//   - Jobs. A job is Tasks independent map tasks of TaskDuration seconds,
//     one task per container, arriving at Arrival; the AM knows the task
//     duration (the paper's scout estimate, taken as exact).
//   - Demand. The master wants a container for every unfinished task of an
//     arrived job (waiting or running), plus its AM when Config.AM is set:
//     it asks for all the parallelism it could use and lets the cluster
//     decide. A container left idle (no task waits) is given back at the
//     next Step, at the same instant.
//   - Tasks are never preempted by their own master: a policy only decides
//     which job's waiting task starts when a container is free (a task
//     ends, or a container is granted). A revoked container's task loses
//     its work and waits again, to restart from its beginning.
//   - Notices. A container under a preemption notice (Notice) takes no
//     new task: its running task finishes if the grace period allows,
//     and the container goes back once idle (at once if it is idle). A
//     notice on the AM container changes nothing.
//   - Reuse. A container whose task ends runs the policy's next waiting
//     task at once (an X-Flex application keeps the containers it holds
//     busy); with Config.ReleaseEachTask it is given back instead and the
//     next task waits for a new grant, as YARN's MapReduce AM does, so a
//     cluster scheduler such as DRF re-divides the cluster at every task
//     end.
//   - fifo: the earliest-arrived job with a waiting task (ties in input
//     order), the Hadoop FIFO scheduler.
//   - fair: the job with a waiting task that runs the fewest tasks (ties to
//     the earlier arrival, then input order). Filling free containers one
//     at a time so is the max-min fair (water-filling) split of the
//     containers among the jobs, each capped by its tasks, up to the
//     tasks already running (which are not preempted).
//   - flex: every Config.Interval seconds (1 s by default) while it has an
//     active job, and at once when a job arrives to an idle master, the
//     master solves a Flex instance (solver/flex) over its active jobs:
//     slots = the task containers it holds (at least 1, so a master that
//     holds none still gets a priority list), a job's work = its waiting
//     tasks × duration + its running tasks' remaining time, max = its
//     unfinished tasks, min 0, arrival its own, the configured metric
//     (weighted_response_time with unit weights by default, i.e. average
//     response time; stretch and makespan are the other metrics that need
//     no deadline). Flex's local search and LP refinement are off (each
//     tick is one solve of up to a few dozen jobs; the RAP and
//     metric-specific orderings remain, Smith's rule among them), so a
//     tick is deterministic and takes well under a millisecond.
//   - How the MPS schedule becomes containers: only its first interval is
//     enforced (the paper: "generally only the first interval ... will
//     actually be enforced"), as a target per job. A free container runs a
//     task of the first job in Flex's priority list (its ordering) that
//     runs fewer tasks than its target; when every target is met, of the
//     first job in that list with a waiting task (work conserving: an
//     extra container Flex did not plan for is used, not idled). Jobs that
//     arrived since the last tick come after the list, by arrival.
//   - AM (Config.AM, the DRF baseline's job-level AM): the master's first
//     container while it has an unfinished arrived job is its AM; it
//     starts no task without one, and gives it back when no job is
//     active. The X-Flex applications' AMs live outside the containers
//     they ask for (the paper's 75 task containers plus 3 AMs).
//   - Makespan is the last completion time, on the driver's clock (jobs
//     of the paper's experiments arrive from time 0).
//
// # Pool
//
// Pool is a fixed set of identical containers with YARN's single-resource
// DRF and no preemption: a free container goes to the master holding the
// fewest containers among those that want more (ties to the lower index),
// lowest container id first; AMShare caps the containers held as AMs
// (YARN's maxAMShare, 0.5 by default in the Fair Scheduler): without a cap,
// as many job-level AMs as containers can hold the whole pool and wait
// forever for a task container, which Run reports as an error.
package master
