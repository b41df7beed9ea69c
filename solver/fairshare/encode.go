package fairshare

import "github.com/xflex/xflex/solver"

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: the
// answer for 100,000 frameworks is 5 MB, which encoding/json took about
// 45 ms to write, most of a 50 ms budget's slack.
// TestAppendJSONMatchesMarshal and every solvertest check compare the two.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }
