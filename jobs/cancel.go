package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/riverqueue/river"
)

// Cancellation: DELETE /v1/jobs/{id} on a queued or running job or scenario.

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
