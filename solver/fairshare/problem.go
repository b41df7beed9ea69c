package fairshare

import (
	"context"
	"encoding/json"

	"github.com/xflex/xflex/solver"
)

// Problem returns the fairshare problem for the runner. Build runs
// alongside validation (PreBuild): building 100,000 frameworks × 100,000
// servers took 0.25 s, five times a 50 ms budget.
func Problem() solver.Problem {
	return solver.Typed[Request, *instance]{
		Name:           "fairshare",
		RequestSchema:  "fairshare.request.json",
		ResponseSchema: "fairshare.response.json",
		Summary:        "Fair shares on heterogeneous servers: exact MMF/PF/efficiency optima and the DRF, TSF, PS-DSF, rPS-DSF, BF-DRF progressive-filling schedulers",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          build,
		Solve:          solve,
		PreBuild:       true,
		Picture:        picture,
		PictureShared:  pictureShared,
		Memory:         memory,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}
