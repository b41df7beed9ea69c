package simulate

import "github.com/xflex/xflex/solver"

// Problem describes tetris/simulate.
func Problem() solver.Problem {
	return solver.Typed[Request, *Instance]{
		Name:           "tetris/simulate",
		CLIName:        "tetris-simulate",
		RequestSchema:  "tetris-simulate.request.json",
		ResponseSchema: "tetris-simulate.response.json",
		Summary:        "Tetris what-if simulator: DAG jobs on a cluster under tetris, drf, slot-fair, capacity or tetris-cpu-mem",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          Build,
		Solve:          solve,
		Picture:        picture,
		PictureShared:  pictureShared,
		Memory:         memory,
	}.Problem()
}
