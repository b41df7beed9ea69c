package cmmf

import (
	"slices"

	"github.com/xflex/xflex/internal/jsonenc"
)

// Bytes of JSON per entry of each kind (keys, punctuation, numbers of up
// to 24 characters) besides its strings, rounded up: sizeHint
// overestimates rather than regrow a body of tens of megabytes.
const (
	userBytes  = 100
	entryBytes = 28
	totalBytes = 50
	fixedBytes = 1024 // the scalars, and the envelope's meta after them
)

// sizeHint estimates the encoded size of r.
func (r *Result) sizeHint() int {
	n := fixedBytes + entryBytes*len(r.Leximin)
	for i := range r.Users {
		u := &r.Users[i]
		n += userBytes + len(u.Name)
		for k := range u.Allocation {
			n += entryBytes + len(k)
		}
	}
	for _, ts := range [][]Total{r.Choosy.Users, r.Independent.Users} {
		for i := range ts {
			n += totalBytes + len(ts[i].Name)
		}
	}
	for i := range r.Rounds {
		n += entryBytes
		for _, s := range r.Rounds[i].Frozen {
			n += len(s) + 3
		}
		for _, s := range r.Rounds[i].Capped {
			n += len(s) + 3
		}
	}
	for k, v := range r.Assignment {
		n += len(k) + len(v) + 6
	}
	return n
}

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r, written without reflection (100,000 users answer with 18 to 33
// MB, which json.Marshal took 0.7 s to write). Fields follow the struct
// declarations; TestAppendJSONMatchesMarshal and every response
// solvertest checks compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil {
		return append(dst, "null"...), nil
	}
	w := jsonenc.Writer{B: slices.Grow(dst, r.sizeHint())}
	w.Open('{')
	w.Key("divisible")
	w.Bool(r.Divisible)
	w.Key("users")
	jsonenc.Slice(&w, r.Users, (*UserResult).write)
	w.Key("rounds")
	jsonenc.Slice(&w, r.Rounds, (*RoundOut).write)
	w.Key("moved")
	w.Float(r.Moved)
	if len(r.Assignment) > 0 {
		w.Key("assignment")
		w.StringMap(r.Assignment)
	}
	w.Key("leximin")
	w.Floats(r.Leximin)
	w.Key("choosy")
	r.Choosy.write(&w)
	w.Key("independent")
	r.Independent.write(&w)
	w.Close('}')
	return w.B, w.Err
}

func (u *UserResult) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("name")
	w.String(u.Name)
	w.Key("total")
	w.Float(u.Total)
	w.Key("share")
	w.Float(u.Share)
	w.Key("allocation")
	w.FloatMap(u.Allocation)
	w.Close('}')
}

func (r *RoundOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("level")
	w.Float(r.Level)
	w.Key("frozen")
	w.Strings(r.Frozen)
	if len(r.Capped) > 0 {
		w.Key("capped")
		w.Strings(r.Capped)
	}
	w.Close('}')
}

func (t *Total) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("name")
	w.String(t.Name)
	w.Key("total")
	w.Float(t.Total)
	w.Close('}')
}

func (c *ChoosyOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("users")
	jsonenc.Slice(w, c.Users, (*Total).write)
	w.Key("rmse")
	w.Float(c.RMSE)
	if c.Skipped != "" {
		w.Key("skipped")
		w.String(c.Skipped)
	}
	w.Close('}')
}

func (o *IndependentOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("users")
	jsonenc.Slice(w, o.Users, (*Total).write)
	w.Key("rmse")
	w.Float(o.RMSE)
	w.Close('}')
}
