package jobs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
)

// State is a job's lifecycle state, as reported by the API.
type State string

const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StateSucceeded State = "succeeded"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Terminal reports whether a job in state s will never change again.
func (s State) Terminal() bool {
	return s == StateSucceeded || s == StateFailed || s == StateCancelled
}

func validState(s string) bool {
	switch State(s) {
	case StateQueued, StateRunning, StateSucceeded, StateFailed, StateCancelled:
		return true
	}
	return false
}

// Kinds of job rows.
const (
	kindSolve    = "solve"    // one solve, a River job
	kindScenario = "scenario" // a base plus variants; its children are the solves
)

// dialect is the SQL flavour of the store. Queries are written with ?
// placeholders and rebound to $n for PostgreSQL.
type dialect int

const (
	dialectSQLite dialect = iota
	dialectPostgres
)

func (d dialect) String() string {
	if d == dialectPostgres {
		return "postgres"
	}
	return "sqlite"
}

// rebind turns ? placeholders into $1, $2, ... for PostgreSQL. Queries in
// this file never contain a literal question mark.
func (d dialect) rebind(q string) string {
	if d != dialectPostgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (d dialect) blob() string {
	if d == dialectPostgres {
		return "BYTEA"
	}
	return "BLOB"
}

// nowMicros is the database's clock in Unix microseconds. Heartbeats are
// written and judged by it, so replicas on hosts with skewed clocks agree
// on whose heartbeat is stale.
func (d dialect) nowMicros() string {
	if d == dialectPostgres {
		return `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)`
	}
	return `CAST(unixepoch('subsec') * 1000000 AS INTEGER)`
}

// createTable is xflex_job as first released; columns added since are in
// addedColumns, which every store (new or old) gets through the same
// ALTER TABLE path.
func (d dialect) createTable() string {
	blob := d.blob()
	return `CREATE TABLE IF NOT EXISTS xflex_job (
			id TEXT PRIMARY KEY,
			parent_id TEXT,
			variant TEXT,
			seq INTEGER NOT NULL DEFAULT 0,
			client TEXT NOT NULL,
			problem TEXT NOT NULL,
			kind TEXT NOT NULL,
			state TEXT NOT NULL,
			input ` + blob + ` NOT NULL,
			progress TEXT NOT NULL,
			result ` + blob + `,
			error TEXT,
			cancel_requested INTEGER NOT NULL DEFAULT 0,
			attempts INTEGER NOT NULL DEFAULT 0,
			created_at BIGINT NOT NULL,
			started_at BIGINT,
			finished_at BIGINT,
			expires_at BIGINT,
			river_id BIGINT
		)`
}

// addedColumns are the columns added after the first release, in order.
func (d dialect) addedColumns() [][2]string {
	return [][2]string{
		// heartbeat_at (database clock, see nowMicros) is refreshed by the
		// worker running the job; a stale one means the worker died.
		{"heartbeat_at", "BIGINT"},
		// SHA-256 of input, result and error (see integrity.go).
		{"input_sha256", d.blob()},
		{"result_sha256", d.blob()},
		{"error_sha256", d.blob()},
		// tenant owns the job (issue 16): only it (and admin) sees it, and
		// quotas count per tenant. Jobs stored before tenants existed, or
		// written by an older replica during an upgrade, are local's.
		{"tenant", "TEXT NOT NULL DEFAULT '" + httpapi.LocalTenant + "'"},
		// partial is a running solve's best answer so far (partial.go),
		// with its checksum; cleared when the job finishes.
		{"partial", d.blob()},
		{"partial_sha256", d.blob()},
	}
}

// createKeysTable holds the Idempotency-Key of submissions: per tenant,
// the canonical hash of the body and the job it created. A key goes with
// its job (retention) or after idempotencyWindow, whichever is first.
func (d dialect) createKeysTable() string {
	return `CREATE TABLE IF NOT EXISTS xflex_idempotency (
			tenant TEXT NOT NULL,
			idem_key TEXT NOT NULL,
			body_sha256 TEXT NOT NULL,
			job_id TEXT NOT NULL REFERENCES xflex_job (id) ON DELETE CASCADE,
			created_at BIGINT NOT NULL,
			PRIMARY KEY (tenant, idem_key)
		)`
}

func (d dialect) indexes() []string {
	return []string{
		`CREATE INDEX IF NOT EXISTS xflex_job_list ON xflex_job (created_at, id)`,
		`CREATE INDEX IF NOT EXISTS xflex_job_client_state ON xflex_job (client, state)`,
		`CREATE INDEX IF NOT EXISTS xflex_job_parent ON xflex_job (parent_id)`,
		`CREATE INDEX IF NOT EXISTS xflex_job_expires ON xflex_job (expires_at)`,
		`CREATE INDEX IF NOT EXISTS xflex_job_heartbeat ON xflex_job (state, heartbeat_at)`,
		`CREATE INDEX IF NOT EXISTS xflex_job_tenant_state ON xflex_job (tenant, state)`,
		`CREATE INDEX IF NOT EXISTS xflex_idempotency_job ON xflex_idempotency (job_id)`,
		`CREATE INDEX IF NOT EXISTS xflex_idempotency_created ON xflex_idempotency (created_at)`,
	}
}

// record is one row of xflex_job without its input and result blobs.
type record struct {
	ID              string
	ParentID        string
	Variant         string
	Seq             int
	Client          string
	Tenant          string
	Problem         string
	Kind            string
	State           State
	Progress        Progress
	Error           *httpapi.ProblemDetails
	CancelRequested bool
	Attempts        int
	CreatedAt       time.Time
	StartedAt       *time.Time
	FinishedAt      *time.Time
	ExpiresAt       *time.Time
	RiverID         int64
	HasResult       bool
	// Corrupt names the part whose stored bytes failed their checksum
	// (partError here; Error is then nil) or, for partRow, that the state
	// or progress is not one the service writes; "" when all is well.
	Corrupt string
}

const recordCols = `id, parent_id, variant, seq, client, problem, kind, state, progress, error,
	cancel_requested, attempts, created_at, started_at, finished_at, expires_at, river_id,
	(CASE WHEN result IS NULL AND result_sha256 IS NULL THEN 0 ELSE 1 END), error_sha256, tenant`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(s scanner) (record, error) {
	var (
		r                                   record
		parent, variant                     sql.NullString
		progressJSON, state                 string
		errJSON, errSum                     []byte
		started, finished, expires, riverID sql.NullInt64
		cancel, hasResult                   int
		created                             int64
	)
	if err := s.Scan(&r.ID, &parent, &variant, &r.Seq, &r.Client, &r.Problem, &r.Kind, &state,
		&progressJSON, &errJSON, &cancel, &r.Attempts, &created, &started, &finished, &expires,
		&riverID, &hasResult, &errSum, &r.Tenant); err != nil {
		return r, err
	}
	r.ParentID, r.Variant, r.State = parent.String, variant.String, State(state)
	r.CancelRequested, r.HasResult = cancel != 0, hasResult != 0
	r.CreatedAt = fromMicros(created)
	r.StartedAt, r.FinishedAt, r.ExpiresAt = nullTime(started), nullTime(finished), nullTime(expires)
	r.RiverID = riverID.Int64
	if !validState(state) || json.Unmarshal([]byte(progressJSON), &r.Progress) != nil {
		r.State, r.Progress, r.Corrupt = StateFailed, Progress{Phase: "failed"}, partRow
	}
	if errJSON != nil || errSum != nil {
		r.Error = new(httpapi.ProblemDetails)
		if !intact(errJSON, errSum) || json.Unmarshal(errJSON, r.Error) != nil {
			r.Error, r.Corrupt = nil, partError
		}
	}
	return r, nil
}

// Times are stored as Unix microseconds (BIGINT) so both stores compare and
// order them the same way.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

var errNotFound = errors.New("job not found")

// store is the xflex_job table.
type store struct {
	db *sql.DB
	d  dialect
}

// migrate creates xflex_job or brings an older one up to date, in one
// transaction (on PostgreSQL the caller also holds the migration lock).
func (s *store) migrate(ctx context.Context) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if s.d == dialectSQLite {
			// Mark the file as ours first (see checkSQLiteOwner).
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, xflexApplicationID)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.createTable()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.createKeysTable()); err != nil {
			return err
		}
		for _, q := range []string{s.d.createPicturesTable(), s.d.createProbeTable()} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		have, err := s.columns(ctx, tx)
		if err != nil {
			return err
		}
		for _, c := range s.d.addedColumns() {
			if have[c[0]] {
				continue
			}
			if _, err := tx.ExecContext(ctx, `ALTER TABLE xflex_job ADD COLUMN `+c[0]+` `+c[1]); err != nil {
				return err
			}
		}
		for _, q := range s.d.indexes() {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("create xflex_job: %w", err)
	}
	return nil
}

