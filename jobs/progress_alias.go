package jobs

import (
	"context"

	"github.com/xflex/xflex/internal/progress"
)

// Progress is what GET /v1/jobs/{id} reports while a job runs (an alias of
// progress.Progress, which solvers import without depending on this
// package).
type Progress = progress.Progress

// ReportProgress records a solver's progress for the job running it; see
// progress.Report. Solver packages should call progress.Report directly so
// they do not import the HTTP layer through this package.
func ReportProgress(ctx context.Context, p Progress) { progress.Report(ctx, p) }
