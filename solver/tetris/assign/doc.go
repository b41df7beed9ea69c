// Package assign is POST /v1/tetris/assign: one Tetris scheduling round
// (Grandl et al., "Multi-Resource Packing for Cluster Schedulers", SIGCOMM
// 2014), as a resource manager would run it at a heartbeat. The caller sends machines
// with their total and free resources, the pending tasks (peak demands, job,
// stage, input locations), per-job state (remaining work, current
// allocation, stage progress) and the knobs; the answer is the task-to-
// machine assignments with each one's alignment score, and for every task
// left pending the resource that kept it out and where.
//
// The algorithm is solver/tetris.Round; this package decodes, validates,
// groups interchangeable tasks (same job, stage, demand and input rates) so
// a round costs O(groups) per pick rather than O(tasks), and formats.
package assign
