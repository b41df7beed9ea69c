package problems

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/xflex/xflex/solver"
)

// BenchmarkRunCMMFMachines is the whole Runner.Run (parse, validation,
// hash, typed decode, build, solve, encoding) on CMMF's per-machine form
// at issue 21's scale: `xflex gen cmmf --seed 1 --users 5000 --types 100
// --machines 100000 --individual true --divisible false`, 22.5 MB
// compact, with a budget that lets every part run to the end
// (benchmarks/cmmf/RESULTS.md).
func BenchmarkRunCMMFMachines(b *testing.B) {
	runner, err := solver.NewRunner(All(), 0)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := runner.Lookup("cmmf")
	req, err := p.Generate(1, map[string]string{"users": "5000", "types": "100", "machines": "100000", "individual": "true", "divisible": "false"})
	if err != nil {
		b.Fatal(err)
	}
	doc, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		b.Fatal(err)
	}
	m["budget_ms"] = json.RawMessage("600000")
	raw, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := runner.Run(context.Background(), "cmmf", raw); err != nil {
			b.Fatal(err)
		}
	}
}
