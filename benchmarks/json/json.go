// Package jsonbench measures the JSON code xflex runs against the
// well-kept libraries on the same request, in one process, so that
// hand-written code is kept only where it earns its place (issue 17; the
// measurements and decisions are in RESULTS.md beside this file).
//
// The request is the 10,000-task tetris-assign heartbeat snapshot of
// benchmarks/tetris (250 machines, 100 jobs, 90% busy, about 1.6 MB), the
// largest request any problem benchmarks. Four jobs are timed on it, each
// by every candidate that can do it:
//
//   - generic: the body decoded to map[string]any/[]any/json.Number for
//     schema validation (xflex: solver.DecodeAny, hand-written);
//   - validate: that document checked against tetris-assign.request.json
//     (xflex: the hand-written fast path of schemas.Set.Validate);
//   - typed: the body decoded to the request type with unknown fields
//     refused (xflex: the tetris/assign Problem.Decode hook);
//   - encode: the 4.3 MB response envelope written as JSON (xflex:
//     Response.AppendJSON);
//   - encode flex, encode cmmf: the same for the answers to a 20,000-job
//     flex request and a 5,000-user, 50-type cmmf request (1.6 and 1.3 MB).
//
// Candidates run interleaved: every repetition runs every candidate of
// every job once, in a fresh seeded random order, after a runtime.GC, so
// that the noise of a shared machine falls on all of them alike and no
// candidate always follows the same neighbour (a rotated order made the
// candidate after an allocation-heavy one look up to 2x faster than the
// same code elsewhere in the order). The table gives medians over the repetitions and, per library,
// the median of its same-repetition ratio to xflex's own code.
// encoding/json/v2 needs GOEXPERIMENT=jsonv2 (Go 1.26 does not enable it
// by default); under that experiment v2.go adds its candidates.
package jsonbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xflex/xflex/benchmarks/tetris"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/cmmf"
	"github.com/xflex/xflex/solver/flex"
	"github.com/xflex/xflex/solver/tetris/assign"
)

// Current names the candidate of every job that xflex runs; ratios are
// taken against it.
const Current = "xflex"

// Job names, in table order.
const (
	JobGeneric  = "generic decode"
	JobValidate = "schema validation"
	JobTyped    = "typed decode"
	JobEncode   = "encode response"
	JobFlex     = "encode flex response"
	JobCMMF     = "encode cmmf response"
	JobRequest  = "whole request"
)

// requestSchema is the schema the validation job checks against.
const requestSchema = "tetris-assign.request.json"

// Fixture is the request and what the jobs need of it, built once.
type Fixture struct {
	Raw    []byte           // the request body
	Doc    any              // Raw decoded by solver.DecodeAny
	Resp   *solver.Response // the Runner's response to Raw
	Flex   *solver.Response // the Runner's response to a flex request
	CMMF   *solver.Response // the Runner's response to a cmmf request
	Set    *schemas.Set
	Runner *solver.Runner
}

// NewFixture generates the request with tasks pending tasks (and the
// machines and jobs of benchmarks/tetris scaled down with it when tasks is
// below 10,000), a flex request of twice as many jobs and a cmmf request
// of half as many users, and solves each once.
func NewFixture(ctx context.Context, tasks int) (*Fixture, error) {
	machines, jobs := tetris.AssignMachines, tetris.AssignJobs
	if tasks < tetris.AssignTasks {
		machines = max(1, machines*tasks/tetris.AssignTasks)
		jobs = max(1, jobs*tasks/tetris.AssignTasks)
	}
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), machines, tasks, jobs, tetris.SteadyBusy, 1)
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	doc, err := solver.DecodeAny(raw)
	if err != nil {
		return nil, err
	}
	set, err := schemas.Load()
	if err != nil {
		return nil, err
	}
	run, err := solver.NewRunner([]solver.Problem{assign.Problem(), flex.Problem(), cmmf.Problem()}, 0)
	if err != nil {
		return nil, err
	}
	resp, err := run.Run(ctx, assign.Problem().Name, raw)
	if err != nil {
		return nil, err
	}
	fresp, err := solveGenerated(ctx, run, flex.Problem(), map[string]string{"jobs": strconv.Itoa(2 * tasks)})
	if err != nil {
		return nil, err
	}
	cresp, err := solveGenerated(ctx, run, cmmf.Problem(), map[string]string{"users": strconv.Itoa(tasks / 2), "types": "50"})
	if err != nil {
		return nil, err
	}
	return &Fixture{Raw: raw, Doc: doc, Resp: resp, Flex: fresp, CMMF: cresp, Set: set, Runner: run}, nil
}

