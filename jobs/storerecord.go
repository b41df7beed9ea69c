package jobs

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/xflex/xflex/httpapi"
)

// A job row as the service reads it: its State and kind, the record type,
// and scanning a row into it (times stored as Unix microseconds).

// State is a job's lifecycle state, as reported by the API.
type State string

const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StateSucceeded State = "succeeded"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Terminal reports whether a job in state s will never change again.
func (s State) Terminal() bool {
	return s == StateSucceeded || s == StateFailed || s == StateCancelled
}

func validState(s string) bool {
	switch State(s) {
	case StateQueued, StateRunning, StateSucceeded, StateFailed, StateCancelled:
		return true
	}
	return false
}

// Kinds of job rows.
const (
	kindSolve    = "solve"    // one solve, a River job
	kindScenario = "scenario" // a base plus variants; its children are the solves
)

// record is one row of xflex_job without its input and result blobs.
type record struct {
	ID              string
	ParentID        string
	Variant         string
	Seq             int
	Client          string
	Tenant          string
	Problem         string
	Kind            string
	State           State
	Progress        Progress
	Error           *httpapi.ProblemDetails
	CancelRequested bool
	Attempts        int
	CreatedAt       time.Time
	StartedAt       *time.Time
	FinishedAt      *time.Time
	ExpiresAt       *time.Time
	RiverID         int64
	HasResult       bool
	// Corrupt names the part whose stored bytes failed their checksum
	// (partError here; Error is then nil) or, for partRow, that the state
	// or progress is not one the service writes; "" when all is well.
	Corrupt string
}

const recordCols = `id, parent_id, variant, seq, client, problem, kind, state, progress, error,
	cancel_requested, attempts, created_at, started_at, finished_at, expires_at, river_id,
	(CASE WHEN result IS NULL AND result_sha256 IS NULL THEN 0 ELSE 1 END), error_sha256, tenant`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(s scanner) (record, error) {
	var (
		r                                   record
		parent, variant                     sql.NullString
		progressJSON, state                 string
		errJSON, errSum                     []byte
		started, finished, expires, riverID sql.NullInt64
		cancel, hasResult                   int
		created                             int64
	)
	if err := s.Scan(&r.ID, &parent, &variant, &r.Seq, &r.Client, &r.Problem, &r.Kind, &state,
		&progressJSON, &errJSON, &cancel, &r.Attempts, &created, &started, &finished, &expires,
		&riverID, &hasResult, &errSum, &r.Tenant); err != nil {
		return r, err
	}
	r.ParentID, r.Variant, r.State = parent.String, variant.String, State(state)
	r.CancelRequested, r.HasResult = cancel != 0, hasResult != 0
	r.CreatedAt = fromMicros(created)
	r.StartedAt, r.FinishedAt, r.ExpiresAt = nullTime(started), nullTime(finished), nullTime(expires)
	r.RiverID = riverID.Int64
	if !validState(state) || json.Unmarshal([]byte(progressJSON), &r.Progress) != nil {
		r.State, r.Progress, r.Corrupt = StateFailed, Progress{Phase: "failed"}, partRow
	}
	if errJSON != nil || errSum != nil {
		r.Error = new(httpapi.ProblemDetails)
		if !intact(errJSON, errSum) || json.Unmarshal(errJSON, r.Error) != nil {
			r.Error, r.Corrupt = nil, partError
		}
	}
	return r, nil
}

// Times are stored as Unix microseconds (BIGINT) so both stores compare and
// order them the same way.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }
