package httpapi

import (
	"context"
	"slices"
)

// Scope is a permission a token carries (issue 16): `solve` for the
// synchronous problem endpoints, `jobs` for /v1/jobs, `admin` for every
// tenant's jobs and the operator endpoints.
type Scope string

// The scopes an auth file may grant.
const (
	ScopeSolve Scope = "solve"
	ScopeJobs  Scope = "jobs"
	ScopeAdmin Scope = "admin"
)

// AllScopes lists every scope, in the order they are documented.
var AllScopes = []Scope{ScopeSolve, ScopeJobs, ScopeAdmin}

// LocalTenant is the tenant every request belongs to when the server runs
// without an auth file (loopback only), and the tenant jobs stored before
// tenants existed are migrated to.
const LocalTenant = "local"

// Principal is who a request acts for: its tenant and the scopes its
// token grants. Jobs, quotas and solve slots are accounted per tenant.
type Principal struct {
	Tenant string
	Scopes []Scope
}

// Has reports whether the principal holds scope s.
func (p Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }

// localPrincipal is the principal of a request on a server without an
// auth file: tenant `local`, every scope.
var localPrincipal = Principal{Tenant: LocalTenant, Scopes: AllScopes}

const principalKey ctxKey = 1

// WithPrincipal returns ctx carrying p (set by the auth middleware).
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// PrincipalOf returns the principal the auth middleware stored in ctx, or
// the local principal (tenant `local`, every scope) when there is none:
// a server without an auth file serves loopback only and everything there
// belongs to `local`.
func PrincipalOf(ctx context.Context) Principal {
	if p, ok := ctx.Value(principalKey).(Principal); ok {
		return p
	}
	return localPrincipal
}
