package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/rs/zerolog"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
)

// sqliteBusyTimeout is how long a SQLite statement waits for another
// process's write lock (replicas sharing one file) before failing.
const sqliteBusyTimeout = 10 * time.Second

// xflexApplicationID marks a SQLite file as an xflex job store (PRAGMA
// application_id, the header field SQLite reserves for this): "xflx".
const xflexApplicationID = 0x78666c78

// sqlitePath returns the file a sqlite: store URL names.
func sqlitePath(storeURL string) (string, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(storeURL, "sqlite:"), "//")
	if path == "" {
		return "", errors.New("store sqlite:PATH needs a file path")
	}
	return path, nil
}

// openStore opens the database a store URL names. A SQLite file is
// created if missing (with a warning: a store that was deleted lost its
// jobs), readable by its owner only, and refused if it is another
// application's database.
func openStore(storeURL string, log zerolog.Logger) (*sql.DB, dialect, error) {
	switch {
	case strings.HasPrefix(storeURL, "sqlite:"):
		path, err := sqlitePath(storeURL)
		if err != nil {
			return nil, 0, err
		}
		if err := prepareSQLiteFile(path, log); err != nil {
			return nil, 0, err
		}
		// WAL lets readers in other processes proceed during a write;
		// _txlock=immediate makes every transaction take the write lock up
		// front, so read-then-write transactions never deadlock.
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_txlock=immediate" +
			"&_pragma=busy_timeout(" + fmt.Sprint(sqliteBusyTimeout.Milliseconds()) + ")" +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)"
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, 0, err
		}
		// River's advice for SQLite: one connection, so its concurrent
		// operations queue in the pool instead of failing with SQLITE_BUSY.
		db.SetMaxOpenConns(1)
		return db, dialectSQLite, nil
	case strings.HasPrefix(storeURL, "postgres://"), strings.HasPrefix(storeURL, "postgresql://"):
		db, err := sql.Open("pgx", storeURL)
		if err != nil {
			return nil, 0, err
		}
		db.SetMaxOpenConns(16)
		return db, dialectPostgres, nil
	}
	return nil, 0, fmt.Errorf("unknown store %q: want sqlite:PATH or a postgres:// URL", storeURL)
}

// prepareSQLiteFile readies path for openStore before anything is written
// to it: it creates a missing file and its directories, readable by the
// owner only (SQLite gives its -wal and -shm files the database file's
// mode), or checks that an existing file is an xflex store.
func prepareSQLiteFile(path string, log zerolog.Logger) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("store directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		log.Warn().Str("store", path).Msg("job store file did not exist: created an empty one (if it existed before, its jobs are lost)")
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create store: %w", err)
	}
	return checkSQLiteOwner(path)
}

// checkSQLiteOwner refuses a SQLite file that is not an xflex store: one
// marked with another application id, or one with tables but no xflex_job
// table. An empty file or database is ours to initialise. It only reads:
// a refused file is left as it was.
func checkSQLiteOwner(path string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+
		"?_pragma=busy_timeout("+fmt.Sprint(sqliteBusyTimeout.Milliseconds())+")")
	if err != nil {
		return err
	}
	defer db.Close()
	var appID int64
	var tables, ours int
	err = db.QueryRow(`PRAGMA application_id`).Scan(&appID)
	if err == nil {
		err = db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(name = 'xflex_job'), 0) FROM sqlite_schema
			WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).Scan(&tables, &ours)
	}
	switch {
	case err != nil:
		return fmt.Errorf("store %s is not a usable SQLite database: %w", path, err)
	case appID != 0 && appID != xflexApplicationID:
		return fmt.Errorf("store %s is another application's SQLite database (application_id %#x): refusing to use it as the job store", path, appID)
	case appID == 0 && tables > 0 && ours == 0:
		return fmt.Errorf("store %s is a SQLite database with %d tables and no xflex_job table, not an xflex job store: refusing to add tables to it (point --store at a new file)", path, tables)
	}
	return nil
}

// Open connects to the store, creates or migrates its tables and builds
// the job service with its River client (not started). Close releases it.
func Open(ctx context.Context, cfg Config, runner *solver.Runner, log zerolog.Logger) (*Service, error) {
	cfg = cfg.WithDefaults()
	if cfg.HeartbeatTimeout < minHeartbeatTimeout {
		return nil, fmt.Errorf("heartbeat timeout %s is too short: at least %s (the worker renews it every %s)",
			cfg.HeartbeatTimeout, minHeartbeatTimeout, progressEvery)
	}
	if err := refuseEmptyStore(cfg); err != nil {
		return nil, err
	}
	db, d, err := openStore(cfg.Store, log)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = db.Close()
		}
	}()
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		return nil, fmt.Errorf("connect to store %s: %w", redact(cfg.Store), err)
	}
	var driver riverdriver.Driver[*sql.Tx]
	if d == dialectPostgres {
		driver = riverdatabasesql.New(db)
	} else {
		driver = riversqlite.New(db)
	}
	st := &store{db: db, d: d}
	if err := st.migrateAll(pctx, driver); err != nil {
		return nil, err
	}
	svc := &Service{cfg: cfg, st: st, runner: runner, log: log, now: func() time.Time { return time.Now().UTC() },
		running: map[string]*runningJob{}, memory: newJobMemory(cfg.MemoryBytes)}
	svc.health = &storeHealth{svc: svc}
	svc.metrics = newMetrics(st, svc.memory)
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &solveWorker{svc: svc}); err != nil {
		return nil, err
	}
	rescue := noBudgetCapRescue
	if runner.MaxBudget > 0 {
		rescue = runner.MaxBudget
	}
	rescue += cfg.RescueGrace
	client, err := river.NewClient(driver, &river.Config{
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}},
		Workers:                     workers,
		FetchPollInterval:           cfg.PollInterval,
		FetchCooldown:               min(cfg.PollInterval, 100*time.Millisecond),
		JobTimeout:                  -1,
		RescueStuckJobsAfter:        rescue,
		RetryPolicy:                 retryPolicy{},
		MaxAttempts:                 maxAttempts,
		CompletedJobRetentionPeriod: cfg.Retention,
		CancelledJobRetentionPeriod: cfg.Retention,
		DiscardedJobRetentionPeriod: cfg.Retention,
		Logger:                      slog.New(&slogAdapter{log: log}),
	})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	svc.river = client
	svc.db = db
	if d == dialectSQLite {
		path, _ := sqlitePath(cfg.Store)
		if svc.file, err = openedFile(path); err != nil {
			return nil, err
		}
	}
	ok = true
	return svc, nil
}

