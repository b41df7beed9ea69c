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
	// MaxRunningPerClient caps a client's simultaneously running solves
	// (a scenario's variants count one each); further solves wait.
	MaxRunningPerClient int
	// MaxQueuedPerClient caps a client's waiting jobs: a submission is
	// refused with 429 when the client already has MaxRunningPerClient +
	// MaxQueuedPerClient jobs queued or running.
	MaxQueuedPerClient int
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
}

// Defaults.
const (
	DefaultRetention           = 24 * time.Hour
	DefaultMaxRunningPerClient = 4
	DefaultMaxQueuedPerClient  = 100
	DefaultMaxVariants         = 32
	DefaultRescueGrace         = 30 * time.Second
	DefaultPollInterval        = 500 * time.Millisecond
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
	if c.Retention <= 0 {
		c.Retention = DefaultRetention
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.MaxRunningPerClient <= 0 {
		c.MaxRunningPerClient = DefaultMaxRunningPerClient
	}
	if c.MaxQueuedPerClient <= 0 {
		c.MaxQueuedPerClient = DefaultMaxQueuedPerClient
	}
	if c.MaxVariants <= 0 {
		c.MaxVariants = DefaultMaxVariants
	}
	if c.RescueGrace <= 0 {
		c.RescueGrace = DefaultRescueGrace
	}
	if c.HeartbeatTimeout <= 0 {
		c.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	return c
}

// Flags registers the job flags of `xflex serve` (--store and the --job-*
// knobs) on fs and returns the Config they fill.
func Flags(fs *flag.FlagSet) *Config {
	c := &Config{}
	fs.StringVar(&c.Store, "store", DefaultStore, "job store: sqlite:PATH or a postgres:// URL")
	fs.DurationVar(&c.Retention, "job-retention", DefaultRetention, "how long finished jobs and results are kept")
	fs.IntVar(&c.Workers, "job-workers", 0, "simultaneous job solves on this replica (0: number of CPUs)")
	fs.IntVar(&c.MaxRunningPerClient, "job-client-running", DefaultMaxRunningPerClient, "running solves per client")
	fs.IntVar(&c.MaxQueuedPerClient, "job-client-queue", DefaultMaxQueuedPerClient, "queued jobs per client beyond the running ones (429 beyond)")
	fs.IntVar(&c.MaxVariants, "job-max-variants", DefaultMaxVariants, "variants per scenario job")
	fs.DurationVar(&c.HeartbeatTimeout, "job-heartbeat-timeout", DefaultHeartbeatTimeout, "a running job whose worker has not renewed its heartbeat for this long is requeued (its process died)")
	fs.DurationVar(&c.RescueGrace, "job-rescue-grace", DefaultRescueGrace, "added to --max-budget before River requeues a job fetched by a process that died before starting it")
	fs.DurationVar(&c.PollInterval, "job-poll", DefaultPollInterval, "how often workers poll for jobs and cancellations")
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
}

// runningJob lets a DELETE on this replica stop a solve at once.
type runningJob struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
	// lost is set when the job was rescued from under this worker (its
	// heartbeat stalled): the solve is stopped and its outcome dropped.
	lost atomic.Bool
}

// errLimit is the typed error the HTTP layer maps to 429.
var errLimit = errors.New("job limit reached")

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
	return w.svc.work(ctx, job.Args.JobID, job.ID, job.Attempt >= job.MaxAttempts)
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
	rj := &runningJob{cancel: cancel}
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
	start := time.Now()
	stopMonitor := s.monitor(jctx, id, attempt, rj, rep, start, budget)

	resp, runErr := s.runner.Run(jctx, rec.Problem, input)
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
			if budget > 0 {
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
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// budgetOf reads budget_ms from a request the way the runner does.
func (s *Service) budgetOf(input []byte) time.Duration {
	var c struct {
		BudgetMS *int64 `json:"budget_ms"`
	}
	b := solver.DefaultBudget
	if json.Unmarshal(input, &c) == nil && c.BudgetMS != nil && *c.BudgetMS > 0 {
		b = time.Duration(*c.BudgetMS) * time.Millisecond
	}
	if s.runner.MaxBudget > 0 && b > s.runner.MaxBudget {
		b = s.runner.MaxBudget
	}
	return b
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
	if rec.ParentID != "" {
		return s.finalizeScenario(ctx, rec.ParentID)
	}
	return nil
}

// finalizeScenario updates a scenario's progress from its variants and,
// once every variant is terminal, stores the comparison table as its
// result. Safe to call concurrently from several replicas: the parent row
// is locked and finishTx only changes a non-terminal job.
func (s *Service) finalizeScenario(ctx context.Context, parentID string) error {
	return s.st.withTx(ctx, func(tx *sql.Tx) error {
		if err := s.st.lockClient(ctx, tx, "scenario:"+parentID); err != nil {
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

// submit stores a job (a single solve when spec is nil, otherwise a
// scenario over inputs) and queues its solves, atomically.
func (s *Service) submit(ctx context.Context, client, problem string, inputs []variantInput, spec []byte) (record, error) {
	now := s.now()
	id := newID(now)
	err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		if err := s.st.lockClient(ctx, tx, client); err != nil {
			return err
		}
		n, err := s.st.activeTx(ctx, tx, client)
		if err != nil {
			return err
		}
		if n >= s.cfg.MaxRunningPerClient+s.cfg.MaxQueuedPerClient {
			return errLimit
		}
		var solves []string
		if spec == nil {
			if err := s.st.insertTx(ctx, tx, newRow{ID: id, Client: client, Problem: problem, Kind: kindSolve,
				Input: inputs[0].Input, CreatedAt: now}); err != nil {
				return err
			}
			solves = append(solves, id)
		} else {
			if err := s.st.insertTx(ctx, tx, newRow{ID: id, Client: client, Problem: problem, Kind: kindScenario,
				Input: spec, CreatedAt: now}); err != nil {
				return err
			}
			for i, in := range inputs {
				cid := fmt.Sprintf("%s.%d", id, i)
				if err := s.st.insertTx(ctx, tx, newRow{ID: cid, ParentID: id, Variant: in.Name, Seq: i,
					Client: client, Problem: problem, Kind: kindSolve, Input: in.Input, CreatedAt: now}); err != nil {
					return err
				}
				solves = append(solves, cid)
			}
		}
		return s.queueTx(ctx, tx, solves)
	})
	if err != nil {
		return record{}, err
	}
	return s.st.get(ctx, id)
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
	for _, r := range rescued {
		s.log.Warn().Str("job", r.ID).Int("attempts", r.Attempts).Dur("heartbeat_timeout", s.cfg.HeartbeatTimeout).
			Msg("running job lost its worker (no heartbeat): requeued")
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
