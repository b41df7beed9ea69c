// Package jobtest provides a test-only problem, "sleep", whose solve takes
// as long as its input says, reports progress, honours cancellation with a
// best-so-far answer, and can fail on demand: what the job tests need and
// no real solver offers on cue.
package jobtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// Name is the problem's API name.
const Name = "test/sleep"

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://xflex.dev/schemas/test-sleep.request.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["ms", "value"],
  "properties": {
    "ms": {"type": "integer", "minimum": 0, "maximum": 600000},
    "value": {"type": "number"},
    "nodes": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["name", "cap"], "properties": {"name": {"type": "string"}, "cap": {"type": "number"}}}},
    "fail": {"type": "boolean"},
    "offer": {"type": "boolean"},
    "budget_ms": {"$ref": "common.json#/$defs/budget_ms"},
    "seed": {"$ref": "common.json#/$defs/seed"}
  }
}`

const responseSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://xflex.dev/schemas/test-sleep.response.json",
  "type": "object"
}`

// Request is the sleep problem's input.
type Request struct {
	MS    int64   `json:"ms"`
	Value float64 `json:"value"`
	Nodes []Node  `json:"nodes"`
	Fail  bool    `json:"fail"`
	// Offer makes the solve offer its answer so far (progress.Offer) at
	// every tick, as an anytime solver does.
	Offer    bool   `json:"offer"`
	BudgetMS *int64 `json:"budget_ms"`
	Seed     *int64 `json:"seed"`
}

// Node is a named capacity.
type Node struct {
	Name string  `json:"name"`
	Cap  float64 `json:"cap"`
}

// Result: lambda is the value; each node is assigned "big" or "small"
// depending on its capacity relative to the value.
type Result struct {
	Lambda float64      `json:"lambda"`
	Slept  int64        `json:"slept_ms"`
	Assign []Assignment `json:"assign"`
}

// Assignment is one node's class.
type Assignment struct {
	Name  string `json:"name"`
	Class string `json:"class"`
}

// tick is the sleep granularity: short enough that cancellation is prompt.
const tick = 5 * time.Millisecond

// Problem returns the sleep problem.
func Problem() solver.Problem {
	return solver.Problem{
		Name: Name, RequestSchema: "test-sleep.request.json", ResponseSchema: "test-sleep.response.json",
		Summary:       "test only: sleeps ms milliseconds",
		Solve:         solve,
		Picture:       picture,
		PictureShared: pictureShared,
	}
}

// NodesScale is the sleep problem's one shared scale: its pictures are
// as wide as the most nodes of the answers drawn together.
const NodesScale = "nodes"

// picture is pictureShared on its own scale.
func picture(request, response json.RawMessage) ([]byte, error) {
	svg, _, err := pictureShared(request, response, nil)
	return svg, err
}

// pictureShared draws an answer as one square per node (class "node"), orange
// for big and blue for small, under a title naming lambda: enough for the
// job tests to count what a picture shows. It is as wide as
// shared[NodesScale] nodes at least (a picture drawn beside others,
// Runner.Pictures) and returns its own count there.
func pictureShared(_, response json.RawMessage, shared map[string]float64) ([]byte, map[string]float64, error) {
	var resp struct {
		Result Result `json:"result"`
	}
	if err := json.Unmarshal(response, &resp); err != nil {
		return nil, nil, err
	}
	n := len(resp.Result.Assign)
	title := fmt.Sprintf("sleep: lambda %g", resp.Result.Lambda)
	d := sight.New(20*max(float64(n), shared[NodesScale])+20, 40, title, fmt.Sprintf("%s, %d nodes", title, n))
	for i, a := range resp.Result.Assign {
		fill := sight.Colour(1)
		if a.Class == "big" {
			fill = sight.Colour(0)
		}
		d.Rect(float64(10+20*i), 10, 16, 16, sight.Style{Class: "node", Fill: fill, Tip: a.Name})
	}
	return d.Bytes(), map[string]float64{NodesScale: float64(n)}, nil
}

// Schemas returns the embedded schema set plus the sleep problem's.
func Schemas() (*schemas.Set, error) {
	return schemas.LoadWith(map[string][]byte{
		"test-sleep.request.json":  []byte(requestSchema),
		"test-sleep.response.json": []byte(responseSchema),
	})
}

// Runner builds a runner over the sleep problem.
func Runner(maxBudget time.Duration) (*solver.Runner, error) {
	set, err := Schemas()
	if err != nil {
		return nil, err
	}
	return solver.NewRunnerWithSchemas([]solver.Problem{Problem()}, maxBudget, set)
}

func solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	var req Request
	if err := solver.Decode(raw, &req); err != nil {
		return nil, solver.Meta{}, err
	}
	if req.Fail {
		return nil, solver.Meta{}, solver.Infeasible("asked to fail", solver.Violation{Pointer: "/fail", Message: "fail is true"})
	}
	var names solver.Violations
	seen := map[string]bool{}
	for i, n := range req.Nodes {
		if seen[n.Name] {
			names.Add(solver.Ptr("nodes", i, "name"), "duplicate node name %q", n.Name)
		}
		seen[n.Name] = true
	}
	if err := names.Err(); err != nil {
		return nil, solver.Meta{}, err
	}
	total := time.Duration(req.MS) * time.Millisecond
	start := time.Now()
	status := solver.StatusOptimal
	t := time.NewTicker(tick)
	defer t.Stop()
	for time.Since(start) < total {
		frac := float64(time.Since(start)) / float64(total)
		progress.Report(ctx, progress.Progress{Phase: "sleeping", Fraction: progress.F(frac),
			Objective: progress.F(req.Value * frac), Bound: progress.F(req.Value)})
		if req.Offer {
			progress.Offer(ctx, progress.Incumbent{Result: Result{Lambda: req.Value * frac, Slept: time.Since(start).Milliseconds(), Assign: []Assignment{}},
				Objective: progress.F(req.Value * frac), Bound: progress.F(req.Value), Solver: "test/sleep"})
		}
		select {
		case <-ctx.Done():
			status = solver.StatusTimeout
		case <-t.C:
			continue
		}
		break
	}
	slept := time.Since(start)
	if slept > total {
		slept = total
	}
	res := Result{Lambda: req.Value, Slept: slept.Milliseconds(), Assign: []Assignment{}}
	for _, n := range req.Nodes {
		c := "small"
		if n.Cap >= req.Value {
			c = "big"
		}
		res.Assign = append(res.Assign, Assignment{Name: n.Name, Class: c})
	}
	meta := solver.Meta{Status: status, Solver: "test/sleep"}
	obj := req.Value
	if status == solver.StatusTimeout {
		obj = req.Value * float64(slept) / float64(max(total, 1))
		meta.Notes = []string{fmt.Sprintf("stopped after %d of %d ms", slept.Milliseconds(), req.MS)}
	}
	meta.SetObjective(obj)
	meta.SetBound(req.Value)
	return res, meta, nil
}
