package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
)

// A job's state transitions: claim, heartbeat, rescue, finish, requeue,
// corrupt marking and cancellation requests, each fenced by the worker's
// claim where it matters.

// claimTx marks a queued job as running, unless its tenant already has
// maxRunning other jobs running (0: no limit). A job that reads running is
// claimed only when its heartbeat is older than stale: its worker died
// (River rescued its job) and no live worker holds it. The claim starts
// the heartbeat and returns the attempt number, the fencing token every
// later write of this worker names; 0 means not claimed.
func (s *store) claimTx(ctx context.Context, tx *sql.Tx, r record, maxRunning int, now time.Time, stale time.Duration) (int, error) {
	if maxRunning > 0 {
		if err := s.lock(ctx, tx, lockTenantPrefix+r.Tenant); err != nil {
			return 0, err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM xflex_job
			WHERE tenant = ? AND kind = ? AND state = 'running' AND id <> ?`),
			r.Tenant, kindSolve, r.ID).Scan(&n); err != nil {
			return 0, err
		}
		if n >= maxRunning {
			return 0, nil
		}
	}
	prog, _ := json.Marshal(Progress{Phase: "solving", BudgetUsed: progress.F(0)})
	var attempt int
	err := tx.QueryRowContext(ctx, s.d.rebind(`UPDATE xflex_job
		SET state = 'running', started_at = ?, attempts = attempts + 1, progress = ?, heartbeat_at = `+s.d.nowMicros()+`
		WHERE id = ? AND (state = 'queued' OR (state = 'running' AND COALESCE(heartbeat_at, 0) < `+s.d.nowMicros()+` - ?))
		RETURNING attempts`), micros(now), string(prog), r.ID, stale.Microseconds()).Scan(&attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if r.ParentID != "" {
		_, err = tx.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job SET state = 'running', started_at = ?
			WHERE id = ? AND state = 'queued'`), micros(now), r.ParentID)
	}
	return attempt, err
}

// heartbeat stores a running job's progress and renews its heartbeat. It
// reports false when the job is no longer this worker's claim (attempt):
// it was rescued as dead (this worker stalled past the heartbeat timeout)
// and belongs to another attempt now.
func (s *store) heartbeat(ctx context.Context, id string, attempt int, p Progress) (bool, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return false, err
	}
	res, err := s.exec(ctx, `UPDATE xflex_job SET progress = ?, heartbeat_at = `+s.d.nowMicros()+`
		WHERE id = ? AND state = 'running' AND attempts = ?`, string(b), id, attempt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// rescueTx puts back in the queue the running solves whose heartbeat is
// older than stale, and returns them. The conditional UPDATE makes
// concurrent rescuers on several replicas safe: a row requeued or renewed
// since the SELECT is skipped.
func (s *store) rescueTx(ctx context.Context, tx *sql.Tx, stale time.Duration) ([]record, error) {
	cutoff := s.d.nowMicros() + ` - ?`
	rows, err := tx.QueryContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job
		WHERE state = 'running' AND kind = ? AND COALESCE(heartbeat_at, 0) < `+cutoff), kindSolve, stale.Microseconds())
	if err != nil {
		return nil, err
	}
	var stuck []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		stuck = append(stuck, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	prog, _ := json.Marshal(Progress{Phase: "requeued"})
	var out []record
	for _, r := range stuck {
		res, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job SET state = 'queued', progress = ?
			WHERE id = ? AND state = 'running' AND COALESCE(heartbeat_at, 0) < `+cutoff), string(prog), r.ID, stale.Microseconds())
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// finishTx moves a job to a terminal state with its result or error. It
// only changes a job that is not yet terminal and, when attempt is not 0,
// only the running claim of that attempt (see claimTx); it reports whether
// it did.
func (s *store) finishTx(ctx context.Context, tx *sql.Tx, id string, attempt int, st State, prog Progress,
	result []byte, perr *httpapi.ProblemDetails, now time.Time, expires *time.Time) (bool, error) {
	pb, err := json.Marshal(prog)
	if err != nil {
		return false, err
	}
	var errJSON, errSum any
	if perr != nil {
		b, err := json.Marshal(perr)
		if err != nil {
			return false, err
		}
		errJSON, errSum = string(b), digest(b)
	}
	var exp any
	if expires != nil {
		exp = micros(*expires)
	}
	var res, resSum any
	if result != nil {
		res, resSum = result, digest(result)
	}
	claim := `state IN ('queued', 'running')`
	args := []any{string(st), string(pb), res, resSum, errJSON, errSum, micros(now), exp, id}
	if attempt != 0 {
		claim = `state = 'running' AND attempts = ?`
		args = append(args, attempt)
	}
	r, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job
		SET state = ?, progress = ?, result = ?, result_sha256 = ?, error = ?, error_sha256 = ?, finished_at = ?, expires_at = ?,
			partial = NULL, partial_sha256 = NULL
		WHERE id = ? AND `+claim), args...)
	if err != nil {
		return false, fmt.Errorf("finish job %s: %w", id, err)
	}
	n, err := r.RowsAffected()
	return n > 0, err
}

// requeue puts a job this worker claimed (attempt) back to queued: the
// worker was stopped before it finished; River will run it again.
func (s *store) requeue(ctx context.Context, id string, attempt int) error {
	prog, _ := json.Marshal(Progress{Phase: "requeued"})
	_, err := s.exec(ctx, `UPDATE xflex_job SET state = 'queued', progress = ?
		WHERE id = ? AND state = 'running' AND attempts = ?`, string(prog), id, attempt)
	return err
}

// markCorrupt fails a job whose stored part failed its checksum, dropping
// the damaged result; q is the pool or the transaction in progress.
func (s *store) markCorrupt(ctx context.Context, q querier, id string, pd httpapi.ProblemDetails, now time.Time, expires *time.Time) error {
	b, err := json.Marshal(pd)
	if err != nil {
		return err
	}
	prog, _ := json.Marshal(Progress{Phase: "failed"})
	var exp any
	if expires != nil {
		exp = micros(*expires)
	}
	_, err = q.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job
		SET state = 'failed', result = NULL, result_sha256 = NULL, error = ?, error_sha256 = ?, progress = ?,
			finished_at = COALESCE(finished_at, ?), expires_at = COALESCE(expires_at, ?)
		WHERE id = ?`), string(b), digest(b), string(prog), micros(now), exp, id)
	return err
}

func (s *store) requestCancelTx(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job SET cancel_requested = 1 WHERE id = ?`), id)
	return err
}

func (s *store) cancelRequested(ctx context.Context, id string) (bool, error) {
	var c int
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT cancel_requested FROM xflex_job WHERE id = ?`), id).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		// The job is gone (retention removed it): nothing left to do.
		return true, nil
	}
	return c != 0, err
}
