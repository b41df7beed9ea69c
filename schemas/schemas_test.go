package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAllSchemasCompile fails on any embedded schema that is not valid
// draft 2020-12 or has a dangling $ref.
func TestAllSchemasCompile(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range s.Names() {
		b, _ := s.Raw(n)
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if doc["$id"] != BaseURL+n {
			t.Errorf("%s: $id is %v, want %s", n, doc["$id"], BaseURL+n)
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", n, doc["$schema"])
		}
		if strings.HasSuffix(n, ".request.json") {
			props, _ := doc["properties"].(map[string]any)
			if _, ok := props["budget_ms"]; !ok {
				t.Errorf("%s: requests must accept budget_ms", n)
			}
			if _, ok := props["seed"]; !ok {
				t.Errorf("%s: requests must accept seed", n)
			}
		}
	}
}

func TestNamePattern(t *testing.T) {
	s, err := LoadWith(map[string][]byte{"t.json": []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://xflex.dev/schemas/t.json","$ref":"common.json#/$defs/name"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v  string
		ok bool
	}{{"a", true}, {"node-7/x", true}, {"", false}, {"a\nb", false}, {strings.Repeat("x", 129), false}} {
		if got := len(s.Validate("t.json", c.v)) == 0; got != c.ok {
			t.Errorf("name %q: valid=%v, want %v", c.v, got, c.ok)
		}
	}
}
