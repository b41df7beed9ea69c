package jobs

import "github.com/xflex/xflex/internal/progress"

// Progress is what GET /v1/jobs/{id} reports while a job runs: an alias of
// progress.Progress, which solvers fill in and pass to progress.Report
// without importing this package.
type Progress = progress.Progress
