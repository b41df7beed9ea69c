package plan

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// TestAnswerSonic: the summary's sonic decode of a simulation's answer
// (answerSonic) gives what encoding/json gives (answerOf), on generated
// simulations with patience and every baseline, and falls back to
// encoding/json's error on a body sonic refuses.
func TestAnswerSonic(t *testing.T) {
	r, err := solver.NewRunner([]solver.Problem{simulate.Problem()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range int64(6) {
		v, err := simulate.Generate(seed, map[string]string{"nodes": strconv.Itoa(6 + int(seed)), "apps": "3", "requests": "120"})
		if err != nil {
			t.Fatal(err)
		}
		req := v.(*simulate.Request)
		patience := 20.0
		if req.Settings == nil {
			req.Settings = &simulate.Settings{}
		}
		req.Settings.Patience = &patience
		req.Baselines = []string{"drf", "drf_best_fit", "yarn_fair", "yarn_capacity"}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := r.Run(context.Background(), "xschedule/simulate", raw)
		if err != nil {
			t.Fatal(err)
		}
		out, err := resp.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		run := &StageRun{Endpoint: "xschedule/simulate", Response: out}
		fast, err := answerSonic[simAnswer](run)
		if err != nil {
			t.Fatal(err)
		}
		want, err := answerOf[simAnswer](run)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("seed %d: sonic decoded\n%+v\nencoding/json\n%+v", seed, fast, want)
		}
		if len(want.Events) == 0 || len(want.Utilization.Points) < 2 || len(want.Baselines) < 3 {
			t.Fatalf("seed %d: too little to compare: %d events, %d points, %d baselines", seed, len(want.Events), len(want.Utilization.Points), len(want.Baselines))
		}
	}
	bad := &StageRun{Endpoint: "xschedule/simulate", Response: []byte(`{"result": {"until": "x"}}`)}
	if _, err := answerSonic[simAnswer](bad); err == nil {
		t.Fatal("a string until decoded without error")
	}
}
