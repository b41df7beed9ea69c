package main

import (
	"github.com/xflex/xflex/benchmarks"
	benchbudget "github.com/xflex/xflex/benchmarks/budget"
	benchcmmf "github.com/xflex/xflex/benchmarks/cmmf"
	benchfairshare "github.com/xflex/xflex/benchmarks/fairshare"
	benchflex "github.com/xflex/xflex/benchmarks/flex"
	benchtetris "github.com/xflex/xflex/benchmarks/tetris"
	benchxselect "github.com/xflex/xflex/benchmarks/xselect"
	benchxsize "github.com/xflex/xflex/benchmarks/xsize"
)

// benchReports lists every problem's benchmark report for `xflex bench`,
// and the budget report over all problems.
func benchReports() []benchmarks.Report {
	return []benchmarks.Report{
		{Problem: "cmmf", Run: benchcmmf.Report},
		{Problem: "flex", Run: benchflex.Report},
		{Problem: "fairshare", Run: benchfairshare.Report},
		{Problem: "xsize", Run: benchxsize.Report},
		{Problem: "xselect", Run: benchxselect.Report},
		{Problem: "tetris", Run: benchtetris.Report},
		{Problem: "budget", Run: benchbudget.Report},
	}
}
