package cmmf

import "github.com/xflex/xflex/solver"

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: 100,000
// users answer with 18 to 33 MB, which json.Marshal took 0.7 s to write.
// TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }
