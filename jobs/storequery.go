package jobs

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Reading jobs: one row, its checked input or result, a scenario's
// children, and the pages of GET /v1/jobs with their cursors.

func (s *store) get(ctx context.Context, id string) (record, error) {
	row := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job WHERE id = ?`), id)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

func (s *store) getTx(ctx context.Context, tx *sql.Tx, id string) (record, error) {
	row := tx.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job WHERE id = ?`), id)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

// variant finds a scenario child by its parent and variant name.
func (s *store) variant(ctx context.Context, parentID, name string) (record, error) {
	row := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT `+recordCols+` FROM xflex_job
		WHERE parent_id = ? AND variant = ?`), parentID, name)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

// errCorrupt is returned for stored bytes that fail their checksum.
var errCorrupt = errors.New("stored bytes fail their checksum")

// input returns a job's input, errCorrupt when it fails its checksum.
func (s *store) input(ctx context.Context, q querier, id string) ([]byte, error) {
	return s.checked(ctx, q, id, "input")
}

// result returns a job's result, errCorrupt when it fails its checksum.
func (s *store) result(ctx context.Context, id string) ([]byte, error) {
	return s.checked(ctx, s.db, id, "result")
}

// checked reads column col (input or result) and verifies it against
// col_sha256.
func (s *store) checked(ctx context.Context, q querier, id, col string) ([]byte, error) {
	var b, sum []byte
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT `+col+`, `+col+`_sha256 FROM xflex_job WHERE id = ?`), id).Scan(&b, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	if !intact(b, sum) {
		return nil, errCorrupt
	}
	return b, nil
}

// childrenTx lists a scenario's children in variant order, with their
// results when withResults is set (a result that fails its checksum is
// left out and its record's Corrupt set). q is the transaction in
// progress, or the pool for a plain read.
func (s *store) childrenTx(ctx context.Context, q querier, parentID string, withResults bool) ([]record, [][]byte, error) {
	res := "NULL, NULL"
	if withResults {
		res = "result, result_sha256"
	}
	rows, err := q.QueryContext(ctx, s.d.rebind(`SELECT `+recordCols+`, `+res+` FROM xflex_job
		WHERE parent_id = ? ORDER BY seq`), parentID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var recs []record
	var results [][]byte
	for rows.Next() {
		var res, sum []byte
		r, err := scanRecord(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &res, &sum)...) }))
		if err != nil {
			return nil, nil, err
		}
		if withResults && r.HasResult && !intact(res, sum) {
			r.Corrupt, res = partResult, nil
		}
		recs = append(recs, r)
		results = append(results, res)
	}
	return recs, results, rows.Err()
}

// listFilter selects top-level jobs for GET /v1/jobs.
type listFilter struct {
	States        []State
	Problem       string
	Client        string
	Tenant        string
	Kind          string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	Limit         int
	// Cursor continues a previous page: jobs strictly older than it in
	// (created_at, id) order.
	Cursor *cursor
}

type cursor struct {
	CreatedAt int64
	ID        string
}

func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt, 10) + ":" + c.ID))
}

func decodeCursor(s string) (*cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("malformed cursor")
	}
	ts, id, ok := strings.Cut(string(b), ":")
	us, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || id == "" {
		return nil, errors.New("malformed cursor")
	}
	return &cursor{CreatedAt: us, ID: id}, nil
}

// list returns one page, newest first, and the cursor of the next page
// ("" on the last page).
func (s *store) list(ctx context.Context, f listFilter) ([]record, string, error) {
	where := []string{"parent_id IS NULL"}
	var args []any
	if len(f.States) > 0 {
		ph := make([]string, len(f.States))
		for i, st := range f.States {
			ph[i] = "?"
			args = append(args, string(st))
		}
		where = append(where, "state IN ("+strings.Join(ph, ", ")+")")
	}
	for _, c := range []struct{ col, val string }{{"problem", f.Problem}, {"client", f.Client}, {"tenant", f.Tenant}, {"kind", f.Kind}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if f.CreatedAfter != nil {
		where = append(where, "created_at >= ?")
		args = append(args, micros(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		where = append(where, "created_at < ?")
		args = append(args, micros(*f.CreatedBefore))
	}
	if f.Cursor != nil {
		where = append(where, "(created_at < ? OR (created_at = ? AND id < ?))")
		args = append(args, f.Cursor.CreatedAt, f.Cursor.CreatedAt, f.Cursor.ID)
	}
	args = append(args, f.Limit+1)
	q := `SELECT ` + recordCols + ` FROM xflex_job WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, "", fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > f.Limit {
		out = out[:f.Limit]
		last := out[len(out)-1]
		next = cursor{CreatedAt: micros(last.CreatedAt), ID: last.ID}.encode()
	}
	return out, next, nil
}
