// Package jobs runs xflex solves asynchronously: POST /v1/jobs queues a solve
// (or a what-if scenario: a base input plus named JSON Merge Patch variants),
// workers run it through the same solver.Runner as the synchronous endpoint,
// and GET /v1/jobs/{id}[/result] reports state, progress and the result.
//
// Storage and queueing. Every job is a row in the xflex_job table, which
// holds what the API reports (state, progress, timestamps, input, result),
// and one River job (github.com/riverqueue/river) per solve, which holds the
// queueing state: River does the locking, leader election, retries and the
// rescue of jobs whose process died, so several replicas share one queue
// without hand-written locking. Both live in one database: an embedded SQLite
// file by default (modernc.org/sqlite, pure Go, through River's riversqlite
// driver) or PostgreSQL given a postgres:// URL (pgx through database/sql and
// River's riverdatabasesql driver, so both stores share one code path). A
// submission inserts its rows and River jobs in one transaction: nothing
// acknowledged with 202 can be lost.
//
// Crash recovery. The worker running a solve renews the row's heartbeat
// every 250 ms; every replica requeues, under a new River job, the running
// solves whose heartbeat is older than the heartbeat timeout (10 s), so a
// job whose process died is solved again from its stored input about 12 s
// later, whatever the budget cap. Every write of a worker names its claim
// (the attempt number), so a stalled live worker whose job was rescued
// drops its attempt instead of writing. River's own rescuer (after the
// runner's maximum budget plus a grace period) stays as the backstop for a
// River job whose process died before claiming its row.
//
// Tenants. Every job belongs to the tenant of the request that submitted
// it (httpapi.PrincipalOf; local without auth); only that tenant, or a
// principal with the admin scope, sees it. Quotas (a tenant's jobs and
// stored bytes, and every tenant's queued jobs) are checked inside the
// submitting transaction under one lock, so they hold across replicas; an
// Idempotency-Key is stored in that transaction too, so a retried
// submission returns the job it created, after a restart or on another
// replica.
//
// Integrity. Inputs, results and error documents are stored with their
// SHA-256 and checked on every read; a job whose bytes fail the check is
// marked failed (corrupt_store) instead of being solved or served.
//
// Scenarios. A scenario job has one child solve per variant (the base is
// the first variant), each its own River job, so variants run in parallel and
// each is bounded by one solve budget. The last child to finish builds the
// side-by-side comparison table (see Comparison).
//
// Progress. Solvers may call progress.Report(ctx, progress.Progress{...})
// (package internal/progress) from inside Solve; the worker stores the
// latest report (throttled) so GET /v1/jobs/{id} shows the phase, fraction,
// best objective and bound so far. Without reports, progress shows the phase
// and the fraction of the budget used.
package jobs
