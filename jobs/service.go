package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// DefaultStore is the --store default: a SQLite file in the working
// directory.
const DefaultStore = "sqlite:xflex.db"

// Config configures the job service. Zero values take the defaults below.
type Config struct {
	// Store is "sqlite:PATH" or a postgres:// (postgresql://) URL.
	Store string
	// Retention is how long a finished job and its result are kept.
	Retention time.Duration
	// Workers is how many solves this replica runs at once.
	Workers int
	// MaxRunningPerClient caps a tenant's simultaneously running solves
	// (a scenario's variants count one each); further solves wait. (The
	// name predates tenants: jobs were then counted per X-Client-Id.)
	MaxRunningPerClient int
	// MaxQueuedPerClient caps a tenant's waiting jobs: a submission is
	// refused with 429 when the tenant already has MaxRunningPerClient +
	// MaxQueuedPerClient jobs queued or running.
	MaxQueuedPerClient int
	// MaxBytesPerTenant caps the bytes a tenant's jobs keep in the store
	// (inputs, scenario variants and results) until retention removes
	// them: a submission that would pass it is refused with 429.
	MaxBytesPerTenant int64
	// MaxQueued caps every tenant's jobs queued or running together: a
	// submission beyond it is refused with 429.
	MaxQueued int
	// MaxVariants caps a scenario's variants (the base not counted).
	MaxVariants int
	// HeartbeatTimeout is how long a running solve's worker may go without
	// renewing its heartbeat (it does so every progressEvery) before the
	// job is taken as abandoned by a dead process and requeued.
	HeartbeatTimeout time.Duration
	// RescueGrace is added to the longest possible solve (the runner's
	// maximum budget) for River's own rescuer, the backstop for a River
	// job whose process died before it claimed its xflex_job row.
	RescueGrace time.Duration
	// PollInterval is how often idle workers look for new jobs and running
	// jobs look for cancellation requests from other replicas.
	PollInterval time.Duration
	// MemoryBytes is the memory budget of this replica's job solves
	// together: each reserves its problem's estimate before it starts and
	// waits, running, while that is not free (jobMemory, docs/MEMORY.md).
	MemoryBytes int64
	// StoreMinFree is the free space a SQLite store's file system must
	// have for /readyz to say ready (storefault.go).
	StoreMinFree int64
	// AllowEmptyStore lets a SQLite store path name an existing 0-byte
	// file, initialised as a new store; otherwise it is refused.
	AllowEmptyStore bool
}

// Defaults.
const (
	DefaultRetention           = 24 * time.Hour
	DefaultMaxRunningPerClient = 4
	DefaultMaxQueuedPerClient  = 100
	// DefaultMaxBytesPerTenant is 8 of the largest submissions
	// (maxScenarioBytes), or some hundred typical ones with their results:
	// one tenant cannot fill the store's disk (issue 16 saw 813 MB from
	// one caller rotating X-Client-Id).
	DefaultMaxBytesPerTenant = 512 << 20
	// DefaultMaxQueued lets ten tenants fill their default queues.
	DefaultMaxQueued    = 10 * (DefaultMaxRunningPerClient + DefaultMaxQueuedPerClient)
	DefaultMaxVariants  = 32
	DefaultRescueGrace  = 30 * time.Second
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMemoryBytes is the HTTP API's default in-flight budget
	// (httpapi.Config.MaxInflightBytes); `xflex serve` passes its
	// --max-inflight-bytes instead when --job-memory-bytes is 0.
	DefaultMemoryBytes = 512 << 20
	// DefaultHeartbeatTimeout is 40 missed heartbeats: far above a busy
	// store's write latency, so a live worker is not taken for dead, and
	// with the rescue interval (a fifth of it) well inside the 30 s after
	// its budget within which a crashed job must be requeued (issue 15).
	DefaultHeartbeatTimeout = 10 * time.Second
	// minHeartbeatTimeout keeps a timeout several heartbeats long.
	minHeartbeatTimeout = 4 * progressEvery
	// noBudgetCapRescue is the rescue delay when the runner has no maximum
	// budget: the schema's largest budget_ms (one day).
	noBudgetCapRescue = 24 * time.Hour
)

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	if c.Store == "" {
		c.Store = DefaultStore
	}
	orDefault(&c.Retention, DefaultRetention)
	orDefault(&c.Workers, runtime.NumCPU())
	orDefault(&c.MaxRunningPerClient, DefaultMaxRunningPerClient)
	orDefault(&c.MaxQueuedPerClient, DefaultMaxQueuedPerClient)
	orDefault(&c.MaxBytesPerTenant, DefaultMaxBytesPerTenant)
	orDefault(&c.MaxQueued, DefaultMaxQueued)
	orDefault(&c.MaxVariants, DefaultMaxVariants)
	orDefault(&c.RescueGrace, DefaultRescueGrace)
	orDefault(&c.HeartbeatTimeout, DefaultHeartbeatTimeout)
	orDefault(&c.PollInterval, DefaultPollInterval)
	orDefault(&c.MemoryBytes, DefaultMemoryBytes)
	orDefault(&c.StoreMinFree, DefaultStoreMinFree)
	return c
}

