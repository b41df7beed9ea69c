package solver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
)

const clockSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://xflex.dev/schemas/clock.request.json",
 "type":"object","additionalProperties":false,
 "properties":{"mode":{"type":"string"},"pad":{"type":"string"},
  "budget_ms":{"$ref":"common.json#/$defs/budget_ms"},"seed":{"$ref":"common.json#/$defs/seed"}}}`

// slowResult encodes itself only once the clock has moved on by
// encodeDelay past the call, and records when it finished.
type slowResult struct{ done *time.Time }

const encodeDelay = 2 * time.Millisecond

func (s slowResult) AppendJSON(dst []byte) ([]byte, error) {
	t0 := time.Now()
	for time.Since(t0) < encodeDelay {
	}
	*s.done = time.Now()
	return append(dst, `"slow"`...), nil
}

// clockRunner serves "clock", a problem whose request's mode picks what
// the solver does: "slow" answers a slowResult (its end time in *done),
// "late" waits for the deadline and calls the instance infeasible,
// "deadline" answers the deadline its context and options carry,
// "gap0" times out claiming a bound equal to its objective.
func clockRunner(t *testing.T, done *time.Time) *Runner {
	t.Helper()
	set, err := schemas.LoadWith(map[string][]byte{"clock.request.json": []byte(clockSchema)})
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Name: "clock", RequestSchema: "clock.request.json",
		Solve: func(ctx context.Context, raw json.RawMessage, opts Options) (any, Meta, error) {
			var req struct {
				Mode     string `json:"mode"`
				Pad      string `json:"pad"`
				BudgetMS int64  `json:"budget_ms"`
				Seed     int64  `json:"seed"`
			}
			if err := Decode(raw, &req); err != nil {
				return nil, Meta{}, err
			}
			switch req.Mode {
			case "slow":
				return slowResult{done}, Meta{Status: StatusFeasible}, nil
			case "late":
				<-ctx.Done()
				return nil, Meta{}, Infeasible("some work fits nowhere")
			case "deadline":
				dl, _ := ctx.Deadline()
				return map[string]any{"ctx": dl.Sub(opts.Start).Nanoseconds(), "opts": opts.Deadline.Sub(opts.Start).Nanoseconds(),
					"remaining": opts.Remaining() > 0}, Meta{}, nil
			default:
				m := Meta{Status: StatusTimeout}
				m.SetObjective(0)
				m.SetBound(0)
				return 0, m, nil
			}
		}}
	r, err := NewRunnerWithSchemas([]Problem{p}, 0, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// meta.elapsed_ms runs from the request's arrival to the encoded body:
// encoding a result is inside the clock (issue 15, defect 4: a 100,000-user
// answer took 2.6 s by elapsed_ms and 5.1 s by the client's clock), and
// Wire is what AppendJSON writes with a newline.
func TestElapsedCoversEncoding(t *testing.T) {
	var done time.Time
	r := clockRunner(t, &done)
	arrival := time.Now().Add(-time.Second) // the body took a second to read
	resp, err := r.Run(WithArrival(context.Background(), arrival), "clock", []byte(`{"mode":"slow"}`))
	if err != nil {
		t.Fatal(err)
	}
	if min := float64(done.Sub(arrival).Microseconds()) / 1000; resp.Meta.ElapsedMS < min {
		t.Fatalf("elapsed_ms %v ends before the result was encoded (%v ms after arrival)", resp.Meta.ElapsedMS, min)
	}
	b, err := resp.AppendJSON(nil)
	if err != nil || !bytes.Equal(resp.Wire, append(b, '\n')) {
		t.Fatalf("Wire %q, AppendJSON %q (%v)", resp.Wire, b, err)
	}
}

// The solver's deadline is the budget less the encoding reserve, on its
// context and in its options alike.
func TestSolverDeadlineKeepsReserve(t *testing.T) {
	r := clockRunner(t, nil)
	for _, pad := range []int{0, 100_000} {
		body := []byte(`{"mode":"deadline","budget_ms":60000,"pad":"` + string(bytes.Repeat([]byte{'x'}, pad)) + `"}`)
		resp, err := r.Run(context.Background(), "clock", body)
		if err != nil {
			t.Fatal(err)
		}
		got := resp.Result.(map[string]any)
		want := (time.Minute - encodeReserve(len(body), time.Minute)).Nanoseconds()
		if got["ctx"] != want || got["opts"] != want || got["remaining"] != true {
			t.Fatalf("pad %d: ctx deadline %v, options %v, want %v after the start (remaining %v)", pad, got["ctx"], got["opts"], want, got["remaining"])
		}
	}
}

func TestEncodeReserve(t *testing.T) {
	b := time.Second
	if r := encodeReserve(0, b); r != reserveBase {
		t.Errorf("empty body: reserve %v, want %v", r, reserveBase)
	}
	if r := encodeReserve(1<<20, b); r <= encodeReserve(1<<10, b) {
		t.Errorf("reserve does not grow with the body: %v", r)
	}
	if r := encodeReserve(16<<20, 50*time.Millisecond); r != 50*time.Millisecond*3/4 {
		t.Errorf("reserve %v on a 50 ms budget: the solver must keep a quarter", r)
	}
}

// An infeasible verdict reached after the deadline is the budget running
// out, never a 422 "infeasible" (issue 15, defect 3, made impossible for
// every problem).
func TestLateInfeasibleIsBudget(t *testing.T) {
	r := clockRunner(t, nil)
	_, err := r.Run(context.Background(), "clock", []byte(`{"mode":"late","budget_ms":1}`))
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindBudget {
		t.Fatalf("got %v, want %s", err, KindBudget)
	}
}

// A timeout answer whose bound equals its objective has no proof of
// optimality (issue 15: fairshare answered timeout, objective 0, bound 0,
// gap 0): the Runner withholds the bound.
func TestTimeoutNeverClaimsZeroGap(t *testing.T) {
	r := clockRunner(t, nil)
	resp, err := r.Run(context.Background(), "clock", []byte(`{"mode":"gap0"}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := resp.Meta; m.Status != StatusTimeout || m.Bound != nil || m.Gap != nil || m.Objective == nil {
		t.Fatalf("meta %+v: want timeout, objective, no bound, no gap", m)
	}
}

