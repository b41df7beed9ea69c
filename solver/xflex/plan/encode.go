package plan

import (
	"encoding/json"
	"slices"
)

// AppendJSON writes the plan's result as json.Marshal does (solver.
// JSONAppender), but copies the stages' requests and answers as they
// are: they are already compact JSON written by json.Marshal (the
// requests) and by the stages' Runner (the answers), which json.Marshal
// would scan and copy again, tens of megabytes for a 20,000-request
// simulation. solvertest.Check compares the two on every test request.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if err := r.marshalErr(); err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, r.stageBytes()+planSlack)
	dst = append(dst, `{"stages":{`...)
	n := 0
	for _, st := range []struct {
		key string
		run *StageRun
	}{{"xsize", r.Stages.XSize}, {"xselect", r.Stages.XSelect}, {"simulate", r.Stages.Simulate}} {
		if st.run == nil {
			continue
		}
		if n++; n > 1 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), st.key...), `":`...)
		var err error
		if dst, err = st.run.appendJSON(dst); err != nil {
			return dst, err
		}
	}
	if r.Stages.Cut != "" {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, `"cut":`, r.Stages.Cut)
	}
	dst = append(dst, '}')
	if r.Mix != nil {
		dst = appendField(dst, `,"mix":`, r.Mix)
	}
	dst = appendField(dst, `,"trace":`, r.Trace)
	dst = appendField(dst, `,"summary":`, r.Summary)
	return append(dst, '}'), nil
}

// planSlack is room for what the plan writes beside its stages' bytes
// (the mix, the trace's figures, the summary: kilobytes).
const planSlack = 64 << 10

// stageBytes is the length of the stages' requests and answers, which
// AppendJSON copies: dst is grown once for them rather than by copying
// the megabytes written so far at each growth.
func (r *Result) stageBytes() int {
	n := 0
	for _, st := range []*StageRun{r.Stages.XSize, r.Stages.XSelect, r.Stages.Simulate} {
		if st != nil {
			n += len(st.Request) + len(st.Response) + len(st.Incumbent)
		}
	}
	return n
}

// appendJSON writes one stage, its request and answer verbatim.
func (s *StageRun) appendJSON(dst []byte) ([]byte, error) {
	dst = appendField(dst, `{"endpoint":`, s.Endpoint)
	dst = appendField(dst, `,"status":`, s.Status)
	dst = append(append(dst, `,"request":`...), s.Request...)
	if len(s.Response) > 0 {
		dst = append(append(dst, `,"response":`...), s.Response...)
	}
	if len(s.Incumbent) > 0 {
		dst = append(append(dst, `,"incumbent":`...), s.Incumbent...)
	}
	return append(dst, '}'), nil
}

// appendField writes key and v as json.Marshal writes v; a value
// json.Marshal refuses (a NaN) writes null and is reported by
// marshalErr, as json.Marshal would fail the whole result.
func appendField(dst []byte, key string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	return append(append(dst, key...), b...)
}

// marshalErr is the first error json.Marshal gives on the parts
// AppendJSON marshals (they are small).
func (r *Result) marshalErr() error {
	for _, v := range []any{r.Mix, r.Trace, r.Summary} {
		if _, err := json.Marshal(v); err != nil {
			return err
		}
	}
	return nil
}
