package jobs

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/xflex/xflex/httpapi"
)

// A store that cannot write (a full disk, a read-only or failing file
// system, a PostgreSQL server out of space or unreachable) is not the
// solver failing: a submission it refuses answers 503 with a problem type
// that says which (store_full, store_unavailable) and a Retry-After, the
// replica's /readyz says not ready while it lasts (storeHealth), and a
// queued job whose worker cannot claim it waits (snoozes) without using
// up its attempts, so it runs once the store writes again.

// Kinds of store fault, the problem types of a refused submission.
const (
	faultFull        = "store_full"
	faultUnavailable = "store_unavailable"
)

// Retry-After of a refused submission: a full disk needs an operator or
// retention to free space (half a minute), a store that failed to write
// otherwise (an I/O error, a lost connection) may be back at once.
const (
	fullRetry        = 30 * time.Second
	unavailableRetry = 5 * time.Second
)

// storeFaultSnooze is how long a job whose worker could not claim it for
// a store fault waits before it is tried again.
const storeFaultSnooze = 5 * time.Second

// storeFault classifies err as a store fault: faultFull (no space: ENOSPC,
// EDQUOT, SQLITE_FULL, PostgreSQL's class 53 "insufficient resources"),
// faultUnavailable (EROFS, EIO, SQLite's I/O, read-only and cannot-open
// errors, PostgreSQL's read-only transaction and I/O errors, a lost
// connection), or "" for any other error (a bug, not the store's state,
// or a context's end).
func storeFault(err error) string {
	if err == nil {
		return ""
	}
	var se *sqlite.Error
	var pe *pgconn.PgError
	var ne net.Error
	var ce *pgconn.ConnectError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// A wait that ran out (a busy pool) or a caller that left; a
		// context error is also a net.Error, so it is told apart first.
		return ""
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return faultFull
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EIO):
		return faultUnavailable
	case errors.As(err, &se):
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_FULL:
			return faultFull
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
			return faultUnavailable
		}
	case errors.As(err, &pe):
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "53":
			return faultFull
		case pe.Code == "25006", pe.Code == "58030", len(pe.Code) == 5 && pe.Code[:2] == "08":
			return faultUnavailable
		}
	case errors.As(err, &ce), errors.As(err, &ne):
		return faultUnavailable
	}
	return ""
}

// writeStoreFault answers a request the store could not serve (kind from
// storeFault; a submission it could not write, most often) with 503,
// Retry-After and a problem document of that type, logs it, and has
// /readyz probe the store afresh.
func (h *handlers) writeStoreFault(w http.ResponseWriter, r *http.Request, kind string, err error) {
	h.svc.log.Error().Err(err).Str("fault", kind).Str("method", r.Method).Str("path", r.URL.Path).Msg("job store cannot write: request refused")
	h.svc.health.invalidate()
	retry, title := unavailableRetry, "Job store unavailable"
	detail := "the job store could not complete this request (" + h.svc.st.d.String() + "); nothing was changed: retry after the number of seconds in Retry-After"
	if kind == faultFull {
		retry, title = fullRetry, "Job store full"
		detail = "the job store has no space left (" + h.svc.st.d.String() + "); nothing was changed: retry after the number of seconds in Retry-After, once the operator or retention has freed space"
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(retry.Seconds())))
	httpapi.SimpleProblem(w, r, http.StatusServiceUnavailable, kind, title, detail)
}

// storeHealthTTL is how long a probe's verdict is reused: /readyz may be
// polled often, a probe is a write.
const storeHealthTTL = time.Second

// probeBytes is the size of the probe's write: large enough that a store
// with no room (SQLite's pages all used and none free) fails it, small
// enough to cost nothing once a second.
const probeBytes = 64 << 10

// DefaultStoreMinFree is the free space, in bytes, the file system of a
// SQLite store must have for /readyz to say ready: one largest submission
// (maxScenarioBytes). A write probe alone cannot see a nearly full disk:
// SQLite reuses its write-ahead log's space, so a small write succeeds
// where a submission fails.
const DefaultStoreMinFree = maxScenarioBytes

// storeHealth is a replica's view of whether its store can write, for
// /readyz: the verdict of a probe (freeSpace, then a committed write of
// probeBytes that is deleted in the same transaction), reused for
// storeHealthTTL.
type storeHealth struct {
	svc *Service

	mu  sync.Mutex
	at  time.Time // when err was found; zero: probe at the next check
	err error
}

// check returns nil when the store can write, or why it cannot.
func (h *storeHealth) check(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.at.IsZero() && time.Since(h.at) < storeHealthTTL {
		return h.err
	}
	pctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	h.err = h.svc.probeStore(pctx)
	h.at = time.Now()
	return h.err
}

// invalidate makes the next check probe again (a write just failed).
func (h *storeHealth) invalidate() {
	h.mu.Lock()
	h.at = time.Time{}
	h.mu.Unlock()
}

// probeStore checks that the store can write: on SQLite that its file
// system has StoreMinFree bytes free, then on either store that a row of
// probeBytes can be written and committed.
func (s *Service) probeStore(ctx context.Context) error {
	if s.file != nil {
		free, err := freeSpace(filepath.Dir(s.file.path))
		if err == nil && free < s.cfg.StoreMinFree {
			return fmt.Errorf("%s: %d bytes free on the store's file system, below the %d --store-min-free asks for", faultFull, free, s.cfg.StoreMinFree)
		}
	}
	err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.st.d.rebind(`INSERT INTO xflex_probe (id, pad) VALUES (1, ?)`), make([]byte, probeBytes)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM xflex_probe`)
		return err
	})
	if err != nil {
		kind := storeFault(err)
		if kind == "" {
			kind = "store_error"
		}
		return fmt.Errorf("%s: a %d-byte write failed: %w", kind, probeBytes, err)
	}
	return nil
}

// createProbeTable is the table probeStore writes to (and empties in the
// same transaction), made with the store's other tables by migrate.
func (d dialect) createProbeTable() string {
	return `CREATE TABLE IF NOT EXISTS xflex_probe (id INTEGER PRIMARY KEY, pad ` + d.blob() + `)`
}

// storeFlags registers the store's fault flags of `xflex serve`.
func storeFlags(fs *flag.FlagSet, c *Config) {
	fs.Int64Var(&c.StoreMinFree, "store-min-free", DefaultStoreMinFree,
		"free bytes a sqlite: store's file system needs for /readyz to say ready (a full disk fails submissions with 503 store_full)")
	fs.BoolVar(&c.AllowEmptyStore, "store-allow-empty", false,
		"initialise a sqlite: store path that names an existing 0-byte file (refused otherwise: a truncated store looks like that)")
}

// snoozeOnStoreFault turns a job attempt that failed for a store fault
// into a snooze: River tries the job again after storeFaultSnooze without
// counting the attempt, so a job queued while the disk fills runs once it
// has room, however long that takes, instead of being abandoned after
// maxAttempts. Other errors pass through.
func (s *Service) snoozeOnStoreFault(id string, err error) error {
	kind := storeFault(err)
	if kind == "" {
		return err
	}
	s.health.invalidate()
	s.log.Warn().Err(err).Str("job", id).Str("fault", kind).Dur("retry_in", storeFaultSnooze).
		Msg("job store cannot write: job waits")
	return river.JobSnooze(storeFaultSnooze)
}