// columns lists xflex_job's columns.
func (s *store) columns(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	q := `SELECT name FROM pragma_table_info('xflex_job')`
	if s.d == dialectPostgres {
		q = `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'xflex_job'`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		have[name] = true
	}
	return have, rows.Err()
}

func (s *store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.d.rebind(q), args...)
}

// withTx runs fn in a transaction, committing when it returns nil. On
// SQLite the transaction is BEGIN IMMEDIATE (see openStore), so a
// read-then-write inside fn cannot interleave with another writer.
func (s *store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Advisory lock names (see lock).
const (
	// lockSubmit serialises the quota checks of every submission: the
	// global queue limit needs all of them in one order, and the tenant
	// limits then hold too.
	lockSubmit = "xflex-submit"
	// lockTenantPrefix + tenant serialises the claims of one tenant's
	// solves (its running limit).
	lockTenantPrefix = "xflex-tenant:"
	// lockScenarioPrefix + id serialises the finalisation of a scenario.
	lockScenarioPrefix = "xflex-scenario:"
)

// lock serialises, across replicas sharing a PostgreSQL store, the
// transactions that take the lock name, until each ends (an advisory
// transaction lock). On SQLite the immediate transaction already holds
// the write lock, so this is a no-op there.
func (s *store) lock(ctx context.Context, tx *sql.Tx, name string) error {
	if s.d != dialectPostgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, name)
	return err
}

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

