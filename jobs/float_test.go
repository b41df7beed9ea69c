package jobs

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// simulateBody is a one-task tetris/simulate request whose task duration
// is the number text d.
func simulateBody(d string) string {
	return `{"machines":[{"name":"m","capacity":{"cpu":4,"memory":4}}],"jobs":[{"id":"a","arrival":0,"stages":[{"name":"s","tasks":1,"demand":{"cpu":1},"duration":` + d + `}]}]}`
}

// problemErrors decodes the errors of a problem+json reply.
func problemErrors(t *testing.T, r reply) []solver.Violation {
	t.Helper()
	var p struct {
		Errors []solver.Violation `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return p.Errors
}

// prefixed is vs with prefix before every pointer.
func prefixed(prefix string, vs []solver.Violation) []solver.Violation {
	out := make([]solver.Violation, len(vs))
	for i, v := range vs {
		out[i] = solver.Violation{Pointer: prefix + v.Pointer, Message: v.Message}
	}
	return out
}

// TestNumbersJudgedAlikeOnEveryPath: a duration whose float64 is 0 (1e-400
// passed exclusiveMinimum 0 on its decimal text, and tetris/simulate
// answered 500 after computing NaN), subnormal, or beyond the float64
// range, and an integer written 1.0 or 1e3 (which passed the schema and
// failed in the decoder: a 400 or a pointerless 422, and a job that was
// accepted and then failed) are a 422 with its pointer on POST
// /v1/tetris/simulate, and the same violations come back from POST
// /v1/jobs, for the input and for a scenario variant that patches it in.
func TestNumbersJudgedAlikeOnEveryPath(t *testing.T) {
	t.Parallel()
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, storeURL(t, "sqlite"), Config{}, runner, httpapi.Config{})
	type bad struct{ body, ptr string }
	var cases []bad
	for _, d := range []string{"1e-400", "-1e-400", "2e-324", "5e-324", "2.225073858507201e-308", "1e309", "-1e309", "0.0"} {
		cases = append(cases, bad{simulateBody(d), "/jobs/0/stages/0/duration"})
	}
	// Integer fields written with a fraction or an exponent: the
	// decoders read them into Go ints, which refuse both.
	for _, tasks := range []string{"1.0", "1e0", "10e-1"} {
		cases = append(cases, bad{strings.Replace(simulateBody("1"), `"tasks":1`, `"tasks":`+tasks, 1), "/jobs/0/stages/0/tasks"})
	}
	cases = append(cases, bad{strings.Replace(simulateBody("1"), `{"machines"`, `{"budget_ms":1e3,"machines"`, 1), "/budget_ms"})
	for _, c := range cases {
		sync := h.do("POST", "/v1/tetris/simulate", c.body)
		want := problemErrors(t, sync)
		if sync.status != http.StatusUnprocessableEntity || len(want) != 1 || want[0].Pointer != c.ptr {
			t.Errorf("%s: POST /v1/tetris/simulate %d %s, want 422 with one violation at %s", c.body, sync.status, sync.body, c.ptr)
			continue
		}
		job := h.do("POST", "/v1/jobs", `{"problem":"tetris/simulate","input":`+c.body+`}`)
		if got := problemErrors(t, job); job.status != http.StatusUnprocessableEntity || !reflect.DeepEqual(got, prefixed("/input", want)) {
			t.Errorf("%s: POST /v1/jobs %d %v, want 422 %v", c.body, job.status, got, prefixed("/input", want))
		}
		// The same request as a merge patch of a valid base (the patch
		// replaces every top-level member).
		scen := h.do("POST", "/v1/jobs", `{"problem":"tetris/simulate","input":`+simulateBody("1")+`,"variants":[{"name":"v","patch":`+c.body+`}]}`)
		if got := problemErrors(t, scen); scen.status != http.StatusUnprocessableEntity || !reflect.DeepEqual(got, prefixed("/variants/0/patch", want)) {
			t.Errorf("%s: scenario %d %v, want 422 %v", c.body, scen.status, got, prefixed("/variants/0/patch", want))
		}
	}
	// The smallest normal float64 and a tiny arrival (0 as a float64,
	// where 0 is allowed) are fine on both paths.
	for _, body := range []string{simulateBody("2.2250738585072014e-308"), strings.Replace(simulateBody("1"), `"arrival":0`, `"arrival":1e-400`, 1)} {
		if r := h.do("POST", "/v1/tetris/simulate", body); r.status != http.StatusOK {
			t.Errorf("%s: POST /v1/tetris/simulate %d %s", body, r.status, r.body)
		}
		if r := h.do("POST", "/v1/jobs", `{"problem":"tetris/simulate","input":`+body+`}`); r.status != http.StatusAccepted {
			t.Errorf("%s: POST /v1/jobs %d %s", body, r.status, r.body)
		}
	}
}
