package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bytedance/sonic"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// Problem is the X-Flex plan as served at POST /v1/xflex/plan.
func Problem() solver.Problem {
	go func() { _, _ = stageRunner() }()
	return solver.Typed[Request, *checked]{
		Name:           "xflex/plan",
		CLIName:        "xflex-plan",
		RequestSchema:  "xflex-plan.request.json",
		ResponseSchema: "xflex-plan.response.json",
		Summary:        "X-Flex plan: forecasts → X-Size shapes → container mixes → X-Select packing → X-Schedule simulation against DRF, each stage's request and answer in full",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          build,
		Solve: func(ctx context.Context, b solver.Built[Request, *checked], opts solver.Options) (any, solver.Meta, error) {
			return solve(ctx, b.In, opts)
		},
		Picture:       picture,
		PictureShared: pictureShared,
		Memory:        memory,
	}.Problem()
}

// Result is the response's result (schemas/xflex-plan.response.json).
type Result struct {
	Stages  Stages    `json:"stages"`
	Mix     *Mix      `json:"mix,omitempty"`
	Trace   TraceInfo `json:"trace"`
	Summary Summary   `json:"summary"`
}

// Stages are the stages that ran, each with its request and answer; a
// stage that did not run is absent. Cut names the stage the budget cut
// short (its answer, if it had one, is its best so far) or stopped
// before it started.
type Stages struct {
	XSize    *StageRun `json:"xsize,omitempty"`
	XSelect  *StageRun `json:"xselect,omitempty"`
	Simulate *StageRun `json:"simulate,omitempty"`
	Cut      string    `json:"cut,omitempty"`
}

// pipeline is one plan's state while its stages run.
type pipeline struct {
	p   *checked
	r   *solver.Runner
	res *Result
	// start and budget are the plan's; deadline is the solve's (the
	// budget less the Runner's reserve for encoding, or the caller's);
	// spans are the stages' budgets over the plan's.
	start    time.Time
	budget   time.Duration
	deadline time.Time
	spans    [3]float64
	timeout  bool
}

// solve runs the four stages in order. A stage whose answer is a timeout
// hands its best answer on; a stage with no answer (budget spent, caller
// gone) ends the plan with what finished, status timeout.
func solve(ctx context.Context, p *checked, opts solver.Options) (any, solver.Meta, error) {
	if err := p.prepare(); err != nil {
		return nil, solver.Meta{}, err
	}
	r, err := stageRunner()
	if err != nil {
		return nil, solver.Meta{}, err
	}
	if err := p.checkBaselines(r); err != nil {
		return nil, solver.Meta{}, err
	}
	// The stages' spans start once the stages' Runner is ready: the
	// first plan of a process waits for it to compile the schemas, and
	// that wait is not taken from X-Size's share (the plan still ends by
	// its deadline).
	pl := &pipeline{p: p, r: r, res: &Result{}, start: time.Now(), budget: opts.Budget, deadline: opts.Deadline}
	if pl.budget <= 0 {
		pl.budget = solver.DefaultBudget
	}
	if dl, ok := ctx.Deadline(); ok && (pl.deadline.IsZero() || dl.Before(pl.deadline)) {
		pl.deadline = dl
	}
	pl.spans = stageSpans(p.shares())
	done, err := pl.run(ctx)
	if err != nil {
		return nil, solver.Meta{}, err
	}
	pl.res.Summary = summarize(pl.res, p)
	meta := solver.Meta{Status: solver.StatusFeasible, Solver: "xflex/plan"}
	if !done || pl.timeout {
		meta.Status = solver.StatusTimeout
	}
	if x := pl.res.Summary.XFlex; x != nil {
		meta.SetObjective(float64(x.Successes))
	}
	meta.Notes = append(meta.Notes, pl.res.Summary.notes()...)
	if n := pl.res.Stages.cutNote(); n != "" {
		meta.Notes = append(meta.Notes, n)
	}
	return pl.res, meta, nil
}

// run runs the stages; done is false when one had no answer.
func (pl *pipeline) run(ctx context.Context) (bool, error) {
	p := pl.p
	// The trace depends on the forecasts alone: drawn (or refused)
	// before any stage runs.
	asks, info, err := p.trace()
	if err != nil {
		return false, err
	}
	pl.res.Trace = info
	xsReq := p.xsizeRequest()
	run, _, err := pl.stage(ctx, stageCall{name: stageXSize, req: xsReq, budgetMS: &xsReq.BudgetMS, index: 0},
		&pl.res.Stages.XSize, p.xsizePtr)
	if run == nil || err != nil {
		return false, err
	}
	xs, err := answerOf[xsize.Result](run)
	if err != nil {
		return false, err
	}
	shapes := xs.Shapes
	mix, err := p.mapMix(shapes, xsReq.Totals, xsReq.Fit == "max")
	if err != nil {
		return false, err
	}
	pl.res.Mix = mix
	selReq := p.xselectRequest(shapes, mix)
	run, resp, err := pl.stage(ctx, stageCall{name: stageXSelect, req: selReq, budgetMS: &selReq.BudgetMS, index: 1},
		&pl.res.Stages.XSelect, p.xselectPtr)
	if run == nil || err != nil {
		return false, err
	}
	sel, err := answerOf[xselect.Result](run)
	if err != nil {
		return false, err
	}
	if sel.Lambda <= 0 && (resp.Meta.Status == solver.StatusTimeout || resp.Meta.Status == solver.StatusCancelled) {
		// Cut before it placed anything: there is nothing to simulate.
		pl.cut(stageSimulate)
		return false, nil
	}
	if sel.Lambda <= 0 {
		return false, solver.Infeasible("stage xselect: the packing holds no positive multiple of the mixes (λ = 0)",
			solver.Violation{Pointer: "/cluster", Message: fmt.Sprintf("xselect: λ = 0 (upper bound %g): some application's mix cannot be placed at all on the nodes it may use", sel.UpperBound)})
	}
	simReq := p.simulateRequest(selReq, sel, asks)
	run, _, err = pl.stage(ctx, stageCall{name: stageSimulate, req: simReq, budgetMS: &simReq.BudgetMS, index: 2},
		&pl.res.Stages.Simulate, p.simulatePtr)
	return run != nil, err
}

