package schemas_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/xflex/xflex/solver"
)

// FuzzFastMatchesLibrary checks the fast path's soundness on arbitrary
// JSON: whenever it answers valid or invalid, the library agrees. The
// first argument picks the schema (index into the set's sorted names).
// Seeds: every testdata request, example and golden response, against its
// own schema, plus a few edge-case numbers and strings.
func FuzzFastMatchesLibrary(f *testing.F) {
	set := loadFastSet(f)
	names := set.Names()
	index := map[string]uint8{}
	for i, n := range names {
		index[n] = uint8(i)
	}
	for _, s := range loadSeeds(f) {
		b, err := os.ReadFile(s.label)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(index[s.schema], b)
	}
	seeds := append([]string{`{"budget_ms":1.0,"seed":-0}`, `{"neg":"x","below":2.5,"set":[1,1.0]}`, `[1e-400,"\u0001",null]`, `{"nums":10e-1,"obj":{"k":[0,15e-1]}}`,
		`{"budget_ms":1e-400,"seed":9007199254740993,"weight":5e-324,"capacity":1.7976931348623159e308}`}, floatEdgeDocs...)
	for _, b := range seeds {
		for i := range names {
			f.Add(uint8(i), []byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		doc, err := solver.DecodeAny(data)
		if err != nil {
			return
		}
		name := names[int(which)%len(names)]
		fast := set.FastVerdict(name, doc)
		lib, panicked := libraryVerdict(set, name, doc)
		if fast != "unsure" && (fast == "valid") != lib {
			b, _ := json.Marshal(doc)
			t.Fatalf("%s: fast %s, library valid=%v panicked=%v; doc %.1000s", name, fast, lib, panicked, b)
		}
	})
}
