// Package tetris is the scheduling core of Tetris (Grandl et al., "Multi-
// Resource Packing for Cluster Schedulers", SIGCOMM 2014), shared by the two
// problems built on it: solver/tetris/assign (one heartbeat round, as a
// resource manager would call it) and solver/tetris/simulate (a trace-driven
// what-if simulator).
//
// One round (Round) visits machines in a given order and fills each one
// (§3.2: "this process is repeated until the machine cannot accommodate any
// further tasks"). Each pick on machine m:
//
//  1. Feasibility: a pending task is a candidate only if its placement-
//     adjusted peak demand fits m's free resources and, when it reads input
//     remotely, the disk-read and network-out bandwidth it needs is free at
//     every machine holding that input (§3.2 "Incorporating task
//     placement"). Over-allocation of the checked resources is impossible.
//  2. Ranking: score = a·(1−penalty if remote) − ε·p, where a is the
//     alignment (vecpack.Alignment: the dot product of demand and free
//     capacity, both normalised by m's capacity) and p is the job's
//     remaining work (§3.3.1). The paper writes a + ε·p but states that jobs
//     with less remaining work go first; the sign here implements the stated
//     intent (a larger p lowers the score).
//  3. Fairness (§3.4): jobs holding a candidate are ordered by weighted
//     dominant share, least first; only the first ⌈(1−f)·|J|⌉ of them may
//     receive m, |J| being the number of jobs with pending tasks. f = 0 is
//     pure packing; f → 1 leaves only the job furthest below its share.
//  4. Barrier hint (§3.5): among the eligible jobs, tasks of stages whose
//     finished fraction reached b are preferred over all others.
//
// Ties are broken by group index, then member index (the caller's order),
// so a round is deterministic.
//
// Besides the round (engine.go and the round_*.go files, one a step of a
// pick, see round.go), its explanations (explain.go) and the scores
// (score.go), the package holds what both problems decode the same
// way (request.go: machines, resources, roles, knobs). The paper's workload
// and the generators' parameters are in solver/tetris/workload.
package tetris
