package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// Submission: a validated POST /v1/jobs stored and queued in one
// transaction, within the quotas, with its Idempotency-Key.

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
