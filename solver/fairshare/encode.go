package fairshare

import (
	"slices"

	gojson "github.com/goccy/go-json"
)

// envelopeBytes is room left after the result for what the envelope
// appends after it (meta, a few hundred bytes, and a newline), so that
// appending those does not copy the multi-megabyte body again.
const envelopeBytes = 1024

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r (the answer for 100,000 frameworks is 5 MB, which encoding/json
// took about 45 ms to write, most of a 50 ms budget's slack), written by
// goccy/go-json as the other large results are (benchmarks/json/RESULTS.md).
// TestAppendJSONMatchesMarshal and every solvertest check compare the two.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	b, err := gojson.Marshal(r)
	if err != nil {
		return dst, err
	}
	return append(slices.Grow(dst, len(b)+envelopeBytes), b...), nil
}
