package jobs

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/solver"
)

// The Service type, one replica's job queue, and the solves it is running
// (runningJob). Its configuration is in config.go and its methods live by
// concern: setup.go, submit.go, worker.go, outcome.go, cancel.go,
// background.go, and the feature files (http.go, partial.go, wait.go, ...).

// Service is the job queue of one replica.
type Service struct {
	cfg    Config
	st     *store
	runner *solver.Runner
	log    zerolog.Logger
	river  *river.Client[*sql.Tx]
	now    func() time.Time

	db *sql.DB
	// file is a SQLite store's file (nil on PostgreSQL), see watchFile.
	file *storeFile

	mu      sync.Mutex
	running map[string]*runningJob

	stopJanitor context.CancelFunc
	janitorDone sync.WaitGroup
	stopOnce    sync.Once
	stopErr     error

	// maxStoredBytes overrides maxScenarioBytes (tests).
	maxStoredBytes int

	metrics *metrics
	// memory is the workers' memory budget (memory.go).
	memory *jobMemory
	// health is whether the store can write, for /readyz (storefault.go).
	health *storeHealth
	// changed wakes the GET ?wait= requests when this replica changes a
	// job's state (wait.go).
	changed changes
}

// runningJob lets a DELETE on this replica stop a solve at once.
type runningJob struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
	// lost is set when the job was rescued from under this worker (its
	// heartbeat stalled): the solve is stopped and its outcome dropped.
	lost atomic.Bool
	// partial encodes the solver's incumbents (partial.go).
	partial *partialEncoder
}