// solveGenerated answers p's generated request with params.
func solveGenerated(ctx context.Context, run *solver.Runner, p solver.Problem, params map[string]string) (*solver.Response, error) {
	req, err := p.Generate(1, params)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return run.Run(ctx, p.Name, raw)
}

// Candidate is one way of doing one job. Run does the job once; Check
// compares what it made with xflex's result (nil when the
// same: equal values, or the same bytes for encoders).
type Candidate struct {
	Job, Name string
	Run       func() error
	Check     func() error
}

// Candidates lists every candidate of every job on f, xflex's own
// first within each job.
func Candidates(f *Fixture) ([]Candidate, error) {
	var out []Candidate
	for _, build := range builders {
		cs, err := build(f)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		return jobRank(a.Job) - jobRank(b.Job)
	})
	return out, nil
}

// builders make the candidates; v2.go appends to it under
// GOEXPERIMENT=jsonv2.
var builders = []func(*Fixture) ([]Candidate, error){
	handCandidates, stdCandidates, goccyCandidates, sonicCandidates, schemaCandidates,
}

func jobRank(job string) int {
	return slices.Index([]string{JobRequest, JobGeneric, JobValidate, JobTyped, JobEncode, JobFlex, JobCMMF}, job)
}

// handCandidates are xflex's own code as the server runs it, and the
// whole request (Runner.Run and the response's encoding) for scale.
func handCandidates(f *Fixture) ([]Candidate, error) {
	return []Candidate{
		{Job: JobRequest, Name: Current + ": Runner.Run + AppendJSON", Run: func() error {
			resp, err := f.Runner.Run(context.Background(), assign.Problem().Name, f.Raw)
			if err != nil {
				return err
			}
			_, err = resp.AppendJSON(nil)
			return err
		}},
		{Job: JobGeneric, Name: Current + ": solver.DecodeAny", Run: func() error {
			_, err := solver.DecodeAny(f.Raw)
			return err
		}},
		{Job: JobValidate, Name: Current + ": schemas fast path", Run: func() error {
			return violations(f.Set.Validate(requestSchema, f.Doc))
		}},
		{Job: JobTyped, Name: Current + ": Problem.Decode", Run: func() error {
			_, err := assign.Problem().Decode(f.Raw)
			return err
		}},
		{Job: JobEncode, Name: Current + ": Response.AppendJSON", Run: func() error {
			_, err := f.Resp.AppendJSON(nil)
			return err
		}},
		{Job: JobFlex, Name: Current + ": Response.AppendJSON", Run: func() error {
			_, err := f.Flex.AppendJSON(nil)
			return err
		}},
		{Job: JobCMMF, Name: Current + ": Response.AppendJSON", Run: func() error {
			_, err := f.CMMF.AppendJSON(nil)
			return err
		}},
	}, nil
}

func violations(vs []schemas.Violation) error {
	if len(vs) > 0 {
		return fmt.Errorf("%d violations, first %s: %s", len(vs), vs[0].Pointer, vs[0].Message)
	}
	return nil
}

// Library candidates are built from three functions of the library: a
// generic decoder (numbers as json.Number, trailing data refused), a
// strict typed decoder (unknown fields refused) and a marshaller.
type library struct {
	name    string
	generic func([]byte) (any, error)
	typed   func([]byte, any) error
	marshal func(any) ([]byte, error)
}

// candidates wraps lib's functions as the generic, typed and encode jobs.
func (lib library) candidates(f *Fixture) ([]Candidate, error) {
	want, err := handResults(f)
	if err != nil {
		return nil, err
	}
	var doc any
	var req plainRequest
	var out, fout, cout []byte
	cs := []Candidate{
		{Job: JobGeneric, Name: lib.name,
			Run:   func() (err error) { doc, err = lib.generic(f.Raw); return err },
			Check: func() error { return sameJSON(doc, f.Doc) }},
		{Job: JobTyped, Name: lib.name,
			Run:   func() error { req = plainRequest{}; return lib.typed(f.Raw, &req) },
			Check: func() error { return sameJSON(req, want.typed) }},
		{Job: JobEncode, Name: lib.name,
			Run:   func() (err error) { out, err = lib.marshal(envelope(f.Resp)); return err },
			Check: func() error { return sameBytes(out, want.encoded) }},
		{Job: JobFlex, Name: lib.name,
			Run:   func() (err error) { fout, err = lib.marshal(envelope(f.Flex)); return err },
			Check: func() error { return sameBytes(fout, want.flex) }},
		{Job: JobCMMF, Name: lib.name,
			Run:   func() (err error) { cout, err = lib.marshal(envelope(f.CMMF)); return err },
			Check: func() error { return sameBytes(cout, want.cmmf) }},
	}
	return cs, nil
}

// envelope is the response as a library marshals it: Response does not
// implement json.Marshaler (solver.Response.AppendJSON says why), so a
// library writes its fields, the result through reflection.
func envelope(r *solver.Response) any { return r }

type handResult struct {
	typed               *assign.Request
	encoded, flex, cmmf []byte
}

// handResults are xflex's answers the libraries' are
// compared with.
func handResults(f *Fixture) (handResult, error) {
	var r assign.Request
	if err := solver.Decode(f.Raw, &r); err != nil {
		return handResult{}, err
	}
	enc, err := f.Resp.AppendJSON(nil)
	if err != nil {
		return handResult{}, err
	}
	fenc, err := f.Flex.AppendJSON(nil)
	if err != nil {
		return handResult{}, err
	}
	cenc, err := f.CMMF.AppendJSON(nil)
	return handResult{typed: &r, encoded: enc, flex: fenc, cmmf: cenc}, err
}

// sameJSON compares two values by their encoding/json encodings (map keys
// sorted, so equal values encode equally).
func sameJSON(got, want any) error {
	a, err := json.Marshal(got)
	if err != nil {
		return err
	}
	b, err := json.Marshal(want)
	if err != nil {
		return err
	}
	return sameBytes(a, b)
}

// sameBytes reports the first difference between got and want.
func sameBytes(got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Errorf("differs at byte %d of %d/%d: %q vs %q", i, len(got), len(want), snippet(got, i), snippet(want, i))
}

func snippet(b []byte, i int) []byte {
	lo, hi := max(0, i-30), min(len(b), i+30)
	return b[lo:hi]
}

// Measure runs every candidate reps times, interleaved, and returns the
// durations per candidate (indexed like cs).
func Measure(cs []Candidate, reps int) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(cs))
	for _, c := range cs { // warm-up: JIT compilers, caches, first allocations
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("%s, %s: %w", c.Job, c.Name, err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 17))
	for rep := 0; rep < reps; rep++ {
		for _, i := range rng.Perm(len(cs)) {
			runtime.GC()
			start := time.Now()
			if err := cs[i].Run(); err != nil {
				return nil, fmt.Errorf("%s, %s: %w", cs[i].Job, cs[i].Name, err)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	return times, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianRatio is the median over repetitions of a[i]/b[i].
func medianRatio(a, b []time.Duration) float64 {
	rs := make([]float64, len(a))
	for i := range a {
		rs[i] = float64(a[i]) / float64(b[i])
	}
	slices.Sort(rs)
	if len(rs)%2 == 1 {
		return rs[len(rs)/2]
	}
	return (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
}

// Report prints the measurement table: scale "small" is a 1,000-task
// request and 5 repetitions, "full" the 10,000-task request and 15.
func Report(ctx context.Context, w io.Writer, scale string) error {
	tasks, reps := 1000, 5
	if scale == "full" {
		tasks, reps = tetris.AssignTasks, 15
	}
	f, err := NewFixture(ctx, tasks)
	if err != nil {
		return err
	}
	cs, err := Candidates(f)
	if err != nil {
		return err
	}
	times, err := Measure(cs, reps)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "tetris-assign request: %d tasks, %d bytes; response %d bytes; flex response (%d jobs) %d bytes; cmmf response (%d users) %d bytes; %d repetitions, %s, GOMAXPROCS %d\n\n",
		tasks, len(f.Raw), len(f.Resp.Wire), 2*tasks, len(f.Flex.Wire), tasks/2, len(f.CMMF.Wire), reps, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Fprintln(w, "| job | candidate | median ms | min ms | ratio to xflex | same result |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | --- |")
	for i, c := range cs {
		hand := handIndex(cs, c.Job)
		ratio := "-"
		if hand >= 0 && hand != i {
			ratio = fmt.Sprintf("%.2f", medianRatio(times[i], times[hand]))
		}
		same := "-"
		if c.Check != nil {
			same = "yes"
			if err := c.Check(); err != nil {
				same = "no: " + err.Error()
			}
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %s | %s |\n", c.Job, c.Name, ms(median(times[i])), ms(slices.Min(times[i])), ratio, same)
	}
	return nil
}

// handIndex is the index of job's xflex candidate, -1 if none.
func handIndex(cs []Candidate, job string) int {
	return slices.IndexFunc(cs, func(c Candidate) bool {
		return c.Job == job && strings.HasPrefix(c.Name, Current+":")
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
