package solver

import (
	"encoding/json"

	"github.com/bytedance/sonic"
)

// prebuilt is what a PreBuild problem's Decode hook makes of a body: the
// request, its instance and Build's error, which waits for Solve so that it
// is reported only for a body that passed validation.
type prebuilt[Req, In any] struct {
	Built[Req, In]
	err error
}

// predecode is every Typed problem's Problem.Decode: the Runner runs it on
// a second core while it validates the body, so decoding (and, with
// PreBuild, building) a multi-megabyte request is not taken from the
// budget (it was 0.3 s of a 50 ms budget for 100,000 CMMF users). Its
// value reaches Solve as Options.Decoded: a *Req, or a *prebuilt.
func (t Typed[Req, In]) predecode(raw json.RawMessage) (any, error) {
	req, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	if !t.PreBuild {
		return req, nil
	}
	b, err := t.build(req)
	return &prebuilt[Req, In]{Built: b, err: err}, nil
}

// decode parses raw with t.Decode, or Decode when t has none.
func (t Typed[Req, In]) decode(raw json.RawMessage) (*Req, error) {
	if t.Decode != nil {
		return t.Decode(raw)
	}
	req := new(Req)
	if err := Decode(raw, req); err != nil {
		return nil, err
	}
	return req, nil
}

// strictSonic decodes as Decode does (unknown fields refused; strings
// copied out of the body and checked to be UTF-8), with bytedance/sonic
// instead of encoding/json.
var strictSonic = sonic.Config{DisallowUnknownFields: true, CopyString: true, ValidateString: true}.Froze()

// DecodeSonic is a Typed.Decode hook for problems whose requests run to
// megabytes: the body decoded strictly, as Decode does, with
// bytedance/sonic (3-4x faster than encoding/json on typed decodes,
// benchmarks/json/RESULTS.md). The Runner runs it on a second core while it
// validates the body, so it sees unvalidated bytes and must return on any
// input; its value is used only when it succeeds, and on any error
// (including a string that is not UTF-8, which encoding/json would repair)
// Solve decodes the body again with Decode, so errors are encoding/json's.
func DecodeSonic[Req any](raw json.RawMessage) (*Req, error) {
	req := new(Req)
	if err := strictSonic.Unmarshal(raw, req); err != nil {
		return nil, err
	}
	return req, nil
}
