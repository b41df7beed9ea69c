// Package problems assembles the list of problems the xflex binary serves.
// It is the one place that imports every solver subpackage; the HTTP API and
// the CLI receive the list from here instead of reading a global registry.
package problems

import (
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/cmmf"
	"github.com/xflex/xflex/solver/fairshare"
	"github.com/xflex/xflex/solver/flex"
	tetrisassign "github.com/xflex/xflex/solver/tetris/assign"
	tetrissimulate "github.com/xflex/xflex/solver/tetris/simulate"
	xflexplan "github.com/xflex/xflex/solver/xflex/plan"
	xscheduleassign "github.com/xflex/xflex/solver/xschedule/assign"
	xschedulesimulate "github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// All returns every problem, in issue order (the order of the API docs).
// Each solver subpackage contributes one line: pkg.Problem().
func All() []solver.Problem {
	return []solver.Problem{
		cmmf.Problem(),
		flex.Problem(),
		fairshare.Problem(),
		xsize.Problem(),
		xselect.Problem(),
		tetrisassign.Problem(),
		tetrissimulate.Problem(),
		xscheduleassign.Problem(),
		xschedulesimulate.Problem(),
		xflexplan.Problem(),
	}
}
