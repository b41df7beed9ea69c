package httpapi

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xflex/xflex/solver"
)

// operation is one route of the OpenAPI document. A route added to the
// server gets a row here (TestOpenAPIDocument in client walks
// the full server's router to check).
type operation struct {
	method, path                  string
	id, tag, summary, description string
	params                        []map[string]any
	body                          map[string]any         // the requestBody object, or nil
	ok                            map[int]map[string]any // the non-problem answers by status
	problems                      []int                  // the problem+json answers
}

// object is the operation's OpenAPI object; need (from the auth policy)
// gives its security requirement and its 401 and 403 answers.
func (op operation) object(need access) map[string]any {
	responses := map[string]any{}
	for code, resp := range op.ok {
		responses[strconv.Itoa(code)] = resp
	}
	problems := slices.Clone(op.problems)
	security := []any{}
	if !need.open {
		scopes := []string{}
		problems = append(problems, 401)
		if need.scope != "" {
			scopes = append(scopes, string(need.scope))
			problems = append(problems, 403)
		}
		security = append(security, map[string]any{"bearer": scopes})
	}
	for _, code := range problems {
		responses[strconv.Itoa(code)] = problemRef(code)
	}
	out := map[string]any{
		"operationId": op.id, "tags": []string{op.tag}, "summary": op.summary,
		"responses": responses, "security": security,
	}
	if op.description != "" {
		out["description"] = op.description
	}
	if len(op.params) > 0 {
		out["parameters"] = op.params
	}
	if op.body != nil {
		out["requestBody"] = op.body
	}
	return out
}

// operations lists every route the server may serve: its own, one per
// problem, and the jobs routes (served when a job store is mounted).
func (s *Server) operations() []operation {
	ops := append([]operation{}, serviceOperations...)
	for _, p := range s.runner.Problems() {
		ops = append(ops, solveOperation(p), exampleOperation(p))
		if p.Picture != nil {
			ops = append(ops, pictureOperation(p))
		}
	}
	return append(ops, jobOperations(s.runner.Problems())...)
}

// solveProblems are the answers of POST /v1/{problem} besides 200.
var solveProblems = []int{400, 406, 408, 413, 415, 422, 500, 503}

// solveOperation is POST /v1/{problem}.
func solveOperation(p solver.Problem) operation {
	return operation{
		method: "POST", path: "/v1/" + p.Name, id: "solve" + camel(p.Command()), tag: "problems",
		summary: p.Summary,
		description: "Validates the body against " + p.RequestSchema + ", solves within budget_ms and answers " +
			p.ResponseSchema + "; `xflex solve " + p.Command() + " FILE` prints the same body. " +
			"Accept: image/svg+xml asks for a picture of the answer instead (POST " + PicturePath(p) + " answers only that, for clients generated from this document).",
		body: jsonBody(SchemaRef(p.RequestSchema), "The request (schema "+p.RequestSchema+")."),
		ok: map[int]map[string]any{200: {
			"description": "The answer: result and meta (meta.status optimal, feasible or timeout).",
			"content": map[string]any{
				"application/json": map[string]any{"schema": SchemaRef(p.ResponseSchema)},
			},
		}},
		problems: solveProblems,
	}
}

// exampleOperation is GET /v1/examples/{problem}, the problem's example
// request, listed once a server serves it.
func exampleOperation(p solver.Problem) operation {
	return operation{
		method: "GET", path: "/v1/examples/" + p.Name, id: "example" + camel(p.Command()), tag: "problems",
		summary: "An example request for POST /v1/" + p.Name,
		ok:      map[int]map[string]any{200: jsonAnswer("The example (examples/"+p.Command()+".json).", SchemaRef(p.RequestSchema))},
	}
}

// svgContent is the picture a solve or a job's result answers for
// Accept: image/svg+xml.
var svgContent = map[string]any{"schema": map[string]any{
	"type":        "string",
	"description": "A complete SVG document drawing the answer (with a viewBox, <title> and <desc>); deterministic for a given request and seed. A problem that draws no picture answers 406.",
}}

// camel turns "tetris-assign" into "TetrisAssign".
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// jsonBody is a required application/json request body.
func jsonBody(schema map[string]any, desc string) map[string]any {
	return map[string]any{"required": true, "description": desc,
		"content": map[string]any{"application/json": map[string]any{"schema": schema}}}
}

// jsonAnswer is an application/json answer.
func jsonAnswer(desc string, schema map[string]any) map[string]any {
	return map[string]any{"description": desc, "content": map[string]any{"application/json": map[string]any{"schema": schema}}}
}

// pathParam is a required string path parameter.
func pathParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": map[string]any{"type": "string"}}
}

// object is an inline object schema with described properties.
func object(desc string, required []string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "description": desc, "required": required, "properties": props}
}

// prop is a described property of the given type.
func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