func f64(v float64) *float64 { return &v }

func TestSettle(t *testing.T) {
	cases := []struct {
		name       string
		in         Meta
		status     Status
		bound, gap *float64
	}{
		{"empty status", Meta{}, StatusFeasible, nil, nil},
		{"optimal is its own bound", Meta{Status: StatusOptimal, Objective: f64(3)}, StatusOptimal, f64(3), f64(0)},
		{"gap recomputed", Meta{Status: StatusFeasible, Objective: f64(9), Bound: f64(10), Gap: f64(0)}, StatusFeasible, f64(10), f64(0.1)},
		{"gap without bound dropped", Meta{Status: StatusTimeout, Objective: f64(9), Gap: f64(0)}, StatusTimeout, nil, nil},
		{"bound alone kept", Meta{Status: StatusTimeout, Bound: f64(7)}, StatusTimeout, f64(7), nil},
		{"timeout with gap", Meta{Status: StatusTimeout, Objective: f64(9), Bound: f64(10)}, StatusTimeout, f64(10), f64(0.1)},
		{"timeout at zero gap", Meta{Status: StatusTimeout, Objective: f64(5), Bound: f64(5 + 1e-12)}, StatusTimeout, nil, nil},
		{"timeout with a proven objective", Meta{Status: StatusTimeout, Objective: f64(5), Bound: f64(5), ObjectiveProven: true}, StatusTimeout, f64(5), f64(0)},
	}
	eq := func(a, b *float64) bool {
		return (a == nil) == (b == nil) && (a == nil || *a-*b < 1e-15 && *b-*a < 1e-15)
	}
	for _, c := range cases {
		m := c.in
		settle(&m)
		if m.Status != c.status || !eq(m.Bound, c.bound) || !eq(m.Gap, c.gap) {
			t.Errorf("%s: got status %s bound %v gap %v", c.name, m.Status, m.Bound, m.Gap)
		}
	}
}

// TestPreSolveNotes: an answer says when reading and validating alone
// took longer than the budget, and when building alongside validation ran
// past the budget's end; a request within both gets no note.
func TestPreSolveNotes(t *testing.T) {
	arrival := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{Budget: 50 * time.Millisecond, Start: arrival.Add(40 * time.Millisecond), Built: arrival.Add(60 * time.Millisecond)}
	if n := preSolveNotes(arrival, opts, 1e6); len(n) != 0 {
		t.Fatalf("within the budget, notes %q", n)
	}
	opts.Start = arrival.Add(900 * time.Millisecond)
	opts.Built = opts.Start.Add(300 * time.Millisecond)
	n := preSolveNotes(arrival, opts, 13_400_000)
	if len(n) != 2 || !strings.Contains(n[0], "validating the 13.4 MB body took 900 ms, more than the budget of 50 ms") ||
		!strings.Contains(n[1], "building the instance took 300 ms after validation") {
		t.Fatalf("notes %q", n)
	}
	opts.Built = time.Time{} // no Decode hook
	if n := preSolveNotes(arrival, opts, 13_400_000); len(n) != 1 {
		t.Fatalf("no hook: notes %q", n)
	}
}
