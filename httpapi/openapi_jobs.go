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

// partialHeaders are a result's headers: its state and, for a running
// job's answer so far, X-Xflex-Partial.
func partialHeaders() map[string]any {
	h := map[string]any{"X-Xflex-Partial": map[string]any{
		"description": "true when the answer is a running job's best so far (?partial=true).",
		"schema":      map[string]any{"type": "string"},
	}}
	for k, v := range jobStateHeader {
		h[k] = v
	}
	return h
}

// jobOperations are the jobs routes of a server solving ps.
func jobOperations(ps []solver.Problem) []operation {
	return []operation{
		{method: "POST", path: "/v1/jobs", id: "submitJob", tag: "jobs", summary: "Submit an asynchronous solve or a what-if scenario",
			description: "Every input (the base and each patched variant) is validated as POST /v1/{problem} would " +
				"validate it, so an accepted job can only fail on what the solver checks.",
			params: []map[string]any{{"name": "Idempotency-Key", "in": "header", "required": false,
				"description": "1 to 255 visible ASCII characters: the same key and body within 24 h answer the first job (200, Idempotent-Replayed: true) instead of submitting another.",
				"schema":      map[string]any{"type": "string", "pattern": "^[\\x21-\\x7e]{1,255}$"}}},
			body: jsonBody(map[string]any{"$ref": componentPrefix + "jobs.submission"}, "The submission (schema jobs.submit.json), typed by its problem."),
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
			params: []map[string]any{jobID, queryParam("wait",
				"A Go duration (e.g. 30s): answer when the job's state changes (not its progress), at once when it is finished, else when the wait ends; waits are cut to 60 s.")},
			ok:       map[int]map[string]any{200: jsonAnswer("The job.", jobJSON)},
			problems: []int{404, 422, 500}},
		{method: "DELETE", path: "/v1/jobs/{id}", id: "cancelJob", tag: "jobs", summary: "Cancel a queued or running job",
			description: "A running solve is asked to stop and keeps its best answer (meta.status cancelled).",
			params:      []map[string]any{jobID},
			ok: map[int]map[string]any{
				200: jsonAnswer("Cancelled (it was queued, or had already stopped).", jobJSON),
				202: jsonAnswer("Asked to stop: the running solve stores its best answer, then the job is cancelled.", jobJSON),
			},
			problems: []int{404, 409, 500}},
		{method: "GET", path: "/v1/jobs/{id}/result", id: "getJobResult", tag: "jobs", summary: "A finished job's answer",
			description: "A failed job answers its error as the solve did (problem+json with that status). " +
				"With partial=true a running job answers its best answer so far (meta.partial true, header X-Xflex-Partial: true), " +
				"or 409 no_partial when its solver has offered none yet.",
			params: []map[string]any{jobID, {"name": "partial", "in": "query",
				"description": "true: a running job's best answer so far instead of 409 not_finished.",
				"schema":      map[string]any{"type": "boolean", "default": false}}},
			ok: map[int]map[string]any{200: withHeaders(map[string]any{"description": "The answer.", "content": map[string]any{
				"application/json": map[string]any{"schema": answerSchema(ps, true)},
			}}, partialHeaders())},
			problems: []int{404, 406, 409, 422, 500}},
		{method: "GET", path: "/v1/jobs/{id}/picture", id: "getJobPicture", tag: "jobs", summary: "The picture of a finished job's answer",
			description: "What GET /v1/jobs/{id}/result answers with Accept: image/svg+xml: the answer's picture, " +
				"a scenario's variants side by side. 406 when the job's problem draws no picture.",
			params: []map[string]any{jobID, {"name": "partial", "in": "query",
				"description": "true: the picture of a running job's best answer so far.",
				"schema":      map[string]any{"type": "boolean", "default": false}},
				queryParam("with", "Comma-separated ids of up to 8 other finished jobs of the same problem (single solves): "+
					"the picture is drawn on the scales it shares with theirs (time axes, bar lengths), as a scenario's variants are, "+
					"so pictures of past jobs compare at a glance. 422 at /query/with for a job that is unknown, of another problem, "+
					"unfinished or a scenario.")},
			ok: map[int]map[string]any{200: withHeaders(map[string]any{"description": "The picture.", "content": map[string]any{
				"image/svg+xml": svgContent,
			}}, partialHeaders())},
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
