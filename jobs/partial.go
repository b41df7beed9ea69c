package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// A running job's best answer so far (issue 20). A solver that can offers
// its incumbent through progress.Offer; the worker's monitor encodes the
// latest one as a response, marked partial, and stores it with the
// heartbeat (column partial, checksummed like a result), so any replica
// serves it at GET /v1/jobs/{id}/result?partial=true. Finishing the job
// clears it: the final result replaces it.

// partialNote is the note every partial answer carries.
const partialNote = "partial: the best answer so far of a solve still running; the job's result replaces it once the job finishes"

// partialMeta is a partial answer's meta: the Runner's meta fields and
// partial: true. Its status is feasible (an answer that holds, not yet
// the solve's last word), keeping meta.status to its documented values.
type partialMeta struct {
	solver.Meta
	Partial bool `json:"partial"`
}

// partialEncoder encodes a running job's incumbents as responses. The
// input's hash and settings are read once, at the first incumbent.
type partialEncoder struct {
	runner *solver.Runner
	input  []byte
	start  time.Time

	ready    bool
	sum      string
	settings solver.Settings
}

// encode returns the response body for inc: {"result": ..., "meta":
// {... "partial": true}}, with elapsed_ms from the attempt's start.
func (e *partialEncoder) encode(inc progress.Incumbent) ([]byte, error) {
	if !e.ready {
		doc, err := solver.DecodeAny(e.input)
		if err != nil {
			return nil, err
		}
		if e.sum, err = solver.CanonicalHash(doc); err != nil {
			return nil, err
		}
		e.settings, _ = e.runner.Settings(doc)
		e.ready = true
	}
	m := partialMeta{Partial: true, Meta: solver.Meta{
		Status: solver.StatusFeasible, Objective: inc.Objective, Bound: inc.Bound, Solver: inc.Solver,
		ElapsedMS: float64(time.Since(e.start).Microseconds()) / 1000, Version: solver.Version, InputSHA256: e.sum,
		BudgetMS: e.settings.Budget.Milliseconds(), Seed: e.settings.Seed, Notes: []string{partialNote},
	}}
	if inc.Objective != nil && inc.Bound != nil {
		m.Meta.SetBound(*inc.Bound) // SetBound keeps the gap in step
	}
	b, err := json.Marshal(struct {
		Result any         `json:"result"`
		Meta   partialMeta `json:"meta"`
	}{inc.Result, m})
	return append(b, '\n'), err
}

// setPartial stores a running attempt's partial answer; a job no longer
// running under that attempt is left alone.
func (s *store) setPartial(ctx context.Context, id string, attempt int, body []byte) error {
	_, err := s.exec(ctx, `UPDATE xflex_job SET partial = ?, partial_sha256 = ?
		WHERE id = ? AND state = 'running' AND attempts = ?`, body, digest(body), id, attempt)
	return err
}

// partial returns a job's stored partial answer: nil when there is none,
// errCorrupt when it fails its checksum.
func (s *store) partial(ctx context.Context, id string) ([]byte, error) {
	var b, sum []byte
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT partial, partial_sha256 FROM xflex_job WHERE id = ?`), id).Scan(&b, &sum)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, errNotFound
	case err != nil:
		return nil, err
	case b == nil && sum == nil:
		return nil, nil
	case !intact(b, sum):
		return nil, errCorrupt
	}
	return b, nil
}

// storePartial encodes and stores an incumbent; a failure is logged and
// the solve goes on (the next incumbent may be stored).
func (s *Service) storePartial(ctx context.Context, id string, attempt int, enc *partialEncoder, inc progress.Incumbent) {
	body, err := enc.encode(inc)
	if err == nil {
		err = s.st.setPartial(ctx, id, attempt, body)
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn().Err(err).Str("job", id).Msg("store the partial answer")
	}
}

// parsePartial reads the partial query parameter (absent: false).
func parsePartial(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("partial %q is not true or false", v)
	}
	return b, nil
}

// writePartial answers GET .../result?partial=true for a job not
// finished: its stored partial answer with X-Xflex-Partial: true, or a
// 409 saying there is none yet (a queued job, a solver that has not
// offered one yet, or a problem whose solver offers none).
func (h *handlers) writePartial(w http.ResponseWriter, r *http.Request, rec record) {
	body, err := h.svc.st.partial(r.Context(), rec.ID)
	if err != nil && !errors.Is(err, errNotFound) {
		h.internal(w, r, err)
		return
	}
	if body == nil {
		w.Header().Set("Retry-After", "1")
		httpapi.SimpleProblem(w, r, http.StatusConflict, "no_partial", "No partial answer",
			"job "+rec.ID+" is "+string(rec.State)+" and its solver has offered no answer yet ("+rec.Problem+
				" may offer none before it finishes); wait with "+jobPath(rec.ID)+"?wait=30s")
		return
	}
	w.Header().Set("X-Xflex-Partial", "true")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