// serviceOperations are the routes New adds besides the problems (and
// /metrics, listed once a server serves it).
var serviceOperations = []operation{
	{method: "GET", path: "/healthz", id: "healthz", tag: "operations", summary: "Liveness: the process answers",
		ok: map[int]map[string]any{200: jsonAnswer("Alive.", object("Liveness.", []string{"status"},
			map[string]any{"status": prop("string", "Always ok.")}))}},
	{method: "GET", path: "/readyz", id: "readyz", tag: "operations", summary: "Readiness: the server takes new work",
		ok: map[int]map[string]any{
			200: jsonAnswer("Ready.", object("Readiness and solve slots.", []string{"status"}, map[string]any{
				"status":           prop("string", "ready, or draining (with 503) once shutdown began."),
				"solve_slots":      prop("integer", "Simultaneous solves the server admits (--max-concurrent)."),
				"solves_in_flight": prop("integer", "Solve slots taken now."),
			})),
			503: jsonAnswer("Draining: shutdown began; requests are still served for --shutdown-grace, then in-flight solves finish; or not ready: a check failed (the job store cannot write).",
				object("Draining or not ready.", []string{"status"}, map[string]any{
					"status": prop("string", "draining, or not_ready."),
					"check":  prop("string", "The check that failed (job_store), when not_ready."),
					"detail": prop("string", "Why it failed, when not_ready."),
				})),
		}},
	{method: "GET", path: "/version", id: "version", tag: "operations", summary: "Version of the server and its LP backends",
		ok: map[int]map[string]any{200: jsonAnswer("The version.", object("What `xflex version` prints.", []string{"version", "go", "lp_backends"},
			map[string]any{
				"version":     prop("string", "xflex's version, as in every meta.version."),
				"go":          prop("string", "The Go release that built the binary."),
				"lp_backends": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "LP/MIP backends this binary has (cbc, native)."},
			}))}},
	{method: "GET", path: "/metrics", id: "metrics", tag: "operations", summary: "Prometheus metrics of this server",
		ok: map[int]map[string]any{200: {"description": "The Prometheus text exposition.",
			"content": map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}}}},
	{method: "GET", path: "/v1/problems", id: "listProblems", tag: "problems", summary: "The problems this server solves",
		ok: map[int]map[string]any{200: jsonAnswer("Every problem, in the server's order.", problemList)}},
	{method: "GET", path: "/v1/schemas", id: "listSchemas", tag: "schemas", summary: "The JSON Schemas",
		ok: map[int]map[string]any{200: jsonAnswer("Every schema file, sorted by name.", schemaList)}},
	{method: "GET", path: "/v1/schemas/{name}", id: "getSchema", tag: "schemas", summary: "One JSON Schema, as embedded",
		params: []map[string]any{pathParam("name", "The schema file name, with or without .json (e.g. cmmf.request.json).")},
		ok: map[int]map[string]any{200: {"description": "The schema (draft 2020-12).",
			"content": map[string]any{"application/schema+json": map[string]any{"schema": map[string]any{"type": "object"}}}}},
		problems: []int{404}},
	{method: "GET", path: "/v1/openapi.json", id: "getOpenAPI", tag: "schemas", summary: "This OpenAPI 3.1 document",
		description: "Built at start-up from the embedded JSON Schemas and the routes this server serves.",
		ok:          map[int]map[string]any{200: jsonAnswer("The document.", map[string]any{"type": "object"})}},
	uiPage("/ui", "uiPage"), // also served at /ui/, which is left out (see UndocumentedRoutes)
	{method: "GET", path: "/ui/{file}", id: "uiFile", tag: "ui", summary: "One of the web page's scripts and style sheets",
		params: []map[string]any{pathParam("file", "The file name, e.g. app.js (the names the page loads).")},
		ok: map[int]map[string]any{200: {"description": "The file.", "content": map[string]any{
			"text/javascript": textContent, "text/css": textContent}}},
		problems: []int{404}},
}

// UndocumentedRoutes are routes the server serves that the document
// leaves out: /ui/ is /ui with a trailing slash (for browsers' relative
// links), and a path with a trailing slash is an error to OpenAPI linters
// (redocly's no-path-trailing-slash) and a duplicate method to generators.
var UndocumentedRoutes = []string{"GET /ui/"}

// textContent is a text answer's content.
var textContent = map[string]any{"schema": map[string]any{"type": "string"}}

// uiPage is the web page, served at /ui and /ui/ alike.
func uiPage(path, id string) operation {
	return operation{method: "GET", path: path, id: id, tag: "ui", summary: "The planners' web page",
		description: "Plain HTML embedded in the binary; it calls this API with the token typed into it.",
		ok:          map[int]map[string]any{200: {"description": "The page.", "content": map[string]any{"text/html": textContent}}}}
}

var problemList = object("The problems.", []string{"problems"}, map[string]any{"problems": map[string]any{
	"type": "array", "description": "One entry per problem.",
	"items": object("A problem.", []string{"name", "path", "command", "summary", "request_schema", "response_schema"}, map[string]any{
		"name":            prop("string", "The problem's name, e.g. tetris/assign."),
		"path":            prop("string", "Its endpoint, /v1/ and the name."),
		"command":         prop("string", "Its name for `xflex solve` and job submissions, e.g. tetris-assign."),
		"summary":         prop("string", "What it solves, in one line."),
		"request_schema":  prop("string", "URL of its request schema."),
		"response_schema": prop("string", "URL of its response schema."),
		"example":         prop("string", "Where GET serves its example request (examples/COMMAND.json), when it has one."),
	}),
}})

var schemaList = object("The schema files.", []string{"schemas"}, map[string]any{"schemas": map[string]any{
	"type": "array", "description": "One entry per file.",
	"items": object("A schema file.", []string{"name", "url"}, map[string]any{
		"name": prop("string", "The file name, e.g. common.json."),
		"url":  prop("string", "Where GET serves it."),
	}),
}})
