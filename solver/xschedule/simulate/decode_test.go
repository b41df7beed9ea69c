package simulate

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestDecodeMatchesEncodingJSON: the sonic decoder (Problem's Decode)
// gives the request solver.Decode gives, on every stored request and on
// generated ones with patience and baselines, and refuses unknown fields.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	bodies := solvertest.Files(t, "testdata/*.json")
	for seed := range int64(4) {
		v, err := Generate(seed, map[string]string{"nodes": strconv.Itoa(4 + int(seed)), "garbo": "1", "requests": "60"})
		if err != nil {
			t.Fatal(err)
		}
		req := v.(*Request)
		patience := 7.5 + float64(seed)
		if req.Settings == nil {
			req.Settings = &Settings{}
		}
		req.Settings.Patience = &patience
		req.Baselines = []string{"drf", "yarn_fair"}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	solvertest.DecodeMatches(t, solver.DecodeSonic[Request], bodies, `{"nodes": [], "unknown": 1}`)
}
