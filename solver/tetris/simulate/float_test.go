package simulate

import (
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/internal/tetristest"
)

// A duration the schema requires to be > 0 is judged as the float64 the
// simulator decodes: 1e-400 (0.0, which made the response NaN and the
// HTTP answer a 500), a subnormal (whose reciprocal is infinite) and a
// number beyond the float64 range are schema violations at its pointer;
// the smallest normal float64 is simulated.
func TestDurationJudgedAsFloat64(t *testing.T) {
	body := func(d string) string {
		return `{"machines":[{"name":"m","capacity":{"cpu":4,"memory":4}}],"jobs":[{"id":"a","arrival":0,"stages":[{"name":"s","tasks":1,"demand":{"cpu":1},"duration":` + d + `}]}]}`
	}
	for _, d := range []string{"1e-400", "0.0000000000000000000000000000000000000001e-300", "5e-324", "-5e-324", "2.225073858507201e-308", "1e309", "1e999999999"} {
		tetristest.ExpectViolation(t, Problem(), body(d), solver.KindSchema, "/jobs/0/stages/0/duration")
	}
	// Counts are Go ints: written with a fraction or an exponent they are
	// schema violations, not decoder failures.
	for _, tasks := range []string{"1.0", "1e0", "10e-1", "1e-400"} {
		tetristest.ExpectViolation(t, Problem(), strings.Replace(body("1"), `"tasks":1`, `"tasks":`+tasks, 1), solver.KindSchema, "/jobs/0/stages/0/tasks")
	}
	tetristest.ExpectViolation(t, Problem(), strings.Replace(body("1"), `{"machines"`, `{"seed":1e2,"machines"`, 1), solver.KindSchema, "/seed")
	res := tetristest.Result[Result](t, Problem(), []byte(body("2.2250738585072014e-308")))
	if !res.Complete || res.Makespan <= 0 {
		t.Errorf("smallest normal duration: complete %v makespan %v", res.Complete, res.Makespan)
	}
	// Where the schema admits 0 (arrival), a number whose float64 is 0 is 0.
	res = tetristest.Result[Result](t, Problem(), []byte(strings.Replace(body("1"), `"arrival":0`, `"arrival":1e-400`, 1)))
	if !res.Complete || res.Makespan != 1 {
		t.Errorf("arrival 1e-400: complete %v makespan %v, want 1", res.Complete, res.Makespan)
	}
}
