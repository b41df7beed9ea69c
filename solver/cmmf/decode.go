package cmmf

import (
	"encoding/json"

	"github.com/bytedance/sonic"
)

// strictJSON decodes a request as solver.Decode does (unknown fields
// refused; strings copied out of the body and checked to be UTF-8), with
// bytedance/sonic instead of encoding/json: the typed decode of a
// 100,000-machine request (22 MB, 21 attributes a machine, decoded into
// maps) took 1.1 s CPU with encoding/json, the largest part of the request
// (benchmarks/cmmf/RESULTS.md; sonic measured 3–4x faster than
// encoding/json on typed decodes in benchmarks/json/RESULTS.md).
var strictJSON = sonic.Config{DisallowUnknownFields: true, CopyString: true, ValidateString: true}.Froze()

// decode is Problem.Decode: the Runner runs it on a second core while it
// validates the body, so it sees unvalidated bytes and must return on any
// input. Its value is used only when it succeeds; on any error Solve
// decodes the body again with solver.Decode, so errors are encoding/json's.
func decode(raw json.RawMessage) (*Request, error) {
	var req Request
	if err := strictJSON.Unmarshal(raw, &req); err != nil {
		return nil, err
	}
	return &req, nil
}
