package assign

import "github.com/xflex/xflex/solver"

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: a
// 10,000-task round answers with 4.3 MB. TestAppendJSONMatchesMarshal and
// every response solvertest checks compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }
