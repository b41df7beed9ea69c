package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// Stage names, as the stages' endpoints (POST /v1/NAME) call them.
const (
	stageXSize    = "xsize"
	stageXSelect  = "xselect"
	stageSimulate = "xschedule/simulate"
)

// Budget: each stage is guaranteed a share of the plan's budget B, and
// finalShare is kept for writing the plan's answer (which embeds every
// stage's answer). Stage i may run until the plan's start plus
// B·(1 − finalShare − the shares of the stages after it), so time a stage
// does not use passes on to the next; that span is the stage request's
// budget_ms, a number that depends on B alone (the same input gets the
// same stage requests, byte for byte). The shares given in the request
// are scaled to sum to 1 − finalShare.
const (
	finalShare           = 0.1
	defaultXSizeShare    = 0.15
	defaultXSelectShare  = 0.3
	defaultSimulateShare = 0.45
)

// stageSpans are the stages' budgets as fractions of the plan's budget,
// from the shares (nil: default) scaled to sum to 1 − finalShare.
func stageSpans(shares [3]*float64) [3]float64 {
	g := [3]float64{defaultXSizeShare, defaultXSelectShare, defaultSimulateShare}
	var sum float64
	for i, s := range shares {
		if s != nil {
			g[i] = *s
		}
		sum += g[i]
	}
	var out [3]float64
	later := 0.0
	for i := 2; i >= 0; i-- {
		out[i] = (1 - finalShare) * (1 - later/sum)
		later += g[i]
	}
	return out
}

// stageRunner runs the stages' problems through a Runner of their own,
// the code path of their endpoints (Runner.Run: validation, decoding,
// solving, settling meta, encoding), so each stage's answer is the bytes
// its endpoint writes for the same request.
//
// Making it compiles every schema, which took 0.1 s idle and most of a
// second on a loaded machine: far too much of a plan's budget to pay per
// request. So there is one per process, built once (it holds only the
// compiled schemas and the three problems and never changes after), and
// Problem starts building it in the background so that a server has it
// before its first plan.
var stageRunner = sync.OnceValues(func() (*solver.Runner, error) {
	return solver.NewRunner([]solver.Problem{xsize.Problem(), xselect.Problem(), simulate.Problem()}, 0)
})

// StageRun is one stage as the plan ran it: the request it sent the
// stage's endpoint and the answer the endpoint gave, byte for byte.
type StageRun struct {
	Endpoint string          `json:"endpoint"`
	Status   string          `json:"status"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response,omitempty"`
	// Incumbent is a running stage's best result so far (job partials
	// only).
	Incumbent json.RawMessage `json:"incumbent,omitempty"`
}

// stageCall is one stage to run: its name, its request and its share of
// the time left; index and count place it in the pipeline for progress
// reports.
type stageCall struct {
	name string
	req  any
	// budgetMS is where the stage request keeps budget_ms; budget is
	// its value, deadline when the stage must stop.
	budgetMS     **int64
	budget       int64
	deadline     time.Time
	index, count int
	// partial makes the plan's answer so far with this stage's
	// incumbent, for job partials.
	partial func(request, inc json.RawMessage) any
}

// errNoTime says a stage could not start: the plan's budget is spent.
var errNoTime = errors.New("no budget left for the stage")

// run sets the stage's budget_ms, sends its request through the Runner
// and returns what the stage answered. A stage that had no answer (its
// budget ran out first, or the caller cancelled) returns a *solver.Error
// of that kind; any other refusal is translated by the caller.
func (c stageCall) run(ctx context.Context, r *solver.Runner) (*StageRun, *solver.Response, error) {
	if time.Until(c.deadline) <= 0 || ctx.Err() != nil {
		return nil, nil, errNoTime
	}
	ms := c.budget
	*c.budgetMS = &ms
	ctx, cancel := context.WithDeadline(ctx, c.deadline)
	defer cancel()
	raw, err := json.Marshal(c.req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s request: %w", c.name, err)
	}
	run := &StageRun{Endpoint: "/v1/" + c.name, Request: raw}
	progress.Report(ctx, progress.Progress{Phase: c.phase(""), Fraction: progress.F(float64(c.index) / float64(c.count))})
	sctx, stop := c.forward(ctx, run)
	// The plan reserved the memory of the whole pipeline; the stage
	// does not ask again. Its clock starts now.
	sctx = solver.WithMemoryGate(solver.WithArrival(sctx, time.Now()), func(context.Context, int64) error { return nil })
	resp, err := r.Run(sctx, c.name, raw)
	stop()
	if err != nil {
		return run, nil, err
	}
	run.Response = json.RawMessage(bytes.TrimSuffix(resp.Wire, []byte("\n")))
	run.Status = string(resp.Meta.Status)
	return run, resp, nil
}

// phase names the stage in progress reports.
func (c stageCall) phase(inner string) string {
	s := fmt.Sprintf("stage %d/%d %s", c.index+1, c.count, c.name)
	if inner != "" {
		s += ": " + inner
	}
	return s
}

// forward relays the stage's progress reports and incumbents to the job
// running the plan, the phase prefixed with the stage and the fraction
// placed in the stage's part of the pipeline; a no-op outside a job.
func (c stageCall) forward(ctx context.Context, run *StageRun) (context.Context, func()) {
	if !progress.Listening(ctx) {
		return ctx, func() {}
	}
	child := &progress.Reporter{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(forwardInterval)
		defer tick.Stop()
		for {
			c.relay(ctx, child, run)
			select {
			case <-done:
				c.relay(ctx, child, run)
				return
			case <-tick.C:
			}
		}
	}()
	return progress.WithReporter(ctx, child), func() { close(done); wg.Wait() }
}

// forwardInterval is how often a stage's reports are relayed: the job
// stores progress a few times a second, so finer is wasted.
const forwardInterval = 50 * time.Millisecond

// relay passes on what the stage reported since the last call.
func (c stageCall) relay(ctx context.Context, child *progress.Reporter, run *StageRun) {
	if p, ok := child.Take(); ok {
		frac := float64(c.index)
		if p.Fraction != nil {
			frac += *p.Fraction
		}
		progress.Report(ctx, progress.Progress{Phase: c.phase(p.Phase), Fraction: progress.F(frac / float64(c.count)),
			Objective: p.Objective, Bound: p.Bound, Message: p.Message})
	}
	if inc, ok := child.TakeIncumbent(); ok && c.partial != nil {
		b, err := json.Marshal(inc.Result)
		if err != nil {
			return
		}
		progress.Offer(ctx, progress.Incumbent{Result: c.partial(run.Request, b), Solver: "xflex/plan"})
	}
}

// noAnswer reports whether err means the stage had no answer to give
// (budget spent, caller gone) rather than refusing its input.
func noAnswer(err error) bool {
	if errors.Is(err, errNoTime) {
		return true
	}
	var xe *solver.Error
	return errors.As(err, &xe) && (xe.Kind == solver.KindBudget || xe.Kind == solver.KindCanceled)
}

// maxViolations is how many of a stage's violations the plan's error
// lists: a generated trace of 20,000 requests can break the same rule
// 20,000 times, and the first few say what is wrong.
const maxViolations = 20

// refused turns a stage's refusal into the plan's: the same kind, each
// violation's pointer translated into the plan's request by tr (the
// stage's pointer kept in the message), and the stage named.
func refused(stage string, err error, tr func(string) string) error {
	var xe *solver.Error
	if !errors.As(err, &xe) {
		return fmt.Errorf("stage %s: %w", stage, err)
	}
	out := &solver.Error{Kind: xe.Kind, Detail: fmt.Sprintf("stage %s refused the plan: %s", stage, xe.Detail), Err: xe}
	if out.Kind == solver.KindSchema {
		// The plan wrote a request its stage's schema refuses: the
		// plan's input carried a value the stage cannot take.
		out.Kind = solver.KindInvalid
	}
	for i, v := range xe.Violations {
		if i == maxViolations {
			out.Violations = append(out.Violations, solver.Violation{Pointer: "",
				Message: fmt.Sprintf("%s: and %d more like these", stage, len(xe.Violations)-maxViolations)})
			break
		}
		out.Violations = append(out.Violations, solver.Violation{Pointer: tr(v.Pointer),
			Message: fmt.Sprintf("%s: %s (at %s of the stage's request)", stage, v.Message, v.Pointer)})
	}
	if len(out.Violations) == 0 {
		out.Violations = []solver.Violation{{Pointer: "", Message: fmt.Sprintf("%s: %s", stage, xe.Detail)}}
	}
	return out
}

// simulateBaselines are the baselines xschedule/simulate offers: the
// names its request schema's baselines field accepts when it has one,
// else the fields of its answer's baselines (read from its Go type), so
// that a baseline added there is offered here with no change.
func simulateBaselines(r *solver.Runner) []string {
	if raw, ok := r.Schemas().Raw("xschedule-simulate.request.json"); ok {
		var doc struct {
			Properties struct {
				Baselines struct {
					Items struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"baselines"`
			} `json:"properties"`
		}
		if json.Unmarshal(raw, &doc) == nil && len(doc.Properties.Baselines.Items.Enum) > 0 {
			return doc.Properties.Baselines.Items.Enum
		}
	}
	t := reflect.TypeOf(simulate.Baselines{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// setBaselines passes the plan's baselines to the simulation's request
// (req, a pointer to a struct: simulate.Request) when its wire type has
// the field (json "baselines", a list of names): xschedule/simulate then
// runs them beside DRF. Without the field the simulator runs the
// baselines it always runs, the only ones checkBaselines allowed.
func setBaselines(req any, names []string) {
	if len(names) == 0 {
		return
	}
	v := reflect.ValueOf(req).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "baselines" && t.Field(i).Type == reflect.TypeOf(names) {
			v.Field(i).Set(reflect.ValueOf(slices.Clone(names)))
			return
		}
	}
}
