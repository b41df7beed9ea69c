package main

import (
	"github.com/xflex/xflex/benchmarks"
	benchbudget "github.com/xflex/xflex/benchmarks/budget"
	benchcmmf "github.com/xflex/xflex/benchmarks/cmmf"
	benchfairshare "github.com/xflex/xflex/benchmarks/fairshare"
	benchflex "github.com/xflex/xflex/benchmarks/flex"
	benchjson "github.com/xflex/xflex/benchmarks/json"
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
	}
}
