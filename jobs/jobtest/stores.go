package jobtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// PostgresURLEnv names the PostgreSQL server job-store tests may use (see
// scripts/postgres-test.sh); each test creates and drops its own database.
const PostgresURLEnv = "XFLEX_TEST_POSTGRES_URL"

// PostgresBase returns the server URL, skipping the test when none is
// configured, except in CI (CI=true), where a missing PostgreSQL fails the
// test: CI must exercise the PostgreSQL store.
func PostgresBase(t testing.TB) string {
	t.Helper()
	u := os.Getenv(PostgresURLEnv)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must start PostgreSQL (scripts/postgres-test.sh) so the PostgreSQL job store is tested", PostgresURLEnv)
		}
		t.Skipf("%s is not set; run `eval \"$(./scripts/postgres-test.sh start)\"` to test the PostgreSQL job store", PostgresURLEnv)
	}
	return u
}

// FreshPostgres creates an empty database for one test, drops it when the
// test ends, and returns its URL.
func FreshPostgres(t testing.TB) string {
	t.Helper()
	base := PostgresBase(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "xflex_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Store returns a fresh store URL of the given kind: "sqlite" (a file in a
// temporary directory) or "postgres".
func Store(t testing.TB, kind string) string {
	t.Helper()
	if kind == "postgres" {
		return FreshPostgres(t)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "jobs.db")
}

// StoreKinds lists the stores every job test runs against.
func StoreKinds() []string { return []string{"sqlite", "postgres"} }
