package httpapi

import (
	"net/http"

	"github.com/xflex/xflex/solver"
)

// What the OpenAPI document adds to the embedded schemas so that stock
// code generators (oapi-codegen, openapi-typescript) give typed, exact
// code with no options: number formats, typed job submissions and
// patches, and pictures as operations of their own. None of it changes
// what the server accepts: requests are still validated against the
// embedded schemas.

// numberFormats gives every number a format generators map to 64-bit
// types: "double" for type number (oapi-codegen's default is float32,
// which rounds every objective and bound) and "int64" for type integer
// (seeds and byte counts exceed 32 bits). An explicit format is kept. It
// also replaces boolean schemas in properties (cmmf's predicate value is
// `true`, any value) by their object form, which every tool reads.
func numberFormats(node any) {
	switch n := node.(type) {
	case map[string]any:
		if f, ok := formatFor(n["type"]); ok {
			if _, has := n["format"]; !has {
				n["format"] = f
			}
		}
		for k, v := range n {
			switch {
			case k == "properties" || k == "$defs" || k == "patternProperties" || k == "dependentSchemas":
				if props, ok := v.(map[string]any); ok {
					for name, p := range props {
						if b, isBool := p.(bool); isBool {
							props[name] = boolSchema(b)
							continue
						}
						numberFormats(p)
					}
				}
			case k == "examples" || k == "default" || k == "const" || k == "enum":
				// values, not schemas
			default:
				numberFormats(v)
			}
		}
	case []any:
		for _, v := range n {
			numberFormats(v)
		}
	}
}

// formatFor is the format of a schema's type keyword: a type name or a
// list of them (["number", "null"]).
func formatFor(typ any) (string, bool) {
	has := func(want string) bool {
		switch t := typ.(type) {
		case string:
			return t == want
		case []any:
			for _, e := range t {
				if e == want {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("number"):
		return "double", true
	case has("integer"):
		return "int64", true
	}
	return "", false
}

// boolSchema is the object form of a boolean schema: true accepts any
// value, false none.
func boolSchema(b bool) map[string]any {
	if b {
		return map[string]any{}
	}
	return map[string]any{"not": map[string]any{}}
}

// submissionName is the component of a typed job submission of p.
func submissionName(p solver.Problem) string { return "jobs.submit." + p.Command() }

// patchName is the component of a typed merge patch of p's request.
func patchName(p solver.Problem) string { return "jobs.patch." + p.Command() }

// addSubmissions adds the typed job submissions to the components: one
// per problem (jobs.submit.COMMAND, its input the problem's request and
// its variants' patches jobs.patch.COMMAND) and jobs.submission, the
// oneOf of them discriminated by `problem` (both the API and the CLI
// name map to the problem's submission). POST /v1/jobs documents that
// union, so a generated client submits a typed request; the server
// still validates the body against jobs.submit.json.
func addSubmissions(comps map[string]any, ps []solver.Problem) {
	var one []any
	mapping := map[string]any{}
	for _, p := range ps {
		names := []any{p.Name}
		desc := "The problem: " + p.Name + "."
		if p.Command() != p.Name {
			names = append(names, p.Command())
			desc = "The problem: " + p.Name + " (its API name) or " + p.Command() + " (its CLI name)."
		}
		ref := componentPrefix + submissionName(p)
		for _, n := range names {
			mapping[n.(string)] = ref
		}
		one = append(one, map[string]any{"$ref": ref})
		comps[patchName(p)] = patchSchema(p, comps[componentName(p.RequestSchema)])
		comps[submissionName(p)] = map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"problem", "input"},
			"description": "A job solving " + p.Name + " (see jobs.submit for the fields).",
			"properties": map[string]any{
				"problem": map[string]any{"type": "string", "enum": names, "description": desc},
				"input":   map[string]any{"$ref": componentPrefix + componentName(p.RequestSchema)},
				"variants": map[string]any{"type": "array", "minItems": 1,
					"description": "What-if variants: each is the input with its patch applied.",
					"items": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"name", "patch"},
						"description": "One variant.",
						"properties": map[string]any{
							"name":        map[string]any{"$ref": componentPrefix + "common.name", "description": "Its name, unique in the job (base is the unpatched input)."},
							"description": map[string]any{"type": "string", "maxLength": 1024, "description": "Free text shown in the comparison."},
							"patch":       map[string]any{"$ref": componentPrefix + patchName(p)},
						}}},
			},
		}
	}
	comps["jobs.submission"] = map[string]any{
		"description":   "POST /v1/jobs: a job of one problem, typed by its `problem` (schema jobs.submit.json).",
		"oneOf":         one,
		"discriminator": map[string]any{"propertyName": "problem", "mapping": mapping},
	}
}

// patchSchema is a JSON Merge Patch (RFC 7396) of p's request, typed: the
// request's top-level fields, none required. A field given replaces the
// base's (an object given whole is merged into the base's member by the
// server); null removes a field, which a typed client sends as a raw
// patch instead.
func patchSchema(p solver.Problem, request any) map[string]any {
	props := map[string]any{}
	if req, ok := request.(map[string]any); ok {
		if rp, ok := req["properties"].(map[string]any); ok {
			for k, v := range rp {
				props[k] = v
			}
		}
	}
	return map[string]any{
		"type": "object", "additionalProperties": false, "properties": props,
		"description": "A JSON Merge Patch (RFC 7396) of a " + p.Name + " request: the fields it gives replace the base input's.",
	}
}

// PictureOnly serves h as if the request asked for the picture only
// (Accept: image/svg+xml): the routes POST /v1/{problem}/picture and
// GET /v1/jobs/{id}/picture, which the OpenAPI document describes apart
// from the JSON answers so generators type those.
func PictureOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Accept", MediaSVG)
		h(w, r)
	}
}

// PicturePath is the route of p's picture.
func PicturePath(p solver.Problem) string { return "/v1/" + p.Name + "/picture" }

// pictureOperation is POST /v1/{problem}/picture.
func pictureOperation(p solver.Problem) operation {
	return operation{
		method: "POST", path: PicturePath(p), id: "picture" + camel(p.Command()), tag: "problems",
		summary: "The picture of a " + p.Name + " answer",
		description: "Solves the body as POST /v1/" + p.Name + " does and answers the answer's picture: " +
			"what POST /v1/" + p.Name + " answers with Accept: image/svg+xml, and `xflex solve " + p.Command() + " FILE --svg OUT` writes.",
		body:     jsonBody(SchemaRef(p.RequestSchema), "The request (schema "+p.RequestSchema+")."),
		ok:       map[int]map[string]any{200: {"description": "The picture.", "content": map[string]any{MediaSVG: svgContent}}},
		problems: solveProblems,
	}
}
