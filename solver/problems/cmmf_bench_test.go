package problems

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/xflex/xflex/solver"
)

// BenchmarkRunCMMF is the whole Runner.Run (parse, validation, hash,
// typed decode, build, solve, encoding) on CMMF at issue 21's scales, with
// a budget that lets every part run to the end (benchmarks/cmmf/RESULTS.md):
//   - machines: the per-machine form, `xflex gen cmmf --seed 1 --users 5000
//     --types 100 --machines 100000 --individual true --divisible false`
//     (22.5 MB compact);
//   - types10x and types10x-divisible: `--users 50000 --types 1000
//     --machines 1000000` with machine counts per type (4.9 MB).
func BenchmarkRunCMMF(b *testing.B) {
	runner, err := solver.NewRunner(All(), 0)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := runner.Lookup("cmmf")
	for _, c := range []struct {
		name   string
		params map[string]string
	}{
		{"machines", map[string]string{"users": "5000", "types": "100", "machines": "100000", "individual": "true", "divisible": "false"}},
		{"types10x", map[string]string{"users": "50000", "types": "1000", "machines": "1000000", "divisible": "false"}},
		{"types10x-divisible", map[string]string{"users": "50000", "types": "1000", "machines": "1000000", "divisible": "true"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := generated(b, p, c.params)
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := runner.Run(context.Background(), "cmmf", raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// generated is p's generated request (seed 1) with budget_ms 600000.
func generated(b *testing.B, p solver.Problem, params map[string]string) []byte {
	req, err := p.Generate(1, params)
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
	return raw
}