// migrateAll creates or updates xflex_job, then runs River's migrations:
// in that order, so a store whose first start failed half-way still reads
// as xflex's. On PostgreSQL it holds an advisory lock so replicas starting
// together migrate once, and refuses a database where another application
// keeps River's queue (xflex's workers would fetch its jobs).
func (s *store) migrateAll(ctx context.Context, driver riverdriver.Driver[*sql.Tx]) error {
	if s.d == dialectPostgres {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext('xflex-jobs-migrate'))`); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		defer func() {
			_, _ = c.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('xflex-jobs-migrate'))`)
		}()
		var river, ours bool
		if err := c.QueryRowContext(ctx, `SELECT to_regclass('river_job') IS NOT NULL,
			to_regclass('xflex_job') IS NOT NULL`).Scan(&river, &ours); err != nil {
			return fmt.Errorf("inspect store: %w", err)
		}
		if river && !ours {
			return errors.New("store database has River's tables but no xflex_job table: another application's job queue, whose jobs xflex's workers would fetch; refusing to use it (give xflex its own database or schema)")
		}
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// redact hides a URL's password in messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}

// storeFileCheck is how often a SQLite store's file is checked for
// deletion: a stat, cheap enough to do every second.
const storeFileCheck = time.Second

// Start starts the workers, the retention janitor, the rescuer of jobs
// whose worker died and, on SQLite, the watch over the store file. ctx bounds only the start; Stop ends them.
func (s *Service) Start(ctx context.Context) error {
	if err := s.river.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start job workers: %w", err)
	}
	jctx, cancel := context.WithCancel(context.Background())
	s.stopJanitor = cancel
	every := min(max(s.cfg.Retention/4, time.Second), time.Minute)
	s.janitorDone.Go(func() { s.janitor(jctx, every) })
	s.janitorDone.Go(func() { s.rescuer(jctx, s.cfg.HeartbeatTimeout/5) })
	if s.file != nil {
		s.janitorDone.Go(func() { s.watchFile(jctx, storeFileCheck) })
	}
	return nil
}

// Stop stops fetching jobs, waits for running solves until ctx ends, then
// cancels the rest (they are requeued and run again by a replica) and
// closes the store. Calls after the first return the first one's error.
func (s *Service) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

func (s *Service) stop(ctx context.Context) error {
	var err error
	if s.stopJanitor != nil {
		s.stopJanitor()
		s.janitorDone.Wait()
	}
	if serr := s.river.Stop(ctx); serr != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = s.river.StopAndCancel(cctx)
		cancel()
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Setup opens the store named by cfg.Store, starts this replica's workers
// and mounts the job routes on api: everything `xflex serve` needs. The
// returned stop function drains and closes it (call it after the HTTP
// server's Shutdown).
func Setup(ctx context.Context, cfg Config, runner *solver.Runner, api *httpapi.Server, log zerolog.Logger) (stop func(context.Context) error, err error) {
	svc, err := Open(ctx, cfg, runner, log)
	if err != nil {
		return nil, err
	}
	if err := svc.Start(ctx); err != nil {
		_ = svc.db.Close()
		return nil, err
	}
	svc.Mount(api)
	log.Info().Str("store", redact(svc.cfg.Store)).Str("dialect", svc.st.d.String()).
		Int("workers", svc.cfg.Workers).Int64("memory_bytes", svc.cfg.MemoryBytes).Dur("retention", svc.cfg.Retention).
		Int64("retention_ms", svc.cfg.Retention.Milliseconds()).Msg("jobs ready") // retention kept for old log readers
	return svc.Stop, nil
}

// slogAdapter sends River's warnings and errors to the server's zerolog
// logger; River's info and debug chatter is dropped.
type slogAdapter struct {
	log   zerolog.Logger
	attrs []slog.Attr
}

func (a *slogAdapter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (a *slogAdapter) Handle(_ context.Context, r slog.Record) error {
	ev := a.log.Warn()
	if r.Level >= slog.LevelError {
		ev = a.log.Error()
	}
	ev = ev.Str("component", "river")
	for _, at := range a.attrs {
		ev = ev.Str(at.Key, at.Value.String())
	}
	r.Attrs(func(at slog.Attr) bool {
		ev = ev.Str(at.Key, at.Value.String())
		return true
	})
	ev.Msg(r.Message)
	return nil
}

func (a *slogAdapter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &slogAdapter{log: a.log, attrs: append(append([]slog.Attr{}, a.attrs...), attrs...)}
}

func (a *slogAdapter) WithGroup(string) slog.Handler { return a }
