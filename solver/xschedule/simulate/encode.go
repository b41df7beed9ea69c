package simulate

import "github.com/xflex/xflex/solver"

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: a
// long trace answers with megabytes of events and series, which
// goccy/go-json writes faster than encoding/json.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }
