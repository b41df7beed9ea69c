//go:build !nobench

// The benchmark reports are linked into xflex by default, so `xflex bench
// NAME` works from the one shipped binary on a machine without the Go
// toolchain or the source. Measured 2026-11-28: they add 1.24 MB to the
// 44.98 MB binary (2.8%) and one module of their own, jsonschema/v6 (only
// benchmarks/json uses it), whose package initialisation costs every xflex
// start about 4 ms and 1.7 MB of allocations (GODEBUG=inittrace=1); sonic
// and goccy/go-json stay either way (the solvers use them). A server that
// wants neither builds with `-tags nobench` (reports_nobench.go), where
// `xflex bench` says how to get the reports.

package main

import (
	"github.com/xflex/xflex/benchmarks"
	benchbudget "github.com/xflex/xflex/benchmarks/budget"
	benchcmmf "github.com/xflex/xflex/benchmarks/cmmf"
	benchfairshare "github.com/xflex/xflex/benchmarks/fairshare"
	benchflex "github.com/xflex/xflex/benchmarks/flex"
	benchjson "github.com/xflex/xflex/benchmarks/json"
	benchrepro "github.com/xflex/xflex/benchmarks/repro"
	benchtetris "github.com/xflex/xflex/benchmarks/tetris"
	benchxflexplan "github.com/xflex/xflex/benchmarks/xflexplan"
	benchxschedule "github.com/xflex/xflex/benchmarks/xschedule"
	benchxselect "github.com/xflex/xflex/benchmarks/xselect"
	benchxsize "github.com/xflex/xflex/benchmarks/xsize"
)

// benchReports lists every problem's benchmark report for `xflex bench`,
// the budget report over all problems and the JSON libraries' table.
func benchReports() []benchmarks.Report {
	return []benchmarks.Report{
		{Problem: "cmmf", Run: benchcmmf.Report},
		{Problem: "flex", Run: benchflex.Report},
		{Problem: "fairshare", Run: benchfairshare.Report},
		{Problem: "xsize", Run: benchxsize.Report},
		{Problem: "xselect", Run: benchxselect.Report},
		{Problem: "tetris", Run: benchtetris.Report},
		{Problem: "xschedule", Run: benchxschedule.Report},
		{Problem: "xflex-plan", Run: benchxflexplan.Report},
		{Problem: "budget", Run: benchbudget.Report},
		{Problem: "json", Run: benchjson.Report},
		{Problem: "repro", Run: benchrepro.Report},
	}
}