// orDefault sets *v to def when it is zero or negative (unset).
func orDefault[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Flags registers the job flags of `xflex serve` (--store and the --job-*
// knobs) on fs and returns the Config they fill.
func Flags(fs *flag.FlagSet) *Config {
	c := &Config{}
	fs.StringVar(&c.Store, "store", DefaultStore, "job store: sqlite:PATH or a postgres:// URL")
	fs.DurationVar(&c.Retention, "job-retention", DefaultRetention, "how long finished jobs and results are kept")
	fs.IntVar(&c.Workers, "job-workers", 0, "simultaneous job solves on this replica (0: number of CPUs)")
	fs.IntVar(&c.MaxRunningPerClient, "job-tenant-running", DefaultMaxRunningPerClient, "running solves per tenant")
	fs.IntVar(&c.MaxQueuedPerClient, "job-tenant-queue", DefaultMaxQueuedPerClient, "queued jobs per tenant beyond the running ones (429 beyond)")
	// The names from before tenants, kept so existing command lines work.
	fs.IntVar(&c.MaxRunningPerClient, "job-client-running", DefaultMaxRunningPerClient, "old name of --job-tenant-running")
	fs.IntVar(&c.MaxQueuedPerClient, "job-client-queue", DefaultMaxQueuedPerClient, "old name of --job-tenant-queue")
	fs.Int64Var(&c.MaxBytesPerTenant, "job-tenant-bytes", DefaultMaxBytesPerTenant, "bytes of inputs and results a tenant's jobs may keep in the store (429 beyond)")
	fs.IntVar(&c.MaxQueued, "job-queue", DefaultMaxQueued, "jobs queued or running across all tenants (429 beyond)")
	fs.IntVar(&c.MaxVariants, "job-max-variants", DefaultMaxVariants, "variants per scenario job")
	fs.DurationVar(&c.HeartbeatTimeout, "job-heartbeat-timeout", DefaultHeartbeatTimeout, "a running job whose worker has not renewed its heartbeat for this long is requeued (its process died)")
	fs.DurationVar(&c.RescueGrace, "job-rescue-grace", DefaultRescueGrace, "added to --max-budget before River requeues a job fetched by a process that died before starting it")
	fs.DurationVar(&c.PollInterval, "job-poll", DefaultPollInterval, "how often workers poll for jobs and cancellations")
	fs.Int64Var(&c.MemoryBytes, "job-memory-bytes", 0, "memory budget of this replica's job solves together; each reserves its estimate before it starts and waits while that is not free (0: the value of --max-inflight-bytes; docs/MEMORY.md)")
	storeFlags(fs, c)
	return c
}

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

// solveArgs is the River job: the id of the xflex_job row to solve.
type solveArgs struct {
	JobID string `json:"job_id"`
}

func (solveArgs) Kind() string { return "xflex_solve" }

type solveWorker struct {
	river.WorkerDefaults[solveArgs]
	svc *Service
}

// Timeout: none from River; the runner's budget bounds each solve.
func (w *solveWorker) Timeout(*river.Job[solveArgs]) time.Duration { return -1 }

func (w *solveWorker) Work(ctx context.Context, job *river.Job[solveArgs]) error {
	err := w.svc.work(ctx, job.Args.JobID, job.ID, job.Attempt >= job.MaxAttempts)
	return w.svc.snoozeOnStoreFault(job.Args.JobID, err)
}

// retryPolicy retries a job whose attempt failed for an infrastructure
// reason (database error, shutdown, rescue after a crash) soon: a second
// per attempt, at most 30 s. Solver errors are not retried: they are the
// job's answer.
type retryPolicy struct{}

func (retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	d := time.Duration(job.Attempt) * time.Second
	if d > 30*time.Second {
		d = 30 * time.Second
	}
	return time.Now().Add(d)
}

// maxAttempts bounds how often one job is tried after crashes or database
// failures. The last attempt does not solve: it marks the job failed (see
// work), so a job that kills its process every time cannot loop forever and
// never stays queued or running once River would give up on it.
const maxAttempts = 10

// snoozeDelay is how long a solve waits when its client already runs its
// maximum number of solves.
const snoozeDelay = time.Second

// progressEvery is how often a running solve stores its progress and looks
// for cancellation requests from other replicas; 250 ms keeps progress
// fresh for pollers without loading the database.
const progressEvery = 250 * time.Millisecond

// dbTimeout bounds bookkeeping writes made after a solve's context ended.
const dbTimeout = 10 * time.Second

// work runs one solve attempt of job id for River job riverID.
// lastAttempt is set on River's final attempt.
func (s *Service) work(ctx context.Context, id string, riverID int64, lastAttempt bool) error {
	rec, err := s.st.get(ctx, id)
	if errors.Is(err, errNotFound) {
		return nil // removed by retention: nothing to do
	}
	if err != nil {
		return err
	}
	if rec.State.Terminal() && rec.ParentID != "" && rec.RiverID == riverID {
		// A retry after the variant's finish committed but its scenario's
		// update failed: finish the scenario, or it stays running.
		return s.finalizeScenario(ctx, rec.ParentID)
	}
	if rec.State.Terminal() || rec.RiverID != riverID {
		// Finished, or rescued under a new River job (this one is the dead
		// worker's, rescued late by River's own rescuer).
		return nil
	}
	var attempt int
	if err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		attempt, err = s.st.claimTx(ctx, tx, rec, s.cfg.MaxRunningPerClient, s.now(), s.cfg.HeartbeatTimeout)
		return err
	}); err != nil {
		return err
	}
	if attempt == 0 {
		if cur, err := s.st.get(ctx, id); err == nil && cur.State != StateQueued {
			return nil // finished, or run by a live worker
		}
		return river.JobSnooze(snoozeDelay) // the client's running limit
	}
	s.changed.notify() // running now
	if rec.CancelRequested {
		return s.finish(ctx, rec, attempt, StateCancelled, nil, nil, Progress{Phase: "cancelled"})
	}
	if lastAttempt || attempt >= maxAttempts {
		detail := fmt.Sprintf("job interrupted %d times (its process died or lost the database); not retried", attempt-1)
		s.log.Error().Str("job", id).Msg(detail)
		pd := httpapi.ProblemDetails{Type: httpapi.TypeBase + "abandoned", Title: "Job abandoned",
			Status: http.StatusInternalServerError, Detail: detail, Instance: "/v1/" + rec.Problem}
		return s.finish(ctx, rec, attempt, StateFailed, nil, &pd, Progress{Phase: "failed"})
	}
	input, err := s.st.input(ctx, s.st.db, id)
	if errors.Is(err, errCorrupt) {
		pd := s.logCorrupt(rec, partInput)
		return s.finish(ctx, rec, attempt, StateFailed, nil, &pd, Progress{Phase: "failed"})
	}
	if err != nil {
		return err
	}
	budget := s.budgetOf(input)

	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	rj := &runningJob{cancel: cancel, partial: &partialEncoder{runner: s.runner, input: input, start: start}}
	s.mu.Lock()
	s.running[id] = rj
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
	}()
	rep := &progress.Reporter{}
	jctx = progress.WithReporter(jctx, rep)
	stopMonitor := s.monitor(jctx, id, attempt, rj, rep, start, budget)

	resp, runErr := s.runWithMemory(jctx, rec.Problem, input, rep)
	stopMonitor()

	dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer dcancel()
	last, _ := rep.Take()
	userCancelled := rj.cancelled.Load()
	if rj.lost.Load() {
		return nil // another attempt owns the job now
	}
	if !userCancelled && ctx.Err() != nil {
		// River stopped this worker (shutdown): give the job back.
		if err := s.st.requeue(dctx, id, attempt); err != nil {
			s.log.Error().Err(err).Str("job", id).Msg("requeue job")
		}
		return fmt.Errorf("job %s interrupted: %w", id, ctx.Err())
	}
	s.metrics.observeRun(rec.Problem, runErr, userCancelled, time.Since(start))
	return s.recordOutcome(dctx, rec, attempt, resp, runErr, last, userCancelled)
}

