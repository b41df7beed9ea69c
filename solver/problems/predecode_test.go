package problems

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// TestLargeRequestsDecodeBeforeTheBudget: every problem whose requests
// run to megabytes decodes them in Problem.Decode, which the Runner runs
// while it validates the body, and Solve works from that value without
// reading the body again, so decoding is not taken from budget_ms (issue
// 15: 0.3 s of a 50 ms budget for 100,000 CMMF users). Solve here gets a
// body it could not decode and must answer from opts.Decoded.
func TestLargeRequestsDecodeBeforeTheBudget(t *testing.T) {
	large := map[string]bool{"cmmf": true, "flex": true, "fairshare": true, "xsize": true, "xselect": true, "tetris/assign": true}
	for _, p := range All() {
		if !large[p.Name] {
			continue
		}
		t.Run(p.Command(), func(t *testing.T) {
			if p.Decode == nil {
				t.Fatalf("%s has no Decode hook", p.Name)
			}
			req, err := p.Generate(1, map[string]string{})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			v, err := p.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			opts := solver.Options{Budget: 5 * time.Second, Start: time.Now(), Decoded: v}
			if _, _, err := p.Solve(ctx, json.RawMessage(`not json`), opts); err != nil {
				t.Fatalf("Solve read the body instead of opts.Decoded: %v", err)
			}
		})
	}
}