// nextExpiry is when the tenant's first finished job is due to be removed
// (and its bytes freed), nil when none is.
func (s *store) nextExpiry(ctx context.Context, tenant string) (*time.Time, error) {
	var us sql.NullInt64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT MIN(expires_at) FROM xflex_job
		WHERE tenant = ? AND parent_id IS NULL AND expires_at IS NOT NULL`), tenant).Scan(&us)
	return nullTime(us), err
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

func (s *store) get(ctx context.Context, id string) (record, error) {
	row := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job WHERE id = ?`), id)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

func (s *store) getTx(ctx context.Context, tx *sql.Tx, id string) (record, error) {
	row := tx.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job WHERE id = ?`), id)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

// variant finds a scenario child by its parent and variant name.
func (s *store) variant(ctx context.Context, parentID, name string) (record, error) {
	row := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job
		WHERE parent_id = ? AND variant = ?`), parentID, name)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

// errCorrupt is returned for stored bytes that fail their checksum.
var errCorrupt = errors.New("stored bytes fail their checksum")

// input returns a job's input, errCorrupt when it fails its checksum.
func (s *store) input(ctx context.Context, q querier, id string) ([]byte, error) {
	return s.checked(ctx, q, id, "input")
}

// result returns a job's result, errCorrupt when it fails its checksum.
func (s *store) result(ctx context.Context, id string) ([]byte, error) {
	return s.checked(ctx, s.db, id, "result")
}

// checked reads column col (input or result) and verifies it against
// col_sha256.
func (s *store) checked(ctx context.Context, q querier, id, col string) ([]byte, error) {
	var b, sum []byte
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT `+col+`, `+col+`_sha256 FROM xflex_job WHERE id = ?`), id).Scan(&b, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	if !intact(b, sum) {
		return nil, errCorrupt
	}
	return b, nil
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// childrenTx lists a scenario's children in variant order, with their
// results when withResults is set (a result that fails its checksum is
// left out and its record's Corrupt set). q is the transaction in
// progress, or the pool for a plain read.
func (s *store) childrenTx(ctx context.Context, q querier, parentID string, withResults bool) ([]record, [][]byte, error) {
	res := "NULL, NULL"
	if withResults {
		res = "result, result_sha256"
	}
	rows, err := q.QueryContext(ctx, s.d.rebind(`SELECT `+recordCols+`, `+res+` FROM xflex_job
		WHERE parent_id = ? ORDER BY seq`), parentID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var recs []record
	var results [][]byte
	for rows.Next() {
		var res, sum []byte
		r, err := scanRecord(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &res, &sum)...) }))
		if err != nil {
			return nil, nil, err
		}
		if withResults && r.HasResult && !intact(res, sum) {
			r.Corrupt, res = partResult, nil
		}
		recs = append(recs, r)
		results = append(results, res)
	}
	return recs, results, rows.Err()
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

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

// listFilter selects top-level jobs for GET /v1/jobs.
type listFilter struct {
	States        []State
	Problem       string
	Client        string
	Tenant        string
	Kind          string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	Limit         int
	// Cursor continues a previous page: jobs strictly older than it in
	// (created_at, id) order.
	Cursor *cursor
}

type cursor struct {
	CreatedAt int64
	ID        string
}

func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt, 10) + ":" + c.ID))
}

func decodeCursor(s string) (*cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("malformed cursor")
	}
	ts, id, ok := strings.Cut(string(b), ":")
	us, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || id == "" {
		return nil, errors.New("malformed cursor")
	}
	return &cursor{CreatedAt: us, ID: id}, nil
}

// list returns one page, newest first, and the cursor of the next page
// ("" on the last page).
func (s *store) list(ctx context.Context, f listFilter) ([]record, string, error) {
	where := []string{"parent_id IS NULL"}
	var args []any
	if len(f.States) > 0 {
		ph := make([]string, len(f.States))
		for i, st := range f.States {
			ph[i] = "?"
			args = append(args, string(st))
		}
		where = append(where, "state IN ("+strings.Join(ph, ", ")+")")
	}
	for _, c := range []struct{ col, val string }{{"problem", f.Problem}, {"client", f.Client}, {"tenant", f.Tenant}, {"kind", f.Kind}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if f.CreatedAfter != nil {
		where = append(where, "created_at >= ?")
		args = append(args, micros(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		where = append(where, "created_at < ?")
		args = append(args, micros(*f.CreatedBefore))
	}
	if f.Cursor != nil {
		where = append(where, "(created_at < ? OR (created_at = ? AND id < ?))")
		args = append(args, f.Cursor.CreatedAt, f.Cursor.CreatedAt, f.Cursor.ID)
	}
	args = append(args, f.Limit+1)
	q := `SELECT ` + recordCols + ` FROM xflex_job WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > f.Limit {
		out = out[:f.Limit]
		last := out[len(out)-1]
		next = cursor{CreatedAt: micros(last.CreatedAt), ID: last.ID}.encode()
	}
	return out, next, nil
}
