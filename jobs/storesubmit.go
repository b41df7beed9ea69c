package jobs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The writes of a submission: new job rows, their River ids, the usage the
// quotas measure, and Idempotency-Keys.

// newID returns a job id: the creation time in hex microseconds (so ids
// sort by creation) followed by 48 random bits.
func newID(now time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return strconv.FormatInt(now.UnixMicro(), 16) + hex.EncodeToString(b[:])
}

// newRow is a row to insert.
type newRow struct {
	ID, ParentID, Variant string
	Seq                   int
	Client, Tenant        string
	Problem, Kind         string
	Input                 []byte
	CreatedAt             time.Time
}

func (s *store) insertTx(ctx context.Context, tx *sql.Tx, r newRow) error {
	prog, _ := json.Marshal(Progress{Phase: "queued"})
	var parent, variant any
	if r.ParentID != "" {
		parent, variant = r.ParentID, r.Variant
	}
	_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO xflex_job
		(id, parent_id, variant, seq, client, tenant, problem, kind, state, input, input_sha256, progress, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.ID, parent, variant, r.Seq, r.Client, r.Tenant, r.Problem, r.Kind, string(StateQueued), r.Input, digest(r.Input),
		string(prog), micros(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert job %s: %w", r.ID, err)
	}
	return nil
}

func (s *store) setRiverIDTx(ctx context.Context, tx *sql.Tx, id string, riverID int64) error {
	_, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE xflex_job SET river_id = ? WHERE id = ?`), riverID, id)
	return err
}

// usage is what the submission quotas measure, the submission in
// progress included.
type usage struct {
	TenantJobs  int64 // the tenant's top-level jobs queued or running
	TenantBytes int64 // the tenant's stored inputs and results
	GlobalJobs  int64 // every tenant's top-level jobs queued or running
}

// usageTx measures a tenant's usage and the global queue inside the
// submitting transaction (see lockSubmit).
func (s *store) usageTx(ctx context.Context, tx *sql.Tx, tenant string) (usage, error) {
	var u usage
	err := tx.QueryRowContext(ctx, s.d.rebind(`SELECT
			CAST(COALESCE(SUM(CASE WHEN parent_id IS NULL AND state IN ('queued', 'running') THEN 1 ELSE 0 END), 0) AS BIGINT),
			CAST(COALESCE(SUM(LENGTH(input) + COALESCE(LENGTH(result), 0)), 0) AS BIGINT)
		FROM xflex_job WHERE tenant = ?`), tenant).Scan(&u.TenantJobs, &u.TenantBytes)
	if err == nil {
		err = s.addPictureBytes(ctx, tx, tenant, &u.TenantBytes)
	}
	if err != nil {
		return u, fmt.Errorf("tenant usage: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM xflex_job
		WHERE parent_id IS NULL AND state IN ('queued', 'running')`).Scan(&u.GlobalJobs)
	if err != nil {
		return u, fmt.Errorf("queue length: %w", err)
	}
	return u, nil
}

// idemKey is a stored Idempotency-Key.
type idemKey struct {
	BodyHash  string
	JobID     string
	CreatedAt time.Time
}

// keyOf reads a tenant's key; found is false when there is none.
func (s *store) keyOf(ctx context.Context, q querier, tenant, key string) (k idemKey, found bool, err error) {
	var created int64
	err = q.QueryRowContext(ctx, s.d.rebind(`SELECT body_sha256, job_id, created_at FROM xflex_idempotency
		WHERE tenant = ? AND idem_key = ?`), tenant, key).Scan(&k.BodyHash, &k.JobID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read idempotency key: %w", err)
	}
	k.CreatedAt = fromMicros(created)
	return k, true, nil
}

// dropKeyTx removes a tenant's key older than before (outside the window:
// the key may name a new job).
func (s *store) dropKeyTx(ctx context.Context, tx *sql.Tx, tenant, key string, before time.Time) error {
	_, err := tx.ExecContext(ctx, s.d.rebind(`DELETE FROM xflex_idempotency
		WHERE tenant = ? AND idem_key = ? AND created_at < ?`), tenant, key, micros(before))
	return err
}

// insertKeyTx stores a tenant's key for the job the transaction creates.
// It reports false when another submission holds the key: on PostgreSQL
// the insert waits for a concurrent transaction holding it and yields to
// it if that one commits, so exactly one job gets the key.
func (s *store) insertKeyTx(ctx context.Context, tx *sql.Tx, tenant, key string, k idemKey) (bool, error) {
	res, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO xflex_idempotency
		(tenant, idem_key, body_sha256, job_id, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant, idem_key) DO NOTHING`), tenant, key, k.BodyHash, k.JobID, micros(k.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("store idempotency key: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
