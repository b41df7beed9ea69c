package flex

import (
	"slices"

	gojson "github.com/goccy/go-json"

	"github.com/xflex/xflex/internal/jsonenc"
)

// envelopeBytes is room left after the result for what the envelope
// appends after it (meta, a few hundred bytes, and a newline), so that
// appending those does not copy the multi-megabyte body again.
const envelopeBytes = 1024

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r (a 100,000-job answer is 8-11 MB, which encoding/json took about
// 0.3 s to write), written by goccy/go-json: on a 20,000-job answer the
// hand-written writer it replaced was not 25% faster than the best
// library (sonic 0.95x its time, goccy 1.16x, encoding/json 1.49x;
// benchmarks/json/RESULTS.md), and one encoder serves every result.
// TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	b, err := gojson.Marshal(r)
	if err != nil {
		return dst, err
	}
	return append(slices.Grow(dst, len(b)+envelopeBytes), b...), nil
}

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