// recordOutcome stores a finished attempt: cancelled by its user (with
// whatever answer the solve returned), failed with the solver's problem
// document, or succeeded with the encoded response.
func (s *Service) recordOutcome(ctx context.Context, rec record, attempt int, resp *solver.Response,
	runErr error, last Progress, userCancelled bool) error {
	var result []byte
	if resp != nil {
		result = resp.Wire
	}
	final := Progress{Phase: "done", Fraction: progress.F(1), Message: last.Message}
	if resp != nil {
		final.Objective, final.Bound = resp.Meta.Objective, resp.Meta.Bound
	}
	switch {
	case userCancelled:
		final.Phase = "cancelled"
		final.Fraction = last.Fraction
		return s.finish(ctx, rec, attempt, StateCancelled, result, nil, final)
	case runErr != nil:
		var xe *solver.Error
		if !errors.As(runErr, &xe) {
			xe = &solver.Error{Kind: solver.KindInternal, Detail: runErr.Error(), Err: runErr}
		}
		if xe.Kind == solver.KindInternal {
			s.log.Error().Err(xe).Str("job", rec.ID).Msg("job solve failed")
		}
		pd := httpapi.FromError(xe, "/v1/"+rec.Problem, "")
		final.Phase = "failed"
		final.Fraction = nil
		return s.finish(ctx, rec, attempt, StateFailed, nil, &pd, final)
	default:
		return s.finish(ctx, rec, attempt, StateSucceeded, result, nil, final)
	}
}

