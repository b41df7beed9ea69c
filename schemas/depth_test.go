package schemas

import (
	"strings"
	"testing"
)

// TestMaxDepth checks the depth bound on small schemas, one keyword each.
func TestMaxDepth(t *testing.T) {
	cases := []struct {
		name, schema string
		want         int
	}{
		{"scalar", `{"type":"number"}`, 0},
		{"closed object", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}`, 1},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}}}`, Unbounded},
		{"typed map", `{"type":"object","additionalProperties":{"type":"array","items":{"type":"number"}}}`, 2},
		{"array without items", `{"type":"array"}`, Unbounded},
		{"prefix only", `{"type":"array","prefixItems":[{"type":"number"}],"maxItems":1}`, 1},
		{"items", `{"type":"array","items":{"type":"object","additionalProperties":false}}`, 2},
		{"ref", `{"$defs":{"p":{"type":"array","items":{"type":"integer"}}},"$ref":"#/$defs/p"}`, 1},
		{"allOf lowers", `{"type":"object","allOf":[{"type":"object","additionalProperties":false}]}`, 1},
		{"anyOf deepest branch", `{"anyOf":[{"type":"number"},{"type":"array","items":{"type":"number"}}]}`, 1},
		{"enum", `{"enum":[1,[[2]],{"a":3}]}`, 2},
		{"const", `{"const":{"a":[1]}}`, 2},
		{"recursion", `{"$defs":{"t":{"type":"array","items":{"$ref":"#/$defs/t"}}},"$ref":"#/$defs/t"}`, Unbounded},
		{"true", `true`, Unbounded},
	}
	extra := map[string][]byte{}
	for _, c := range cases {
		extra[fileName(c.name)] = []byte(c.schema)
	}
	set, err := LoadWith(extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got, ok := set.MaxDepth(fileName(c.name)); !ok || got != c.want {
			t.Errorf("%s: MaxDepth %d (%v), want %d", c.name, got, ok, c.want)
		}
	}
	if _, ok := set.MaxDepth("nope.json"); ok {
		t.Error("unknown schema reported")
	}
}

func fileName(caseName string) string { return "t-" + strings.ReplaceAll(caseName, " ", "-") + ".json" }
