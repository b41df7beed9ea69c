package cmmf

import (
	"encoding/json"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// TestDecodeMatchesEncodingJSON checks that the sonic decoder gives the
// request solver.Decode gives, on every stored request and on generated
// ones with weights, demands and individual machines.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	bodies := solvertest.Files(t, "testdata/*.json")
	for seed, p := range []GenParams{{Users: 30, Types: 6, Machines: 90, Weighted: true, CappedFrac: 0.5},
		{Users: 10, Types: 4, Machines: 40, Individual: true}} {
		b, err := json.Marshal(GenerateRequest(int64(seed), p))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	solvertest.DecodeMatches(t, decode, bodies, `{"users": [], "unknown": 1}`)
}
