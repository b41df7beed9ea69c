package simulate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
)

// TestDecodeMatchesEncodingJSON: the sonic decoder (Problem's Decode)
// gives the request solver.Decode gives, on every stored request and on
// generated ones with patience and baselines, and refuses unknown fields.
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
	decode := solver.DecodeSonic[Request]
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
	if _, err := decode([]byte(`{"nodes": [], "unknown": 1}`)); err == nil {
		t.Error("an unknown field decoded without error")
	}
}
