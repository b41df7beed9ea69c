package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// The worker side of a job: the River job and worker that run one solve
// attempt (work), its monitor storing progress and heartbeats, and the
// outcome it records.

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
