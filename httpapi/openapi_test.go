package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/xflex/xflex/schemas"
)

// TestOpenAPIServedRoutesOnly: without a job store the document has no
// jobs paths; the problem's operation refers to its schemas' components,
// needs the solve scope and lists its problem+json answers.
func TestOpenAPIServedRoutesOnly(t *testing.T) {
	h := newHarness(t, Config{})
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	if _, ok := doc.Paths["/v1/jobs"]; ok {
		t.Error("/v1/jobs is documented on a server without jobs")
	}
	op := doc.Paths["/v1/selftest"]["post"]
	if op == nil {
		t.Fatalf("no POST /v1/selftest in %v", doc.Paths)
	}
	b, _ := json.Marshal(op)
	var got struct {
		Security    []map[string][]string `json:"security"`
		RequestBody struct {
			Content map[string]struct {
				Schema map[string]string `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
		Responses map[string]any `json:"responses"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Security) != 1 || len(got.Security[0]["bearer"]) != 1 || got.Security[0]["bearer"][0] != "solve" {
		t.Errorf("security %v, want bearer with scope solve", got.Security)
	}
	if ref := got.RequestBody.Content["application/json"].Schema["$ref"]; ref != "#/components/schemas/selftest.request" {
		t.Errorf("request $ref %q", ref)
	}
	for _, code := range []string{"200", "400", "401", "403", "413", "415", "422", "503"} {
		if got.Responses[code] == nil {
			t.Errorf("no %s answer", code)
		}
	}
}

// TestComponentRef: the $ref forms the schemas use map to components (a
// nested target to the component it becomes); an anchor is refused, so a schema starting to
// use one fails the document's build instead of producing a dangling
// reference.
func TestComponentRef(t *testing.T) {
	for _, c := range []struct{ ref, want string }{
		{"#/$defs/vector", "#/components/schemas/tetris-assign.request.vector"},
		{"common.json#/$defs/name", "#/components/schemas/common.name"},
		{"jobs.job.json", "#/components/schemas/jobs.job"},
		{"https://xflex.dev/schemas/common.json#/$defs/meta", "#/components/schemas/common.meta"},
		{"#", "#/components/schemas/tetris-assign.request"},
		{"common.json#/$defs/meta/properties/status", "#/components/schemas/common.meta.properties.status"},
		{"xschedule-assign.request.json#/properties/apps", "#/components/schemas/xschedule-assign.request.properties.apps"},
		{"#/properties/jobs/items", "#/components/schemas/tetris-assign.request.properties.jobs.items"},
	} {
		if got, _, err := componentRef(c.ref, "tetris-assign.request.json"); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.ref, got, err, c.want)
		}
	}
	for _, ref := range []string{"#anchor", "common.json#meta", "#/$defs"} {
		if got, _, err := componentRef(ref, "x.json"); err == nil {
			t.Errorf("%s: %q, want an error", ref, got)
		}
	}
}

// TestSchemaComponentsHoist: a $ref to a schema nested in another file
// (and one nested inside that) makes each a component, with a $ref left
// where it was, so every reference names a component.
func TestSchemaComponentsHoist(t *testing.T) {
	set, err := schemas.LoadWith(map[string][]byte{
		"a.json": []byte(`{"$id": "https://xflex.dev/schemas/a.json", "type": "object", "properties": {
			"x": {"type": "object", "properties": {"y": {"type": "integer"}}}}}`),
		"b.json": []byte(`{"$id": "https://xflex.dev/schemas/b.json", "type": "object", "properties": {
			"p": {"$ref": "a.json#/properties/x"}, "q": {"$ref": "a.json#/properties/x/properties/y"}}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	comps, err := schemaComponents(set)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"a": comps["a"], "x": comps["a.properties.x"], "y": comps["a.properties.x.properties.y"], "b": comps["b"]})
	want := `{"a":{"properties":{"x":{"$ref":"#/components/schemas/a.properties.x"}},"type":"object"},` +
		`"b":{"properties":{"p":{"$ref":"#/components/schemas/a.properties.x"},"q":{"$ref":"#/components/schemas/a.properties.x.properties.y"}},"type":"object"},` +
		`"x":{"properties":{"y":{"$ref":"#/components/schemas/a.properties.x.properties.y"}},"type":"object"},` +
		`"y":{"type":"integer"}}`
	if string(b) != want {
		t.Errorf("components\n%s\nwant\n%s", b, want)
	}
}
