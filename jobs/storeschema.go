package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/xflex/xflex/httpapi"
)

// The store's SQL dialects and schema: the tables, columns added since the
// first release and indexes, and the migration that creates or updates them.

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
// the store files never contain a literal question mark.
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
