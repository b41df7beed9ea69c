package jobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/xflex/xflex/httpapi"
)

// Every stored input, result and error document is kept with its SHA-256
// (columns input_sha256, result_sha256, error_sha256) and checked on every
// read, so bytes damaged on disk are never solved or served: SQLite's
// quick_check verifies the b-trees, not the payloads (issue 15 served 10
// of 50 results as 200 with invalid JSON after 200x64 random bytes were
// written into the file).
//
// Rows written before the checksums existed, or by an older replica
// during a rolling upgrade, have none; their bytes are only required to
// be valid JSON. Such rows are removed with their retention, so the
// weaker check ends by itself and no start has to rescan the store.

// digest returns the checksum stored beside b.
func digest(b []byte) []byte {
	d := sha256.Sum256(b)
	return d[:]
}

// intact reports whether stored bytes match their stored checksum (for
// rows without one: whether they are JSON).
func intact(b, sum []byte) bool {
	if sum == nil {
		return b != nil && json.Valid(b)
	}
	d := sha256.Sum256(b)
	return bytes.Equal(sum, d[:])
}

// Parts of a job row that carry a checksum, as named in logs and errors.
const (
	partInput  = "input"
	partResult = "result"
	partError  = "error document"
	// partRow: the state or progress column holds what no code writes.
	partRow = "state or progress"
)

// corruptProblem is the error a job gets when its stored part fails its
// checksum: a server-side fault (500) that resubmitting works around.
func corruptProblem(rec record, part string) httpapi.ProblemDetails {
	return httpapi.ProblemDetails{
		Type:   httpapi.TypeBase + "corrupt_store",
		Title:  "Stored job data corrupted",
		Status: http.StatusInternalServerError,
		Detail: fmt.Sprintf("the stored %s of job %s is damaged (it fails its SHA-256 checksum or does not decode), "+
			"so it is not used; the job is marked failed; submit it again and check the store's disk", part, rec.ID),
		Instance: "/v1/" + rec.Problem,
	}
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