// monitor stores progress with the heartbeat of the worker's claim
// (attempt) and watches for cancellation from other replicas until the
// returned stop function is called. If the claim was lost (the job was
// rescued while this worker stalled) it stops the solve.
func (s *Service) monitor(ctx context.Context, id string, attempt int, rj *runningJob, rep *progress.Reporter,
	start time.Time, budget time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		var last Progress
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if c, err := s.st.cancelRequested(ctx, id); err == nil && c {
				rj.cancelled.Store(true)
				rj.cancel()
				return
			}
			if p, changed := rep.Take(); changed {
				last = p
			}
			p := last
			if p.Phase == "" {
				p.Phase = "solving"
			}
			if budget > 0 && p.Phase != phaseMemory { // the budget starts with the solve
				p.BudgetUsed = progress.F(min(float64(time.Since(start))/float64(budget), 1))
			}
			alive, err := s.st.heartbeat(ctx, id, attempt, p)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn().Err(err).Str("job", id).Msg("store progress and heartbeat")
				}
				continue
			}
			if !alive {
				s.log.Warn().Str("job", id).Int("attempt", attempt).
					Msg("job was requeued while this worker ran it (its heartbeat stalled): attempt dropped")
				rj.lost.Store(true)
				rj.cancel()
				return
			}
			if inc, changed := rep.TakeIncumbent(); changed {
				s.storePartial(ctx, id, attempt, rj.partial, inc)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// budgetOf is the budget the Runner gives the job's request
// (Runner.SettingsOf: the same default and cap as a synchronous solve).
// The input was validated at submission, so it parses; were it not, the
// default budget is still a sound bound for the monitor.
func (s *Service) budgetOf(input []byte) time.Duration {
	settings, _ := s.runner.SettingsOf(input)
	return settings.Budget
}

// finish stores a job's outcome, if attempt still holds the job's claim,
// and, for a scenario variant, lets the scenario finish when it was the
// last one.
func (s *Service) finish(ctx context.Context, rec record, attempt int, st State, result []byte, pd *httpapi.ProblemDetails, p Progress) error {
	now := s.now()
	var expires *time.Time
	if rec.ParentID == "" {
		e := now.Add(s.cfg.Retention)
		expires = &e
	}
	if err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		_, err := s.st.finishTx(ctx, tx, rec.ID, attempt, st, p, result, pd, now, expires)
		return err
	}); err != nil {
		return err
	}
	s.changed.notify()
	if rec.ParentID != "" {
		err := s.finalizeScenario(ctx, rec.ParentID)
		s.changed.notify() // the scenario may have finished too
		return err
	}
	return nil
}

// finalizeScenario updates a scenario's progress from its variants and,
// once every variant is terminal, stores the comparison table as its
// result. Safe to call concurrently from several replicas: the parent row
// is locked and finishTx only changes a non-terminal job.
func (s *Service) finalizeScenario(ctx context.Context, parentID string) error {
	return s.st.withTx(ctx, func(tx *sql.Tx) error {
		if err := s.st.lock(ctx, tx, lockScenarioPrefix+parentID); err != nil {
			return err
		}
		parent, err := s.st.getTx(ctx, tx, parentID)
		if errors.Is(err, errNotFound) {
			return nil
		}
		if err != nil || parent.State.Terminal() {
			return err
		}
		kids, _, err := s.st.childrenTx(ctx, tx, parentID, false)
		if err != nil {
			return err
		}
		done := 0
		for _, k := range kids {
			if k.State.Terminal() {
				done++
			}
		}
		total := len(kids)
		if done < total {
			p := Progress{Phase: "variants", Fraction: progress.F(float64(done) / float64(max(total, 1))),
				VariantsDone: &done, VariantsTotal: &total}
			b, _ := json.Marshal(p)
			_, err := tx.ExecContext(ctx, s.st.d.rebind(`UPDATE xflex_job SET progress = ? WHERE id = ?`), string(b), parentID)
			return err
		}
		kids, results, err := s.st.childrenTx(ctx, tx, parentID, true)
		if err != nil {
			return err
		}
		now := s.now()
		exp := now.Add(s.cfg.Retention)
		for i, k := range kids {
			if k.Corrupt == "" {
				continue
			}
			pd := s.logCorrupt(k, k.Corrupt)
			if err := s.st.markCorrupt(ctx, tx, k.ID, pd, now, nil); err != nil {
				return err
			}
			kids[i].State, kids[i].Error = StateFailed, &pd
		}
		var spec struct {
			Variants []Variant `json:"variants"`
		}
		specJSON, err := s.st.input(ctx, tx, parentID)
		if errors.Is(err, errCorrupt) {
			pd := s.logCorrupt(parent, partInput)
			_, err = s.st.finishTx(ctx, tx, parentID, 0, StateFailed, Progress{Phase: "failed"}, nil, &pd, now, &exp)
			return err
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return fmt.Errorf("decode scenario %s: %w", parentID, err)
		}
		descs := map[string]string{}
		for _, v := range spec.Variants {
			descs[v.Name] = v.Description
		}
		cmp, err := compare(parent.Problem, descs, kids, results)
		if err != nil {
			return err
		}
		body, err := json.Marshal(cmp)
		if err != nil {
			return err
		}
		body = append(body, '\n')
		st := StateSucceeded
		var pd *httpapi.ProblemDetails
		failed := 0
		for _, k := range kids {
			if k.State == StateFailed {
				failed++
			}
		}
		switch {
		case parent.CancelRequested:
			st = StateCancelled
		case failed == total:
			st = StateFailed
			pd = kids[0].Error
		}
		p := Progress{Phase: "done", Fraction: progress.F(1), VariantsDone: &done, VariantsTotal: &total}
		if st == StateCancelled {
			p.Phase = "cancelled"
		}
		_, err = s.st.finishTx(ctx, tx, parentID, 0, st, p, body, pd, now, &exp)
		return err
	})
}

// variantInput is one solve of a submission: the base or a patched variant.
type variantInput struct {
	Name  string
	Input []byte
}

