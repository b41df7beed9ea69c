package httpapi

import (
	"net/http"
	"strings"
)

// access is what a path needs when the server has an auth file: nothing
// (open), any valid token (scope ""), or a token with scope.
type access struct {
	open  bool
	scope Scope
}

var (
	openAccess = access{open: true}
	anyToken   = access{}
)

// rule gives the access of one path, or of every path below a prefix
// when path ends in "/*".
type rule struct {
	path string
	need access
}

// policy is the ordered table of rules; the first that matches decides.
type policy []rule

// basePolicy is who may call what on a server with an auth file. The
// problem endpoints (POST /v1/{problem}: solve) are added by New, one
// exact path each. A path no rule names needs a valid token and then gets
// the router's 404 or 405, so a caller without a token learns nothing of
// which routes exist. A route added to the server must get its rule here
// (TestPolicyCoversEveryRoute in cmd/xflex walks the router to check).
var basePolicy = policy{
	{"/healthz", openAccess}, // probes, load balancers
	{"/readyz", openAccess},
	{"/version", openAccess},
	{"/metrics", access{scope: ScopeAdmin}},
	{"/ui", openAccess}, // the page's files: static, no data; its API calls carry the token
	{"/ui/*", openAccess},
	{"/v1/problems", anyToken},
	{"/v1/examples/*", anyToken},
	{"/v1/schemas", anyToken},
	{"/v1/schemas/*", anyToken},
	{"/v1/openapi.json", anyToken}, // like the schemas it is built from
	{"/v1/jobs", access{scope: ScopeJobs}},
	{"/v1/jobs/*", access{scope: ScopeJobs}},
}

// withProblems returns the policy with one solve rule per problem path.
func (pol policy) withProblems(names []string) policy {
	out := append(policy{}, pol...)
	for _, n := range names {
		out = append(out, rule{"/v1/" + n, access{scope: ScopeSolve}}, rule{"/v1/" + n + "/picture", access{scope: ScopeSolve}})
	}
	return out
}

// access returns what path needs: the first matching rule's access, or
// any valid token.
func (pol policy) access(path string) access {
	for _, r := range pol {
		prefix, below := strings.CutSuffix(r.path, "*")
		if path == r.path || below && strings.HasPrefix(path, prefix) {
			return r.need
		}
	}
	return anyToken
}

// routePath is the path the chi router matches a request on (its escaped
// form when that differs from the decoded one), so the policy judges
// exactly the path that picks the handler.
func routePath(r *http.Request) string {
	switch {
	case r.URL.RawPath != "":
		return r.URL.RawPath
	case r.URL.Path == "":
		return "/"
	}
	return r.URL.Path
}
