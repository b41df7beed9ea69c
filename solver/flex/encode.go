package flex

import (
	"github.com/xflex/xflex/internal/jsonenc"
	"github.com/xflex/xflex/solver"
)

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: a
// 100,000-job answer is 8-11 MB, which encoding/json took about 0.3 s to
// write. TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }

// MarshalJSON writes s as a JSON object from job id to slots (null when
// nil, as a nil map).
func (s Slots) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s Slots) appendJSON(dst []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for i, e := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonenc.String(dst, e.ID)
		dst = append(dst, ':')
		dst = jsonenc.Int(dst, e.Slots)
	}
	return append(dst, '}')
}
