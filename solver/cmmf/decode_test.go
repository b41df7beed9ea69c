package cmmf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xflex/xflex/solver"
)

// TestDecodeMatchesEncodingJSON checks that the sonic decoder gives the
// request solver.Decode gives, on every stored request and on generated
// ones with weights, demands and individual machines.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	var bodies [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	for seed, p := range []GenParams{{Users: 30, Types: 6, Machines: 90, Weighted: true, CappedFrac: 0.5},
		{Users: 10, Types: 4, Machines: 40, Individual: true}} {
		b, err := json.Marshal(GenerateRequest(int64(seed), p))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	for k, b := range bodies {
		got, err := decode(b)
		if err != nil {
			t.Fatalf("body %d: %v", k, err)
		}
		var want Request
		if err := solver.Decode(b, &want); err != nil {
			t.Fatalf("body %d: %v", k, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("body %d: sonic decoded %+v, encoding/json %+v", k, *got, want)
		}
	}
	if _, err := decode([]byte(`{"users": [], "unknown": 1}`)); err == nil {
		t.Error("an unknown field decoded without error")
	}
}
