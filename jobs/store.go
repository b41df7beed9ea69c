package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The store type over the xflex_job table and its primitives: statements,
// transactions and advisory locks. The rest is by concern: storeschema.go,
// storerecord.go, storequery.go, storesubmit.go, storestate.go,
// storeretention.go (and storefile.go, storefault.go, storepicture.go).

var errNotFound = errors.New("job not found")

// store is the xflex_job table.
type store struct {
	db *sql.DB
	d  dialect
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

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
