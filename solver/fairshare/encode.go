package fairshare

import (
	"slices"

	"github.com/xflex/xflex/solver/jsonenc"
)

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r, without reflection (the answer for 100,000 frameworks is 5 MB,
// which encoding/json took about 45 ms to write, most of a 50 ms budget's
// slack). Fields follow the struct declarations in request.go;
// TestAppendJSONMatchesMarshal and every solvertest check compare the two.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil {
		return append(dst, "null"...), nil
	}
	w := jsonenc.Writer{B: dst}
	r.write(&w)
	return w.B, w.Err
}

func (r *Result) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("policy")
	w.String(r.Policy)
	if r.Selection != "" {
		w.Key("server_selection")
		w.String(r.Selection)
	}
	if r.Criterion != "" {
		w.Key("criterion")
		w.String(r.Criterion)
	}
	w.Key("integer")
	w.Bool(r.Integer)
	w.Key("frameworks")
	jsonenc.Slice(w, r.Frameworks, (*FrameworkResult).write)
	w.Key("total_tasks")
	w.Float(r.TotalTasks)
	w.Key("efficiency")
	w.Float(r.Efficiency)
	w.Key("pf_objective")
	optFloat(w, r.PFObjective)
	w.Key("unused")
	writeUnused(w, r.Unused)
	if r.Trials != 0 {
		w.Key("trials")
		w.Int(r.Trials)
	}
	omitFloat(w, "mean_total_tasks", r.MeanTotalTasks)
	omitFloat(w, "sd_total_tasks", r.SDTotalTasks)
	omitFloat(w, "objective", r.Objective)
	omitFloat(w, "bound", r.Bound)
	omitFloat(w, "gap", r.Gap)
	if r.Status != "" {
		w.Key("status")
		w.String(r.Status)
	}
	omitFloat(w, "elapsed_ms", r.ElapsedMS)
	if len(r.Compare) > 0 {
		w.Key("compare")
		w.Open('[')
		for _, c := range r.Compare {
			if c == nil {
				w.Null()
				continue
			}
			c.write(w)
		}
		w.Close(']')
	}
	w.Close('}')
}

func (f *FrameworkResult) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("name")
	w.String(f.Name)
	w.Key("total")
	w.Float(f.Total)
	w.Key("share")
	w.Float(f.Share)
	w.Key("by_server")
	w.FloatMap(f.ByServer)
	if len(f.MeanByServer) > 0 {
		w.Key("mean_by_server")
		w.FloatMap(f.MeanByServer)
	}
	if len(f.SDByServer) > 0 {
		w.Key("sd_by_server")
		w.FloatMap(f.SDByServer)
	}
	omitFloat(w, "mean_total", f.MeanTotal)
	omitFloat(w, "sd_total", f.SDTotal)
	w.Close('}')
}

// optFloat writes *p, or null.
func optFloat(w *jsonenc.Writer, p *float64) {
	if p == nil {
		w.Null()
		return
	}
	w.Float(*p)
}

// omitFloat writes the member key: *p unless p is nil (omitempty).
func omitFloat(w *jsonenc.Writer, key string, p *float64) {
	if p != nil {
		w.Key(key)
		w.Float(*p)
	}
}

// writeUnused writes a map[string][]float64 as json.Marshal does: null
// when nil, keys (server names: escaped) sorted byte-wise.
func writeUnused(w *jsonenc.Writer, m map[string][]float64) {
	if m == nil {
		w.Null()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.Open('{')
	for i, k := range keys {
		if i > 0 {
			w.B = append(w.B, ',')
		}
		w.B = append(jsonenc.String(w.B, k), ':')
		w.B = appendFloats(w.B, m[k], &w.Err)
	}
	w.Close('}')
}

// appendFloats appends xs as json.Marshal does (null when nil); the first
// unsupported float goes to *err.
func appendFloats(dst []byte, xs []float64, err *error) []byte {
	if xs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if *err == nil {
			dst, *err = jsonenc.Float(dst, x)
		}
	}
	return append(dst, ']')
}
