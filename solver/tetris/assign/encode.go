package assign

import (
	"slices"

	"github.com/xflex/xflex/solver/jsonenc"
)

// Bytes of JSON around the strings of each kind of entry (keys,
// punctuation, numbers of up to 20 characters), rounded up: sizeHint
// overestimates rather than reallocate a multi-megabyte body at its end
// (pages of a fresh allocation that are never written cost nothing).
const (
	assignmentBytes = 175
	unplacedBytes   = 160
	shortfallBytes  = 95
	blockedBytes    = 12
	machineBytes    = 30
	freeBytes       = 32
	fixedBytes      = 1024 // knobs, summary, and the envelope's meta after it
)

// sizeHint estimates the encoded size of r.
func (r *Result) sizeHint() int {
	n := fixedBytes
	for i := range r.Assignments {
		a := &r.Assignments[i]
		n += assignmentBytes + len(a.Task) + len(a.Job) + len(a.Machine)
	}
	for i := range r.Unplaced {
		u := &r.Unplaced[i]
		n += unplacedBytes + len(u.Task) + len(u.Job) + len(u.Resource) + len(u.Machine) + len(u.Reason)
		for _, s := range u.Shortfalls {
			n += shortfallBytes + len(s.Resource) + len(s.Machine)
		}
		for k := range u.Blocked {
			n += blockedBytes + len(k)
		}
	}
	for i := range r.Machines {
		m := &r.Machines[i]
		n += machineBytes + len(m.Name)
		for k := range m.Free {
			n += freeBytes + len(k)
		}
	}
	return n
}

// AppendJSON implements solver.JSONAppender: the bytes json.Marshal writes
// for r, written without reflection (a 10,000-task round answers with
// 4.3 MB, mostly its 9,739 explanations; see benchmarks/tetris). Fields
// follow the struct declarations; TestAppendJSONMatchesMarshal and every
// response solvertest checks compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil {
		return append(dst, "null"...), nil
	}
	// One allocation of about the final size: growing a 4 MB body by
	// append's 1.25 steps allocated 22.5 MB and took longer than the
	// encoding itself.
	w := jsonenc.Writer{B: slices.Grow(dst, r.sizeHint())}
	w.Open('{')
	w.Key("assignments")
	jsonenc.Slice(&w, r.Assignments, (*Assignment).write)
	w.Key("unplaced")
	jsonenc.Slice(&w, r.Unplaced, (*Unplaced).write)
	w.Key("machines")
	jsonenc.Slice(&w, r.Machines, (*MachineFree).write)
	w.Key("knobs")
	r.Knobs.write(&w)
	w.Key("summary")
	r.Summary.write(&w)
	w.Close('}')
	return w.B, w.Err
}

func (a *Assignment) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("task")
	w.String(a.Task)
	w.Key("job")
	w.String(a.Job)
	w.Key("machine")
	w.String(a.Machine)
	w.Key("alignment")
	w.Float(a.Alignment)
	w.Key("score")
	w.Float(a.Score)
	w.Key("remote")
	w.Bool(a.Remote)
	w.Key("promoted")
	w.Bool(a.Promoted)
	w.Key("share")
	w.Float(a.Share)
	w.Key("rank")
	w.Int(a.Rank)
	w.Close('}')
}

func (s *Shortfall) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("resource")
	w.String(s.Resource)
	w.Key("machine")
	w.String(s.Machine)
	w.Key("need")
	w.Float(s.Need)
	w.Key("free")
	w.Float(s.Free)
	w.Close('}')
}

func (u *Unplaced) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("task")
	w.String(u.Task)
	w.Key("job")
	w.String(u.Job)
	w.Key("resource")
	w.String(u.Resource)
	w.Key("machine")
	w.String(u.Machine)
	w.Key("need")
	w.Float(u.Need)
	w.Key("free")
	w.Float(u.Free)
	w.Key("remote")
	w.Bool(u.Remote)
	w.Key("shortfalls")
	jsonenc.Slice(w, u.Shortfalls, (*Shortfall).write)
	w.Key("blocked")
	w.IntMap(u.Blocked)
	w.Key("reason")
	w.String(u.Reason)
	w.Close('}')
}

func (m *MachineFree) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("name")
	w.String(m.Name)
	w.Key("free")
	w.FloatMap(m.Free)
	w.Close('}')
}

func (k *KnobsOut) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("fairness")
	w.Float(k.Fairness)
	w.Key("barrier")
	w.Float(k.Barrier)
	w.Key("epsilon")
	w.Float(k.Epsilon)
	w.Key("epsilon_auto")
	w.Bool(k.EpsilonAuto)
	w.Key("remote_penalty")
	w.Float(k.RemotePenalty)
	w.Close('}')
}

func (s *Summary) write(w *jsonenc.Writer) {
	w.Open('{')
	w.Key("placed")
	w.Int(s.Placed)
	w.Key("unplaced")
	w.Int(s.Unplaced)
	w.Key("remote")
	w.Int(s.Remote)
	w.Key("promoted")
	w.Int(s.Promoted)
	w.Key("groups")
	w.Int(s.Groups)
	w.Key("complete")
	w.Bool(s.Complete)
	w.Close('}')
}
