package flex

import (
	"slices"

	"github.com/xflex/xflex/solver/jsonenc"
)

// Bytes of JSON around the strings of each kind of entry (keys,
// punctuation, numbers of up to 24 characters), rounded up: sizeHint
// overestimates rather than reallocate a multi-megabyte body at its end.
const (
	orderingBytes  = 3
	slotBytes      = 12
	intervalBytes  = 80
	jobBytes       = 90
	candidateBytes = 70
	fixedBytes     = 1024 // scalars, baselines, and the envelope's meta after it
)

// sizeHint estimates the encoded size of r.
func (r *Result) sizeHint() int {
	n := fixedBytes + len(r.Metric) + len(r.Aggregate) + len(r.OrderingSource) + len(r.RAPMethod)
	for _, id := range r.Ordering {
		n += orderingBytes + len(id)
	}
	for i := range r.Intervals {
		n += intervalBytes
		for _, e := range r.Intervals[i].Slots {
			n += slotBytes + len(e.ID)
		}
	}
	for i := range r.Jobs {
		n += jobBytes + len(r.Jobs[i].ID)
	}
	for i := range r.Candidates {
		n += candidateBytes + len(r.Candidates[i].Source)
	}
	return n
}

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r, written without reflection (a 100,000-job answer is 11 MB, which
// encoding/json took about 0.3 s to write: most of a small budget). Fields
// follow the struct declarations; TestAppendJSONMatchesMarshal and every
// response solvertest checks compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil {
		return append(dst, "null"...), nil
	}
	w := jsonenc.Writer{B: slices.Grow(dst, r.sizeHint())}
	w.Open('{')
	w.Key("objective")
	w.Float(r.Objective)
	w.Key("metric")
	w.String(r.Metric)
	w.Key("aggregate")
	w.String(r.Aggregate)
	w.Key("ordering")
	jsonenc.Slice(&w, r.Ordering, func(s *string, w *jsonenc.Writer) { w.String(*s) })
	w.Key("ordering_source")
	w.String(r.OrderingSource)
	w.Key("mps_optimal")
	w.Bool(r.MPSOptimal)
	w.Key("optimal")
	w.Bool(r.Optimal)
	w.Key("rap_method")
	w.String(r.RAPMethod)
	w.Key("intervals")
	jsonenc.Slice(&w, r.Intervals, (*IntervalOut).write)
	w.Key("intervals_truncated")
	w.Bool(r.IntervalsCut)
	w.Key("jobs")
	jsonenc.Slice(&w, r.Jobs, (*JobOut).write)
	w.Key("baselines")
	w.Open('{')
	w.Key("fifo")
	r.Baselines.FIFO.write(&w)
	w.Key("fair")
	r.Baselines.Fair.write(&w)
	w.Close('}')
	w.Key("candidates")
	jsonenc.Slice(&w, r.Candidates, (*CandOut).write)
	w.Close('}')
	return w.B, w.Err
}

func (o *IntervalOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("start")
	w.Float(o.Start)
	w.Key("end")
	w.Float(o.End)
	w.Key("slots")
	// The last member: Close after it places no comma.
	w.B = o.Slots.appendJSON(w.B)
	w.Close('}')
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

func (j *JobOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("id")
	w.String(j.ID)
	w.Key("completion")
	w.Float(j.Completion)
	w.Key("penalty")
	w.Float(j.Penalty)
	w.Close('}')
}

func (b *Baseline) write(w *jsonenc.Writer) {
	w.Open('{')
	if b.Objective != nil {
		w.Key("objective")
		w.Float(*b.Objective)
	}
	if b.Ratio != nil {
		w.Key("ratio")
		w.Float(*b.Ratio)
	}
	if b.Skipped {
		w.Key("skipped")
		w.Bool(true)
	}
	w.Close('}')
}

func (c *CandOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("source")
	w.String(c.Source)
	w.Key("objective")
	w.Float(c.Objective)
	w.Close('}')
}
