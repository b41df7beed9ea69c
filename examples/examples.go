// Package examples embeds the example requests in this directory, one per
// problem, named after the problem's command (cmmf.json,
// tetris-assign.json), so the server can hand them out at
// GET /v1/examples/{problem} and the web page (/ui/) can load them with
// no network and no checkout.
package examples

import "embed"

//go:embed *.json
var files embed.FS

// Request returns the example request of the problem whose command (the
// CLI name, solver.Problem.Command) is cmd, and whether there is one.
func Request(cmd string) ([]byte, bool) {
	b, err := files.ReadFile(cmd + ".json")
	return b, err == nil
}
