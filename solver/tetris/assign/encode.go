package assign

import (
	"slices"

	"github.com/xflex/xflex/internal/jsonenc"
	"github.com/xflex/xflex/solver"
)

// AppendJSON implements solver.JSONAppender: json.Marshal's bytes, the
// assignments written here and the rest by solver.AppendGoJSON. The
// assignments are nearly all of a large answer (80,000 tasks: 14.8 MB),
// and goccy/go-json took about 100 ms for them on the loaded benchmark
// machine, twice a 50 ms budget, even for a timeout's answer so far
// (issue 28). TestAppendJSONMatchesMarshal and every response solvertest
// checks compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil || r.Assignments == nil {
		return solver.AppendGoJSON(dst, r)
	}
	size := 0
	for _, a := range r.Assignments {
		size += 160 + len(a.Task) + len(a.Job) + len(a.Machine)
	}
	dst = append(slices.Grow(dst, size), `{"assignments":[`...)
	var err error
	for i := range r.Assignments {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = r.Assignments[i].appendJSON(dst); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	// The other members as goccy writes them after `{"assignments":null`.
	rest := *r
	rest.Assignments = nil
	n := len(dst)
	if dst, err = solver.AppendGoJSON(dst, &rest); err != nil {
		return dst, err
	}
	return append(dst[:n], dst[n+len(`{"assignments":null`):]...), nil
}

// appendJSON appends a as json.Marshal writes it.
func (a *Assignment) appendJSON(dst []byte) ([]byte, error) {
	dst = jsonenc.String(append(dst, `{"task":`...), a.Task)
	dst = jsonenc.String(append(dst, `,"job":`...), a.Job)
	dst = jsonenc.String(append(dst, `,"machine":`...), a.Machine)
	var err error
	if dst, err = jsonenc.Float(append(dst, `,"alignment":`...), a.Alignment); err != nil {
		return dst, err
	}
	if dst, err = jsonenc.Float(append(dst, `,"score":`...), a.Score); err != nil {
		return dst, err
	}
	dst = jsonenc.Bool(append(dst, `,"remote":`...), a.Remote)
	dst = jsonenc.Bool(append(dst, `,"promoted":`...), a.Promoted)
	if dst, err = jsonenc.Float(append(dst, `,"share":`...), a.Share); err != nil {
		return dst, err
	}
	dst = jsonenc.Int(append(dst, `,"rank":`...), a.Rank)
	return append(dst, '}'), nil
}
