package client

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/oapi-codegen/oapi-codegen/v2/pkg/codegen"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

var update = flag.Bool("update", false, "rewrite client.gen.go from the served OpenAPI document")

// genFile is the generated client, committed.
const genFile = "client.gen.go"

// newServer is the full server (every problem and the jobs routes on a
// SQLite store in a temporary directory), as `xflex serve` builds it.
func newServer(t *testing.T) *httpapi.Server {
	t.Helper()
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(httpapi.Config{}, runner, zerolog.Nop())
	stop, err := jobs.Setup(context.Background(), jobs.Config{Store: "sqlite:" + filepath.Join(t.TempDir(), "j.db")},
		runner, api, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return api
}

// servedDocument is GET /v1/openapi.json of the full server.
func servedDocument(t *testing.T, api *httpapi.Server) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	api.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/v1/openapi.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		_, err := api.OpenAPI()
		t.Fatalf("GET /v1/openapi.json: %d %s (%v): %s", rec.Code, rec.Header().Get("Content-Type"), err, rec.Body)
	}
	return rec.Body.Bytes()
}

// loadDocument loads and validates the document with kin-openapi as
// OpenAPI 3.1 (kin-openapi detects the version and reads the JSON Schema
// 2020-12 keywords), with examples, defaults and patterns checked too.
func loadDocument(t *testing.T, raw []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("load the OpenAPI document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError(), openapi3.EnableExamplesValidation(),
		openapi3.EnableSchemaDefaultsValidation(), openapi3.EnableSchemaPatternValidation()); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	return doc
}

// TestOpenAPIDocument: the served document is valid OpenAPI 3.1, every
// $ref in it resolves, and it has one operation per route of the server
// and no other.
func TestOpenAPIDocument(t *testing.T) {
	api := newServer(t)
	raw := servedDocument(t, api)
	doc := loadDocument(t, raw)
	checkRefs(t, raw)
	checkExamples(t, doc)

	want := map[string]bool{}
	err := chi.Walk(api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if slices.Contains(httpapi.UndocumentedRoutes, method+" "+route) {
			return nil
		}
		want[method+" "+route] = true
		if doc.Paths.Find(route) == nil || doc.Paths.Find(route).GetOperation(method) == nil {
			t.Errorf("%s %s is served but not in the OpenAPI document: add it to httpapi's operation table", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !want[method+" "+path] {
				t.Errorf("%s %s is in the document but not served", method, path)
			}
			if op.Responses.Value("200") == nil && op.Responses.Value("202") == nil {
				t.Errorf("%s %s documents no success answer", method, path)
			}
		}
	}
	if len(want) < 20 {
		t.Errorf("walked only %d routes", len(want))
	}
}

// checkExamples validates every schema's examples and default against the
// schema itself, with kin-openapi's JSON Schema 2020-12 validator: its
// document validation checks OpenAPI 3.0's example but not 3.1's
// examples keyword.
func checkExamples(t *testing.T, doc *openapi3.T) {
	t.Helper()
	seen := map[*openapi3.Schema]bool{}
	n := 0
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		values := s.Examples
		if s.Default != nil {
			values = append(values, s.Default)
		}
		for _, v := range values {
			n++
			if err := s.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("example or default %v of %q does not match its schema: %v", v, s.Description, err)
			}
		}
		for _, c := range subschemas(s) {
			walk(c)
		}
	}
	for _, ref := range doc.Components.Schemas {
		walk(ref)
	}
	if n == 0 {
		t.Error("no schema has examples or a default")
	}
}

// subschemas are the schemas directly inside s.
func subschemas(s *openapi3.Schema) []*openapi3.SchemaRef {
	out := []*openapi3.SchemaRef{s.Items, s.AdditionalProperties.Schema, s.Not, s.If, s.Then, s.Else, s.PropertyNames}
	for _, p := range s.Properties {
		out = append(out, p)
	}
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf, s.PrefixItems} {
		out = append(out, list...)
	}
	return out
}

// checkRefs checks that every "$ref" in the document names a component
// that exists (kin-openapi resolves them while loading too; this also
// catches a $ref the loader would leave unresolved inside a keyword it
// does not model).
func checkRefs(t *testing.T, raw []byte) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(node any)
	walk = func(node any) {
		switch v := node.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				n++
				if !resolves(doc, ref) {
					t.Errorf("$ref %q does not resolve", ref)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	if n < 100 {
		t.Errorf("only %d $refs: the schemas' references went missing", n)
	}
}

// resolves reports whether ref is a local JSON pointer to a node of doc.
func resolves(doc map[string]any, ref string) bool {
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var node any = doc
	for _, tok := range strings.Split(ptr, "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return false
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if node, ok = m[tok]; !ok {
			return false
		}
	}
	return true
}

// generate runs oapi-codegen's generator on the document: types and a
// client with typed answers.
func generate(t *testing.T, raw []byte) []byte {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Generate(doc, codegen.Configuration{
		PackageName: "client",
		// No other option: the document's formats (double, int64) give
		// float64 and int64 with oapi-codegen's defaults.
		Generate: codegen.GenerateOptions{Models: true, Client: true},
	})
	if err != nil {
		t.Fatalf("oapi-codegen: %v", err)
	}
	return []byte(src)
}

// TestClientFresh: client.gen.go is what oapi-codegen generates from the
// document the server serves now (rewrite it with -update).
func TestClientFresh(t *testing.T) {
	src := generate(t, servedDocument(t, newServer(t)))
	if *update {
		if err := os.WriteFile(genFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(genFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatalf("%s is stale: the OpenAPI document changed; run go test ./client -run TestClientFresh -update", genFile)
	}
}
