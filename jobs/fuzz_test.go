package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/solver"
)

// FuzzPrepare feeds arbitrary bodies to the submission decoder: it must
// never panic, and must either accept the body or return a typed error.
func FuzzPrepare(f *testing.F) {
	for _, s := range []string{
		`{"problem":"test/sleep","input":{"ms":1,"value":1}}`,
		`{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"v","patch":{"value":null}}]}`,
		`{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"v","patch":{"nodes":[{"name":"a","cap":1}]}}]}`,
		`{"problem":"x"}`, `[]`, `null`, `{"problem":"test/sleep","input":{"ms":1e400,"value":1}}`,
	} {
		f.Add([]byte(s))
	}
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		f.Fatal(err)
	}
	svc := &Service{cfg: Config{}.WithDefaults(), runner: runner}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, inputs, spec, xe := svc.prepare(body)
		if xe != nil {
			var e *solver.Error
			if !errors.As(error(xe), &e) || e.Kind == solver.KindInternal {
				t.Fatalf("prepare(%q): untyped or internal error %v", body, xe)
			}
			return
		}
		if p.Name != jobtest.Name || len(inputs) == 0 || inputs[0].Name != BaseVariant {
			t.Fatalf("prepare(%q) accepted with problem %q and %d inputs", body, p.Name, len(inputs))
		}
		if (spec != nil) != (len(inputs) > 1) {
			t.Fatalf("prepare(%q): spec %v for %d inputs", body, spec != nil, len(inputs))
		}
	})
}
