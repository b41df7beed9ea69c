package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
)

// Storing a solve's final state (finish) and, once a scenario's last
// variant is done, the scenario's own result: the comparison table.

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
