package jobs

import (
	"context"
	"database/sql"
	"time"
)

// Retention: when a tenant's next finished job expires, and the removal of
// expired jobs and idempotency keys.

// nextExpiry is when the tenant's first finished job is due to be removed
// (and its bytes freed), nil when none is.
func (s *store) nextExpiry(ctx context.Context, tenant string) (*time.Time, error) {
	var us sql.NullInt64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT MIN(expires_at) FROM xflex_job
		WHERE tenant = ? AND parent_id IS NULL AND expires_at IS NOT NULL`), tenant).Scan(&us)
	return nullTime(us), err
}

// deleteExpired removes terminal jobs whose retention ran out, children
// with their parent (and their idempotency keys, by the foreign key), and
// the keys older than idempotencyWindow. It returns how many top-level
// jobs it removed.
func (s *store) deleteExpired(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM xflex_job WHERE parent_id IN
			(SELECT id FROM xflex_job WHERE parent_id IS NULL AND expires_at IS NOT NULL AND expires_at < ?)`),
			micros(now)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM xflex_job
			WHERE parent_id IS NULL AND expires_at IS NOT NULL AND expires_at < ?`), micros(now))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.d.rebind(`DELETE FROM xflex_idempotency WHERE created_at < ?`),
			micros(now.Add(-idempotencyWindow)))
		return err
	})
	return n, err
}
