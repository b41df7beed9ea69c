package assign

import (
	"slices"

	gojson "github.com/goccy/go-json"
)

// envelopeBytes is room left after the result for what the envelope
// appends after it (meta, a few hundred bytes, and a newline), so that
// appending those does not copy the multi-megabyte body again.
const envelopeBytes = 1024

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r, written by goccy/go-json: on the 4.3 MB answer to a 10,000-task
// round the hand-written writer it replaced took 1.03x its time, not the
// 25% less that would keep it, and encoding/json 1.96x
// (benchmarks/json/RESULTS.md).
// TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	b, err := gojson.Marshal(r)
	if err != nil {
		return dst, err
	}
	return append(slices.Grow(dst, len(b)+envelopeBytes), b...), nil
}