// submission is a validated POST /v1/jobs: a single solve when Spec is
// nil, otherwise a scenario over Inputs.
type submission struct {
	Tenant  string
	Problem string
	Inputs  []variantInput
	Spec    []byte
	// Key is the Idempotency-Key ("" without one) and BodyHash the
	// canonical hash of the body it must come with.
	Key, BodyHash string
}

// idempotencyWindow is how long an Idempotency-Key names its job.
const idempotencyWindow = 24 * time.Hour

// errKeyTaken is returned inside submit when a concurrent submission
// committed the same key first; submit then answers with that one.
var errKeyTaken = errors.New("idempotency key taken by a concurrent submission")

// keyReusedError is the answer to a key sent again with another body.
type keyReusedError struct {
	Key, JobID string
}

func (e *keyReusedError) Error() string {
	return fmt.Sprintf("Idempotency-Key %q was sent with a different body for job %s", e.Key, e.JobID)
}

// submit stores a job and queues its solves, atomically, within the
// tenant's and the global quotas (a *quotaError otherwise). A submission
// with an Idempotency-Key already used by the tenant within
// idempotencyWindow stores nothing: it returns that key's job with
// replayed set when the body is the same, a *keyReusedError otherwise.
func (s *Service) submit(ctx context.Context, sub submission) (record, bool, error) {
	// A lost race for the key is answered from the winner's row by a
	// second attempt (which finds the key); a third covers a winner whose
	// key expired in between.
	for range 3 {
		id, replayed, err := s.submitTx(ctx, sub)
		if errors.Is(err, errKeyTaken) {
			continue
		}
		if err != nil {
			return record{}, false, err
		}
		rec, err := s.st.get(ctx, id)
		return rec, replayed, err
	}
	return record{}, false, fmt.Errorf("Idempotency-Key %q: %w on every attempt", sub.Key, errKeyTaken)
}

// submitTx is one attempt of submit; it returns the job's id.
func (s *Service) submitTx(ctx context.Context, sub submission) (id string, replayed bool, err error) {
	now := s.now()
	id = newID(now)
	err = s.st.withTx(ctx, func(tx *sql.Tx) error {
		if sub.Key != "" {
			prev, ok, err := s.replay(ctx, tx, sub, now)
			if err != nil || ok {
				id, replayed = prev, ok
				return err
			}
		}
		if err := s.insertJobTx(ctx, tx, id, sub, now); err != nil {
			return err
		}
		if sub.Key != "" {
			ok, err := s.st.insertKeyTx(ctx, tx, sub.Tenant, sub.Key, idemKey{BodyHash: sub.BodyHash, JobID: id, CreatedAt: now})
			if err != nil {
				return err
			}
			if !ok {
				return errKeyTaken
			}
		}
		solves := []string{id}
		if sub.Spec != nil {
			solves = solves[:0]
			for i := range sub.Inputs {
				solves = append(solves, childID(id, i))
			}
		}
		if err := s.queueTx(ctx, tx, solves); err != nil {
			return err
		}
		// Last, so the submit lock is held only for the counts and the
		// commit; a refusal rolls everything above back.
		return s.checkQuotas(ctx, tx, sub.Tenant)
	})
	return id, replayed, err
}

// replay looks the submission's key up: it returns the key's job and true
// when the same body was submitted with it within idempotencyWindow, a
// *keyReusedError for another body, and false when the key is free (one
// older than the window is released).
func (s *Service) replay(ctx context.Context, tx *sql.Tx, sub submission, now time.Time) (string, bool, error) {
	k, found, err := s.st.keyOf(ctx, tx, sub.Tenant, sub.Key)
	if err != nil || !found {
		return "", false, err
	}
	if cutoff := now.Add(-idempotencyWindow); k.CreatedAt.Before(cutoff) {
		return "", false, s.st.dropKeyTx(ctx, tx, sub.Tenant, sub.Key, cutoff)
	}
	if k.BodyHash != sub.BodyHash {
		return "", false, &keyReusedError{Key: sub.Key, JobID: k.JobID}
	}
	return k.JobID, true, nil
}

func childID(parent string, i int) string { return fmt.Sprintf("%s.%d", parent, i) }

// insertJobTx inserts the rows of a submission: one solve, or a scenario
// and its variants' solves.
func (s *Service) insertJobTx(ctx context.Context, tx *sql.Tx, id string, sub submission, now time.Time) error {
	// The wire field client predates tenants; it reports the tenant.
	row := newRow{ID: id, Client: sub.Tenant, Tenant: sub.Tenant, Problem: sub.Problem, Kind: kindSolve, CreatedAt: now}
	if sub.Spec == nil {
		row.Input = sub.Inputs[0].Input
		return s.st.insertTx(ctx, tx, row)
	}
	row.Kind, row.Input = kindScenario, sub.Spec
	if err := s.st.insertTx(ctx, tx, row); err != nil {
		return err
	}
	for i, in := range sub.Inputs {
		row.ID, row.ParentID, row.Variant, row.Seq, row.Kind, row.Input = childID(id, i), id, in.Name, i, kindSolve, in.Input
		if err := s.st.insertTx(ctx, tx, row); err != nil {
			return err
		}
	}
	return nil
}

// checkQuotas holds the submit lock and measures, with the submission's
// rows already inserted, the tenant's jobs and bytes and the global queue
// against their limits. Counting after the insert under one lock makes
// the limits hold across replicas: a concurrent submission either
// committed before the lock was granted (and is counted) or waits for it.
func (s *Service) checkQuotas(ctx context.Context, tx *sql.Tx, tenant string) error {
	if err := s.st.lock(ctx, tx, lockSubmit); err != nil {
		return err
	}
	u, err := s.st.usageTx(ctx, tx, tenant)
	if err != nil {
		return err
	}
	jobs := int64(s.cfg.MaxRunningPerClient + s.cfg.MaxQueuedPerClient)
	switch {
	case u.TenantJobs > jobs:
		return &quotaError{Limit: limitTenantJobs, Tenant: tenant, Max: jobs}
	case u.TenantBytes > s.cfg.MaxBytesPerTenant:
		return &quotaError{Limit: limitTenantBytes, Tenant: tenant, Max: s.cfg.MaxBytesPerTenant, Used: u.TenantBytes}
	case u.GlobalJobs > int64(s.cfg.MaxQueued):
		return &quotaError{Limit: limitQueue, Tenant: tenant, Max: int64(s.cfg.MaxQueued)}
	}
	return nil
}

// cancel asks a job to stop. Queued solves are cancelled at once; running
// ones get their context cancelled (here, or by the replica running them
// within progressEvery) and keep the best answer the solver returns.
func (s *Service) cancel(ctx context.Context, id string) (record, error) {
	var riverIDs []int64
	var local []string
	var parent string
	err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		rec, err := s.st.getTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if rec.ParentID != "" {
			return errNotFound // variants are cancelled through their scenario
		}
		if rec.State.Terminal() {
			return nil
		}
		if err := s.st.requestCancelTx(ctx, tx, id); err != nil {
			return err
		}
		targets := []record{rec}
		if rec.Kind == kindScenario {
			parent = id
			kids, _, err := s.st.childrenTx(ctx, tx, id, false)
			if err != nil {
				return err
			}
			targets = kids
		}
		now := s.now()
		for _, t := range targets {
			if t.State.Terminal() {
				continue
			}
			if err := s.st.requestCancelTx(ctx, tx, t.ID); err != nil {
				return err
			}
			if t.State == StateQueued {
				var exp *time.Time
				if t.ParentID == "" {
					e := now.Add(s.cfg.Retention)
					exp = &e
				}
				if _, err := s.st.finishTx(ctx, tx, t.ID, 0, StateCancelled, Progress{Phase: "cancelled"}, nil, nil, now, exp); err != nil {
					return err
				}
				riverIDs = append(riverIDs, t.RiverID)
			} else {
				local = append(local, t.ID)
			}
		}
		return nil
	})
	if err != nil {
		return record{}, err
	}
	s.changed.notify() // queued jobs are cancelled now
	for _, rid := range riverIDs {
		// Best effort: a worker that already fetched the job sees the
		// cancelled row and returns without solving.
		if _, err := s.river.JobCancel(ctx, rid); err != nil && !errors.Is(err, river.ErrNotFound) {
			s.log.Warn().Err(err).Int64("river_id", rid).Msg("cancel queued river job")
		}
	}
	s.mu.Lock()
	for _, jid := range local {
		if rj, ok := s.running[jid]; ok {
			rj.cancelled.Store(true)
			rj.cancel()
		}
	}
	s.mu.Unlock()
	if parent != "" {
		if err := s.finalizeScenario(ctx, parent); err != nil {
			return record{}, err
		}
	}
	return s.st.get(ctx, id)
}

// janitor removes expired jobs every interval until ctx ends.
func (s *Service) janitor(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.st.deleteExpired(ctx, s.now()); err != nil {
			if ctx.Err() == nil {
				s.log.Warn().Err(err).Msg("remove expired jobs")
			}
		} else if n > 0 {
			s.log.Info().Int64("jobs", n).Msg("removed expired jobs")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// queueTx queues a River job for each xflex_job row in ids and records
// it as the row's river_id: the one River job allowed to run the row
// (work ignores any other).
func (s *Service) queueTx(ctx context.Context, tx *sql.Tx, ids []string) error {
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: solveArgs{JobID: id}, InsertOpts: &river.InsertOpts{MaxAttempts: maxAttempts}}
	}
	res, err := s.river.InsertManyTx(ctx, tx, params)
	if err != nil {
		return fmt.Errorf("queue job: %w", err)
	}
	for i, r := range res {
		if err := s.st.setRiverIDTx(ctx, tx, ids[i], r.Job.ID); err != nil {
			return err
		}
	}
	return nil
}

// rescuer requeues, every interval until ctx ends, the running solves
// whose worker stopped renewing its heartbeat: its process died. Every
// replica runs one; see rescueTx for why that is safe.
func (s *Service) rescuer(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := s.rescue(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn().Err(err).Msg("rescue jobs of dead workers")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// rescue requeues the stalled solves, each under a new River job that any
// replica's workers fetch at once. River's own rescuer would wait for
// --max-budget + --job-rescue-grace and for a live leader; the dead
// worker's River job, if River rescues it later, is then ignored by work.
func (s *Service) rescue(ctx context.Context) error {
	var rescued []record
	err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		rescued, err = s.st.rescueTx(ctx, tx, s.cfg.HeartbeatTimeout)
		if err != nil || len(rescued) == 0 {
			return err
		}
		ids := make([]string, len(rescued))
		for i, r := range rescued {
			ids[i] = r.ID
		}
		return s.queueTx(ctx, tx, ids)
	})
	if err != nil {
		return err
	}
	s.metrics.rescues.Add(float64(len(rescued)))
	if len(rescued) > 0 {
		s.changed.notify()
	}
	for _, r := range rescued {
		s.log.Warn().Str("job", r.ID).Int("attempts", r.Attempts).Dur("heartbeat_timeout", s.cfg.HeartbeatTimeout).
			Int64("heartbeat_timeout_ms", s.cfg.HeartbeatTimeout.Milliseconds()).Msg("running job lost its worker (no heartbeat): requeued")
	}
	return nil
}

// logCorrupt logs that part of job rec failed its checksum and returns
// the error the job gets.
func (s *Service) logCorrupt(rec record, part string) httpapi.ProblemDetails {
	s.log.Error().Str("job", rec.ID).Str("part", part).
		Msg("stored job data fails its SHA-256 checksum: not used, job marked failed")
	return corruptProblem(rec, part)
}

// quarantine marks rec failed because its stored part fails its checksum
// (found while serving it) and returns the record as it now reads.
func (s *Service) quarantine(ctx context.Context, rec record, part string) record {
	pd := s.logCorrupt(rec, part)
	now := s.now()
	var exp *time.Time
	if rec.ParentID == "" {
		e := now.Add(s.cfg.Retention)
		exp = &e
	}
	if err := s.st.markCorrupt(ctx, s.st.db, rec.ID, pd, now, exp); err != nil {
		s.log.Error().Err(err).Str("job", rec.ID).Msg("mark corrupt job failed")
	}
	rec.State, rec.Error, rec.HasResult, rec.Corrupt = StateFailed, &pd, false, ""
	return rec
}
