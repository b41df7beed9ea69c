package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

// The OpenAPI 3.1 document served at GET /v1/openapi.json is built from
// the embedded JSON Schemas, never from copies of them: every schema file
// becomes one component (its file name without ".json") and each of its
// $defs one more (FILE.DEF), with every $ref rewritten to point at those
// components, so the document is self-contained and any OpenAPI tool can
// read it without fetching https://xflex.dev/schemas/. The operations come
// from the table in openapi_ops.go, kept to the routes the server really
// serves (the jobs routes only when a job store is mounted), and each
// one's security from the auth policy (authpolicy.go).

// openAPIVersion is the OpenAPI version the document follows; 3.1 uses
// JSON Schema 2020-12, the embedded schemas' dialect, unchanged.
const openAPIVersion = "3.1.0"

// componentPrefix is where a rewritten $ref points.
const componentPrefix = "#/components/schemas/"

// OpenAPI returns the OpenAPI document of the server's routes as they are
// when it is first asked, built once: `xflex serve` asks at start-up,
// once the jobs routes are mounted, and refuses to start on an error.
func (s *Server) OpenAPI() ([]byte, error) {
	s.openapiOnce.Do(func() { s.openapiDoc, s.openapiErr = s.buildOpenAPI() })
	return s.openapiDoc, s.openapiErr
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	b, err := s.OpenAPI()
	if err != nil {
		s.WriteError(w, r, &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// buildOpenAPI assembles the document: info, the served operations and
// the components.
func (s *Server) buildOpenAPI() ([]byte, error) {
	comps, err := schemaComponents(s.runner.Schemas())
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, op := range s.operations() {
		if !servesRoute(s.router, op.method, op.path) {
			continue
		}
		item, _ := paths[op.path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[op.path] = item
		}
		item[strings.ToLower(op.method)] = op.object(s.policy.access(op.path))
	}
	addSubmissions(comps, s.runner.Problems())
	numberFormats(comps)
	generic, err := roundTrip(paths)
	if err != nil {
		return nil, err
	}
	numberFormats(generic)
	doc := map[string]any{
		"openapi":           openAPIVersion,
		"servers":           openAPIServers,
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info":              openAPIInfo(),
		"tags":              openAPITags,
		"paths":             generic,
		"components": map[string]any{
			"schemas":         comps,
			"responses":       problemResponses(),
			"securitySchemes": map[string]any{"bearer": bearerScheme},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	return append(b, '\n'), nil
}

// roundTrip is v as encoding/json decodes it (maps, slices, json.Number),
// which numberFormats walks.
func roundTrip(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the OpenAPI paths: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("decode the OpenAPI paths: %w", err)
	}
	return out, nil
}

// openAPIServers is where a generated client points by default: the
// address `xflex serve` listens on without --addr.
var openAPIServers = []map[string]any{{"url": "http://127.0.0.1:8080",
	"description": "xflex serve with its default --addr; clients pass their own base URL (XFLEX_SERVER for the CLI)."}}

// routeParam matches a route's {name} parameters.
var routeParam = regexp.MustCompile(`\{[^}]*\}`)

// servesRoute reports whether routes has a handler for method on the
// route pattern path (parameters filled with "x").
func servesRoute(routes chi.Routes, method, path string) bool {
	return routes.Match(chi.NewRouteContext(), method, routeParam.ReplaceAllString(path, "x"))
}

func openAPIInfo() map[string]any {
	return map[string]any{
		"title":   "xflex",
		"version": solver.Version,
		"summary": "Offline optimization and packing problems behind cluster schedulers",
		"description": "Every problem is POST /v1/{problem} with a JSON body (its request schema) answering " +
			"{\"result\": ..., \"meta\": ...} (its response schema); asynchronous jobs run the same solves. " +
			"Errors are RFC 9457 application/problem+json documents (components/schemas/common.problem) " +
			"whose `errors` locate each violation by JSON pointer. A method a path does not serve gets 405 " +
			"with an Allow header; a path the server does not serve gets 404; HEAD is served wherever GET is. " +
			"Without an auth file only requests whose Host is a loopback name or address (or an --allowed-host) " +
			"are served, any other gets 421 (type .../misdirected_host). With an auth file, every " +
			"operation but the open ones needs `Authorization: Bearer TOKEN` (401 without a known token) " +
			"and the scope its security requirement names (403 without it). Request bodies may be sent " +
			"with Content-Encoding: gzip, and responses of 1 KB or more are gzipped for clients that send " +
			"Accept-Encoding: gzip.",
	}
}

// openAPITags group the operations.
var openAPITags = []map[string]any{
	{"name": "problems", "description": "Synchronous solves: POST /v1/{problem}."},
	{"name": "jobs", "description": "Asynchronous solves and what-if scenarios."},
	{"name": "schemas", "description": "The JSON Schemas of every request and response, and this document."},
	{"name": "operations", "description": "Health, readiness and version, for probes and operators."},
	{"name": "ui", "description": "The planners' web page (/ui/) and its files: no data, open without a token."},
}

// bearerScheme is the auth file's tokens (see `xflex token new`).
var bearerScheme = map[string]any{
	"type": "http", "scheme": "bearer",
	"description": "A token from the server's auth file, when it has one (without one every request is the " +
		"local tenant with every scope). The requirement's list names the scope an operation needs: " +
		"solve, jobs or admin (admin has access to every tenant's jobs).",
}

// schemaComponents converts every embedded schema file into components
// (see the comment at the top of this file). A $ref into a schema below
// the top of a file or of one of its $defs ("OTHER.json#/properties/apps")
// moves that schema into a component of its own, named after its path
// (OTHER.properties.apps), and leaves a $ref to it in its place, since
// code generators resolve references to components only.
func schemaComponents(set *schemas.Set) (map[string]any, error) {
	roots := map[string]map[string]any{}
	nested := map[refTarget]bool{}
	for _, file := range set.Names() {
		raw, _ := set.Raw(file)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // keep every bound as written
		var root map[string]any
		if err := dec.Decode(&root); err != nil {
			return nil, fmt.Errorf("schema %s: %w", file, err)
		}
		if err := rewriteRefs(root, file, nested); err != nil {
			return nil, fmt.Errorf("schema %s: %w", file, err)
		}
		roots[file] = root
	}
	out := map[string]any{}
	if err := hoist(roots, nested, out); err != nil {
		return nil, err
	}
	for file, root := range roots {
		name := componentName(file)
		defs, _ := root["$defs"].(map[string]any)
		for def, sch := range defs {
			out[name+"."+def] = sch
		}
		delete(root, "$defs")
		delete(root, "$schema")
		delete(root, "$id")
		out[name] = root
	}
	return out, nil
}

// refTarget is a schema some $ref points at below the top of its file or
// of one of its $defs: the file and the JSON pointer.
type refTarget struct{ file, ptr string }

// hoist moves every nested target into out under its component name,
// leaving a $ref in its place; deeper targets go first, so a target inside
// another moves out of it before the outer one moves.
func hoist(roots map[string]map[string]any, nested map[refTarget]bool, out map[string]any) error {
	targets := make([]refTarget, 0, len(nested))
	for t := range nested {
		targets = append(targets, t)
	}
	sort.Slice(targets, func(i, j int) bool {
		a, b := targets[i], targets[j]
		if len(a.ptr) != len(b.ptr) {
			return len(a.ptr) > len(b.ptr)
		}
		return a.file+a.ptr < b.file+b.ptr
	})
	for _, t := range targets {
		name, _ := nestedName(t.file, t.ptr)
		parent, key, err := parentOf(roots[t.file], t.ptr)
		if err != nil {
			return fmt.Errorf("schema %s: $ref to #%s: %w", t.file, t.ptr, err)
		}
		ref := map[string]any{"$ref": componentPrefix + name}
		switch p := parent.(type) {
		case map[string]any:
			out[name], p[key] = p[key], ref
		case []any:
			i, _ := strconv.Atoi(key)
			out[name], p[i] = p[i], ref
		}
	}
	return nil
}

// parentOf returns the object or array holding the node at ptr in root,
// and the node's key (an index for an array).
func parentOf(root map[string]any, ptr string) (any, string, error) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var node any = root
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next any
		switch n := node.(type) {
		case map[string]any:
			next = n[tok]
		case []any:
			if k, err := strconv.Atoi(tok); err == nil && k >= 0 && k < len(n) {
				next = n[k]
			}
		}
		if next == nil {
			return nil, "", fmt.Errorf("nothing at %q", tok)
		}
		if i == len(toks)-1 {
			return node, tok, nil
		}
		node = next
	}
	return nil, "", fmt.Errorf("empty pointer")
}

// componentName is a schema file's component: its name without ".json".
func componentName(file string) string { return strings.TrimSuffix(file, ".json") }

// SchemaRef is the document's $ref to a schema file's component.
func SchemaRef(file string) map[string]any {
	return map[string]any{"$ref": componentPrefix + componentName(file)}
}

// DefRef is the document's $ref to one of a schema file's $defs.
func DefRef(file, def string) map[string]any {
	return map[string]any{"$ref": componentPrefix + componentName(file) + "." + def}
}

// rewriteRefs rewrites, in place, every $ref under node of the schema
// file named file to a component reference, adding the nested schemas
// they point at to nested.
func rewriteRefs(node any, file string, nested map[refTarget]bool) error {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if ref, ok := v.(string); ok && k == "$ref" {
				to, t, err := componentRef(ref, file)
				if err != nil {
					return err
				}
				if t != nil {
					nested[*t] = true
				}
				n[k] = to
				continue
			}
			if err := rewriteRefs(v, file, nested); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range n {
			if err := rewriteRefs(v, file, nested); err != nil {
				return err
			}
		}
	}
	return nil
}

// componentRef maps a $ref of the schema file named file, with or without
// the base URL, to its component: "OTHER.json" (or "#") to the file's,
// "OTHER.json#/$defs/D" to D's (OTHER.D), and any deeper JSON pointer to
// the component its target becomes (see nestedName), which it returns
// too. An anchor (a fragment that is no pointer) is an error, so a schema
// that starts using one fails the OpenAPI test at once.
func componentRef(ref, file string) (string, *refTarget, error) {
	target, frag, _ := strings.Cut(strings.TrimPrefix(ref, schemas.BaseURL), "#")
	if target == "" {
		target = file
	}
	name := componentPrefix + componentName(target)
	if frag == "" {
		return name, nil, nil
	}
	if def, ok := strings.CutPrefix(frag, "/$defs/"); ok && !strings.Contains(def, "/") {
		return name + "." + def, nil, nil
	}
	nn, err := nestedName(target, frag)
	if err != nil {
		return "", nil, fmt.Errorf("$ref %q: %w", ref, err)
	}
	return componentPrefix + nn, &refTarget{file: target, ptr: frag}, nil
}

// componentKey is what OpenAPI allows in a component's name.
var componentKey = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// nestedName is the component of the schema at JSON pointer ptr of file:
// the file's component and the pointer's tokens joined by dots, a leading
// /$defs/ left out (xschedule-assign.request.properties.apps,
// common.meta.properties.status).
func nestedName(file, ptr string) (string, error) {
	path, ok := strings.CutPrefix(ptr, "/")
	if !ok || path == "$defs" {
		return "", fmt.Errorf("only JSON pointers to schemas can be referenced, not anchors")
	}
	path = strings.TrimPrefix(path, "$defs/")
	name := componentName(file) + "." + strings.ReplaceAll(path, "/", ".")
	if !componentKey.MatchString(name) {
		return "", fmt.Errorf("the pointer makes no component name (%q)", name)
	}
	return name, nil
}

// problemStatuses are the problem+json answers the operations refer to
// (components/responses/ problemN), with what each means here.
var problemStatuses = map[int]string{
	400: "Malformed JSON, a body that is not valid UTF-8 (the detail gives the byte offset), an unreadable body or a malformed header (type .../malformed).",
	401: "The server has an auth file and the request carries no known Bearer token (WWW-Authenticate says which).",
	403: "The token lacks the scope the operation needs.",
	404: "No such problem, schema, job or variant (another tenant's job is not found either).",
	405: "The path does not serve this method; the Allow header lists the methods it does.",
	406: "The Accept header names no media type this operation can produce (application/json, and image/svg+xml where a picture is offered).",
	408: "The body did not arrive within the server's --read-body-timeout.",
	409: "The job is in a state that does not allow this (not finished yet, already finished, or cancelled before any answer).",
	413: "The body (decompressed) exceeds --max-body, or a scenario's stored inputs exceed their limit.",
	415: "The body is not JSON (Content-Type application/json or application/*+json) or its Content-Encoding is not gzip.",
	422: "The request does not match its schema (errors lists each violation by JSON pointer), is semantically " +
		"invalid (unknown or duplicate names, contradictions), is infeasible (type .../infeasible: no valid " +
		"solution exists; meta.status never says infeasible) or ran out of budget before any answer (type .../budget_exhausted).",
	429: "A job quota of the tenant is reached; retry after the seconds in Retry-After.",
	500: "The server failed; request_id locates its log entry.",
	503: "The memory for requests in flight, or then a solve slot, stayed taken for --queue-wait; or (a job submission) the job store " +
		"cannot write (type .../store_full: no space; .../store_unavailable: read-only, I/O error, lost connection); retry after the seconds in Retry-After.",
}

// problemResponses are components/responses: one problem+json answer per
// status in problemStatuses.
func problemResponses() map[string]any {
	out := map[string]any{}
	for code, desc := range problemStatuses {
		resp := map[string]any{
			"description": desc,
			"content":     map[string]any{"application/problem+json": map[string]any{"schema": DefRef("common.json", "problem")}},
		}
		if code == 429 || code == 503 {
			resp["headers"] = map[string]any{"Retry-After": retryAfterHeader}
		}
		out["problem"+strconv.Itoa(code)] = resp
	}
	return out
}

var retryAfterHeader = map[string]any{
	"description": "Seconds to wait before retrying.",
	"schema":      map[string]any{"type": "integer", "minimum": 0},
}

// problemRef refers to the problem+json answer with status code.
func problemRef(code int) map[string]any {
	return map[string]any{"$ref": "#/components/responses/problem" + strconv.Itoa(code)}
}