// stage runs one stage and records it in *slot. It returns no run (and
// no error) when the stage had no answer: the plan stops there with
// Cut naming it; a refusal is the plan's error.
func (pl *pipeline) stage(ctx context.Context, c stageCall, slot **StageRun, tr func(string) string) (*StageRun, *solver.Response, error) {
	c.count = 3
	span := time.Duration(float64(pl.budget) * pl.spans[c.index])
	c.budget = max(1, span.Milliseconds())
	c.deadline = pl.start.Add(span)
	if !pl.deadline.IsZero() && pl.deadline.Before(c.deadline) {
		c.deadline = pl.deadline
	}
	c.partial = func(request, inc json.RawMessage) any {
		snap := *pl.res
		setSlot(&snap.Stages, c.name, &StageRun{Endpoint: "/v1/" + c.name, Status: "running", Request: request, Incumbent: inc})
		return &snap
	}
	run, resp, err := c.run(ctx, pl.r)
	if err != nil {
		if noAnswer(err) {
			// Even the first stage: a cut plan is a timeout with what
			// finished (issue 27), possibly nothing, never a refusal.
			pl.cut(c.name)
			return nil, nil, nil
		}
		return nil, nil, refused(c.name, err, tr)
	}
	*slot = run
	if resp.Meta.Status == solver.StatusTimeout || resp.Meta.Status == solver.StatusCancelled {
		pl.cut(c.name)
	}
	if ctx.Err() != nil && c.index < c.count-1 {
		// The caller left after this stage: the next never starts.
		pl.cut([]string{stageXSize, stageXSelect, stageSimulate}[c.index+1])
		return nil, nil, nil
	}
	return run, resp, nil
}

// cut records that the budget (or the caller) cut stage name short: the
// plan is a timeout, and Cut names the first stage cut.
func (pl *pipeline) cut(name string) {
	pl.timeout = true
	if pl.res.Stages.Cut == "" {
		pl.res.Stages.Cut = name
	}
}

// cutNote says, for meta.notes, which stage the budget (or the caller)
// cut and whether it had an answer yet; empty when no stage was cut.
func (st *Stages) cutNote() string {
	var run *StageRun
	switch st.Cut {
	case "":
		return ""
	case stageXSize:
		run = st.XSize
	case stageXSelect:
		run = st.XSelect
	case stageSimulate:
		run = st.Simulate
	}
	if run == nil {
		return fmt.Sprintf("stage %s was cut before it had an answer; the plan holds the stages before it", st.Cut)
	}
	return fmt.Sprintf("stage %s was cut short; its answer is its best so far", st.Cut)
}

// setSlot puts run in the stage's slot of st.
func setSlot(st *Stages, name string, run *StageRun) {
	switch name {
	case stageXSize:
		st.XSize = run
	case stageXSelect:
		st.XSelect = run
	case stageSimulate:
		st.Simulate = run
	}
}

// shares are the stages' budget shares the request gives (nil: default).
func (p *checked) shares() [3]*float64 {
	var out [3]*float64
	if s := p.req.XSize; s != nil {
		out[0] = s.BudgetShare
	}
	if s := p.req.XSelect; s != nil {
		out[1] = s.BudgetShare
	}
	if s := p.req.Simulate; s != nil {
		out[2] = s.BudgetShare
	}
	return out
}

// answerSonic is answerOf with bytedance/sonic, several times faster on
// the simulation's answer (megabytes of events and utilization points
// the summary reads, 90 ms of encoding/json's time on a 20,000-request
// plan); on any error it decodes again with answerOf, whose errors are
// the ones reported. TestAnswerSonic checks both give the same value.
func answerSonic[T any](run *StageRun) (*T, error) {
	var env struct {
		Result T `json:"result"`
	}
	if err := answerDecoder.Unmarshal(run.Response, &env); err != nil {
		return answerOf[T](run)
	}
	return &env.Result, nil
}

// answerDecoder decodes as encoding/json does for a stage's answer:
// unknown fields skipped, strings copied and checked to be UTF-8.
var answerDecoder = sonic.Config{CopyString: true, ValidateString: true}.Froze()

// answerOf decodes a stage's result from the bytes its endpoint wrote,
// the form a client re-running the stage would read.
func answerOf[T any](run *StageRun) (*T, error) {
	var env struct {
		Result T `json:"result"`
	}
	if err := json.Unmarshal(run.Response, &env); err != nil {
		return nil, fmt.Errorf("decode the %s answer: %w", run.Endpoint, err)
	}
	return &env.Result, nil
}
