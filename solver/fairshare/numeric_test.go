package fairshare

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// An exact policy whose LP the backend cannot solve on the instance's
// numbers (CLP answered unbounded on demands and capacities of 1e-300, and
// failed on a demand of 3e10 against capacities of 4 to 14; both found by
// solver/robust, both inside build's ranges) is a 422 asking to rescale
// when it is the policy asked for, and an entry left out with a note in a
// comparison. Both used to be internal errors (500).
func TestLPNumericFailure(t *testing.T) {
	tiny := `{"budget_ms":200,"frameworks":[{"demand":[1e-300,1e-300],"name":"f1"},{"demand":[1e-300,1e-300],"name":"f2"}],"policy":"mmf","resources":["r1","r2"],"servers":[{"capacity":[1e-300,1e-300],"name":"s1"},{"capacity":[1e-300,1e-300],"name":"s2"}]}`
	_, _, err := Solve(context.Background(), []byte(tiny), solver.Options{})
	var xe *solver.Error
	if !errors.As(err, &xe) || xe.Kind != solver.KindInvalid || !strings.Contains(xe.Detail, "rescale") && !strings.Contains(xe.Detail, "orders of magnitude") {
		t.Fatalf("mmf on 1e-300: %v, want a 422 asking to rescale", err)
	}

	wide := `{"budget_ms":2000,"compare":true,"frameworks":[{"demand":[2,2],"name":"pi","weight":1.5},{"demand":[1,3e+10],"max_tasks":5,"name":"wordcount"}],"policy":"bfdrf","resources":["cpu","mem"],"seed":3,"server_selection":"rrr","servers":[{"capacity":[4,14],"count":2,"name":"type1"},{"capacity":[8,8],"count":2,"name":"type2"},{"capacity":[6,11],"count":2,"name":"type3"}],"trials":20}`
	out := solvertest.Check(t, Problem(), []byte(wide))
	notes := out["meta"].(map[string]any)["notes"]
	var left []string
	for _, n := range notes.([]any) {
		if s := n.(string); strings.HasPrefix(s, "compare: ") && strings.Contains(s, "left out") {
			left = append(left, s)
		}
	}
	if len(left) == 0 {
		t.Fatalf("no compare entry left out with a note: %v", notes)
	}
	for _, c := range out["result"].(map[string]any)["compare"].([]any) {
		for _, l := range left {
			if pol := c.(map[string]any)["policy"].(string); strings.HasPrefix(l, "compare: "+pol+" ") {
				t.Fatalf("%s is both listed and left out", pol)
			}
		}
	}
}
