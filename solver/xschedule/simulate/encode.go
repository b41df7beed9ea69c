package simulate

import (
	"slices"

	gojson "github.com/goccy/go-json"
)

// AppendJSON implements solver.JSONAppender: a long trace answers with
// megabytes of events, requests and utilization points. goccy/go-json
// writes them faster than encoding/json, but into a buffer of its own
// that grows by copying (two thirds of the 10 MB answer's encoding time
// of a 20,000-request trace went to growing and copying it). So the
// result is written field by field, in json.Marshal's order, the long
// lists a chunk at a time, into dst grown once to an estimate of the
// answer. solvertest.Check compares the bytes with json.Marshal's on
// every test request, and TestEncodeFields that every field is written.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, r.sizeHint())
	dst = append(dst, '{')
	dst, err := appendRunFields(dst, &r.Run)
	if err != nil {
		return dst, err
	}
	if dst, err = appendList(append(dst, `,"imbalance":`...), r.Imbalance); err != nil {
		return dst, err
	}
	if dst, err = appendRun(append(dst, `,"baselines":{"drf":`...), &r.Baselines.DRF); err != nil {
		return dst, err
	}
	for _, b := range []struct {
		key string
		run *Run
	}{{`,"yarn_fair":`, r.Baselines.YarnFair}, {`,"yarn_capacity":`, r.Baselines.YarnCapacity}} {
		if b.run == nil {
			continue
		}
		if dst, err = appendRun(append(dst, b.key...), b.run); err != nil {
			return dst, err
		}
	}
	return append(dst, "}}"...), nil
}

// itemBytes is about what one listed item (an event, a request's
// outcome, a utilization point, a packed container) takes in the answer:
// the buffer is grown once to the items times it.
const itemBytes = 160

// sizeHint estimates the answer's length from its items.
func (r *Result) sizeHint() int {
	n := r.Run.items()
	for _, s := range r.Imbalance {
		n += len(s.Points)
	}
	n += r.Baselines.DRF.items()
	for _, b := range []*Run{r.Baselines.YarnFair, r.Baselines.YarnCapacity} {
		if b != nil {
			n += b.items()
		}
	}
	return n * itemBytes
}

func (r *Run) items() int {
	n := len(r.Requests) + len(r.Events) + len(r.Utilization.Points) + len(r.Apps) + len(r.Masters)
	for _, node := range r.Packing {
		n += 1 + len(node.Containers)
	}
	return n
}

// appendRun writes a run as an object.
func appendRun(dst []byte, r *Run) ([]byte, error) {
	dst, err := appendRunFields(append(dst, '{'), r)
	return append(dst, '}'), err
}

// appendRunFields writes a run's fields (without braces), in Run's
// field order; Masters is omitted when empty (omitempty).
func appendRunFields(dst []byte, r *Run) ([]byte, error) {
	var err error
	for _, f := range []struct {
		key string
		put func([]byte) ([]byte, error)
	}{
		{`"until":`, func(b []byte) ([]byte, error) { return appendValue(b, r.Until) }},
		{`,"ended":`, func(b []byte) ([]byte, error) { return appendValue(b, r.Ended) }},
		{`,"summary":`, func(b []byte) ([]byte, error) { return appendValue(b, r.Summary) }},
		{`,"apps":`, func(b []byte) ([]byte, error) { return appendList(b, r.Apps) }},
		{`,"requests":`, func(b []byte) ([]byte, error) { return appendList(b, r.Requests) }},
		{`,"events":`, func(b []byte) ([]byte, error) { return appendList(b, r.Events) }},
		{`,"events_dropped":`, func(b []byte) ([]byte, error) { return appendValue(b, r.Dropped) }},
		{`,"utilization":{"points":`, func(b []byte) ([]byte, error) {
			b, err := appendList(b, r.Utilization.Points)
			if err != nil {
				return b, err
			}
			b = append(b, `,"truncated":`...)
			b, err = appendValue(b, r.Utilization.Truncated)
			return append(b, '}'), err
		}},
		{`,"packing":`, func(b []byte) ([]byte, error) { return appendList(b, r.Packing) }},
	} {
		if dst, err = f.put(append(dst, f.key...)); err != nil {
			return dst, err
		}
	}
	if len(r.Masters) > 0 {
		return appendList(append(dst, `,"masters":`...), r.Masters)
	}
	return dst, nil
}

// listChunk is how many items of a list goccy/go-json writes at once:
// its buffer stays small and dst takes the bytes.
const listChunk = 256

// appendList writes xs as json.Marshal does (nil: null), a chunk of
// items at a time.
func appendList[T any](dst []byte, xs []T) ([]byte, error) {
	if xs == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i := 0; i < len(xs); i += listChunk {
		b, err := gojson.Marshal(xs[i:min(i+listChunk, len(xs))])
		if err != nil {
			return dst, err
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, b[1:len(b)-1]...)
	}
	return append(dst, ']'), nil
}

// appendValue writes v as json.Marshal does.
func appendValue(dst []byte, v any) ([]byte, error) {
	b, err := gojson.Marshal(v)
	return append(dst, b...), err
}
