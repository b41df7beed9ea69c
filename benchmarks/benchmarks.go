// Package benchmarks collects the per-problem quality and speed reports.
// Each benchmarks/NAME package has Go benchmarks (go test -bench) and a
// Report function that prints the problem's table; `xflex bench NAME` runs
// it. Instance generators live with each problem (Problem.Generate) so the
// CLI's `xflex gen` and the benchmarks use the same instances.
package benchmarks

import (
	"context"
	"io"
)

// ReportFunc prints a problem's quality and speed table. scale is "small"
// (a quick look, seconds) or "full" (the sizes the issue asks for).
type ReportFunc func(ctx context.Context, w io.Writer, scale string) error

// Report names one problem's report.
type Report struct {
	Problem string
	Run     ReportFunc
}
