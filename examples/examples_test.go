package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestServesEveryFile: every JSON file of the directory is served
// under its name, byte for byte, and is valid JSON; a name with no file
// (or a path trying to leave the directory) is not.
func TestRequestServesEveryFile(t *testing.T) {
	names, err := filepath.Glob("*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	for _, n := range names {
		want, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Request(strings.TrimSuffix(n, ".json"))
		if !ok || string(got) != string(want) {
			t.Errorf("%s: served %d bytes (ok %v), file has %d", n, len(got), ok, len(want))
		}
		if !json.Valid(got) {
			t.Errorf("%s is not valid JSON", n)
		}
	}
	for _, bad := range []string{"nope", "../go", "", "cmmf.json"} {
		if _, ok := Request(bad); ok {
			t.Errorf("Request(%q) found something", bad)
		}
	}
}
