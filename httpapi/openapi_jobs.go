package httpapi

import "github.com/xflex/xflex/solver"

// The jobs routes (package jobs mounts them on this router; the OpenAPI
// document lists them only when it has).

var (
	jobID   = pathParam("id", "The job's id (from POST /v1/jobs or its Location header).")
	jobJSON = SchemaRef("jobs.job.json")
)

// answerSchema is a stored answer: one of the problems' responses
// (exactly the body POST /v1/{problem} returned), or, with scenario, also
// a scenario's comparison.
func answerSchema(ps []solver.Problem, scenario bool) map[string]any {
	var refs []any
	seen := map[string]bool{}
	for _, p := range ps {
		if !seen[p.ResponseSchema] {
			seen[p.ResponseSchema] = true
			refs = append(refs, SchemaRef(p.ResponseSchema))
		}
	}
	desc := "The problem's response exactly as POST /v1/{problem} answered it (a cancelled job's best answer has meta.status cancelled)"
	if scenario {
		refs = append(refs, SchemaRef("jobs.comparison.json"))
		desc += "; for a scenario job, the comparison of its variants"
	}
	return map[string]any{"description": desc + ".", "anyOf": refs}
}

var jobStateHeader = map[string]any{"X-Job-State": map[string]any{
	"description": "The job's state (queued, running, succeeded, failed, cancelled).",
	"schema":      map[string]any{"type": "string"},
}}

// jobOperations are the jobs routes of a server solving ps.
func jobOperations(ps []solver.Problem) []operation {
	return []operation{
		{method: "POST", path: "/v1/jobs", id: "submitJob", tag: "jobs", summary: "Submit an asynchronous solve or a what-if scenario",
			description: "Every input (the base and each patched variant) is validated as POST /v1/{problem} would " +
				"validate it, so an accepted job can only fail on what the solver checks.",
			params: []map[string]any{{"name": "Idempotency-Key", "in": "header", "required": false,
				"description": "1 to 255 visible ASCII characters: the same key and body within 24 h answer the first job (200, Idempotent-Replayed: true) instead of submitting another.",
				"schema":      map[string]any{"type": "string", "pattern": "^[\\x21-\\x7e]{1,255}$"}}},
			body: jsonBody(SchemaRef("jobs.submit.json"), "The submission."),
			ok: map[int]map[string]any{
				202: withHeaders(jsonAnswer("Accepted: the job is queued.", jobJSON),
					map[string]any{"Location": map[string]any{"description": "The job's URL.", "schema": map[string]any{"type": "string"}}}),
				200: withHeaders(jsonAnswer("A replay: the job first submitted with this Idempotency-Key and body.", jobJSON),
					map[string]any{"Idempotent-Replayed": map[string]any{"description": "true.", "schema": map[string]any{"type": "string"}}}),
			},
			problems: []int{400, 413, 415, 422, 429, 500, 503}},
		{method: "GET", path: "/v1/jobs", id: "listJobs", tag: "jobs", summary: "The tenant's jobs, newest first, a page at a time",
			params:   jobListParams,
			ok:       map[int]map[string]any{200: jsonAnswer("One page.", SchemaRef("jobs.list.json"))},
			problems: []int{422, 500}},
		{method: "GET", path: "/v1/jobs/{id}", id: "getJob", tag: "jobs", summary: "A job's state and progress",
			params:   []map[string]any{jobID},
			ok:       map[int]map[string]any{200: jsonAnswer("The job.", jobJSON)},
			problems: []int{404, 500}},
		{method: "DELETE", path: "/v1/jobs/{id}", id: "cancelJob", tag: "jobs", summary: "Cancel a queued or running job",
			description: "A running solve is asked to stop and keeps its best answer (meta.status cancelled).",
			params:      []map[string]any{jobID},
			ok: map[int]map[string]any{
				200: jsonAnswer("Cancelled (it was queued, or had already stopped).", jobJSON),
				202: jsonAnswer("Asked to stop: the running solve stores its best answer, then the job is cancelled.", jobJSON),
			},
			problems: []int{404, 409, 500}},
		{method: "GET", path: "/v1/jobs/{id}/result", id: "getJobResult", tag: "jobs", summary: "A finished job's answer",
			description: "A failed job answers its error as the solve did (problem+json with that status).",
			params:      []map[string]any{jobID},
			ok: map[int]map[string]any{200: withHeaders(map[string]any{"description": "The answer.", "content": map[string]any{
				"application/json": map[string]any{"schema": answerSchema(ps, true)},
				"image/svg+xml":    svgContent,
			}}, jobStateHeader)},
			problems: []int{404, 406, 409, 422, 500}},
		{method: "GET", path: "/v1/jobs/{id}/variants/{name}/result", id: "getVariantResult", tag: "jobs",
			summary: "One scenario variant's answer",
			params:  []map[string]any{jobID, pathParam("name", "The variant's name (base is the unpatched input).")},
			ok: map[int]map[string]any{200: withHeaders(jsonAnswer("The variant's answer, as POST /v1/{problem} returns it.",
				answerSchema(ps, false)), jobStateHeader)},
			problems: []int{404, 409, 422, 500}},
	}
}

var jobListParams = []map[string]any{
	queryParam("state", "Comma-separated states to keep (queued, running, succeeded, failed, cancelled)."),
	queryParam("problem", "Keep this problem's jobs (its name or CLI name)."),
	queryParam("kind", "solve or scenario."),
	queryParam("tenant", "Keep this tenant's jobs (admin only; another tenant's name lists nothing otherwise)."),
	queryParam("client", "Keep jobs whose client (the tenant before tenants) is this."),
	{"name": "limit", "in": "query", "description": "Jobs per page, 1 to 500.",
		"schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 500, "default": 50}},
	{"name": "created_after", "in": "query", "description": "RFC 3339 time: jobs created after it.",
		"schema": map[string]any{"type": "string", "format": "date-time"}},
	{"name": "created_before", "in": "query", "description": "RFC 3339 time: jobs created before it.",
		"schema": map[string]any{"type": "string", "format": "date-time"}},
	queryParam("cursor", "The next_cursor of the previous page."),
}

// queryParam is an optional string query parameter.
func queryParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "query", "description": desc, "schema": map[string]any{"type": "string"}}
}

// withHeaders adds response headers to an answer.
func withHeaders(resp, headers map[string]any) map[string]any {
	resp["headers"] = headers
	return resp
}
