//go:build goexperiment.jsonv2

package jsonbench

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// Under GOEXPERIMENT=jsonv2 (Go 1.26 has encoding/json/v2 only there, and
// encoding/json itself then runs on the v2 engine) the table gains v2.
func init() { builders = append(builders, v2Candidates) }

// v2Candidates: encoding/json/v2 with the options closest to what xflex
// needs: unknown members refused; map keys sorted, HTML escaped and nil
// slices and maps written as null as encoding/json writes them. Its
// generic decode makes float64 numbers (v2 has no json.Number for any),
// so that row's "same result" compares values only after encoding.
func v2Candidates(f *Fixture) ([]Candidate, error) {
	return library{
		name: "encoding/json/v2",
		generic: func(b []byte) (any, error) {
			var v any
			err := jsonv2.Unmarshal(b, &v)
			return v, err
		},
		typed: func(b []byte, v any) error {
			return jsonv2.Unmarshal(b, v, jsonv2.RejectUnknownMembers(true))
		},
		marshal: func(v any) ([]byte, error) {
			return jsonv2.Marshal(v, jsonv2.Deterministic(true), jsontext.EscapeForHTML(true),
				jsonv2.FormatNilSliceAsNull(true), jsonv2.FormatNilMapAsNull(true))
		},
	}.candidates(f)
}
