package jobs

import (
	"context"
	"database/sql"
	"errors"
)

// A finished job's picture (GET .../result with Accept: image/svg+xml) is
// drawn once and kept in xflex_picture beside the job, with its SHA-256,
// until the job's retention removes both (ON DELETE CASCADE): a finished
// job's input and result never change, so neither does its picture.

// createPicturesTable holds the drawn pictures of finished jobs.
func (d dialect) createPicturesTable() string {
	blob := d.blob()
	return `CREATE TABLE IF NOT EXISTS xflex_picture (
			job_id TEXT PRIMARY KEY REFERENCES xflex_job (id) ON DELETE CASCADE,
			svg ` + blob + ` NOT NULL,
			svg_sha256 ` + blob + ` NOT NULL
		)`
}

// picture returns job id's stored picture; ok is false when none is
// stored or the stored one fails its checksum (it is then drawn again).
func (s *store) picture(ctx context.Context, id string) (svg []byte, ok bool, err error) {
	var sum []byte
	err = s.db.QueryRowContext(ctx, s.d.rebind(`SELECT svg, svg_sha256 FROM xflex_picture WHERE job_id = ?`), id).Scan(&svg, &sum)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case sum == nil || !intact(svg, sum):
		return nil, false, nil
	}
	return svg, true, nil
}

// putPicture stores job id's picture, replacing one that failed its
// checksum.
func (s *store) putPicture(ctx context.Context, id string, svg []byte) error {
	_, err := s.exec(ctx, `INSERT INTO xflex_picture (job_id, svg, svg_sha256) VALUES (?, ?, ?)
		ON CONFLICT (job_id) DO UPDATE SET svg = excluded.svg, svg_sha256 = excluded.svg_sha256`, id, svg, digest(svg))
	return err
}

// drawnBytes is the size of what drawing job id's picture reads: the
// stored inputs and results of the job and, for a scenario, of its
// variants.
func (s *store) drawnBytes(ctx context.Context, id string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COALESCE(SUM(LENGTH(input) + COALESCE(LENGTH(result), 0)), 0)
		FROM xflex_job WHERE id = ? OR parent_id = ?`), id, id).Scan(&n)
	return n, err
}

// addPictureBytes adds the bytes of the tenant's stored pictures to n: they
// count in its byte quota (--job-tenant-bytes) like its inputs and results.
func (s *store) addPictureBytes(ctx context.Context, q querier, tenant string, n *int64) error {
	var b int64
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT CAST(COALESCE(SUM(LENGTH(p.svg)), 0) AS BIGINT)
		FROM xflex_picture p JOIN xflex_job j ON j.id = p.job_id WHERE j.tenant = ?`), tenant).Scan(&b)
	*n += b
	return err
}
