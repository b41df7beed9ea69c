package jobs

import (
	"errors"
	"fmt"
	"strings"
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

// TestScenarioSizeLimit: a scenario whose patched inputs would take more
// than the limit (maxScenarioBytes, lowered here) is refused with 413 before anything is stored.
func TestScenarioSizeLimit(t *testing.T) {
	t.Parallel()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20
	svc := &Service{cfg: Config{MaxVariants: 100}.WithDefaults(), runner: runner, maxStoredBytes: limit}
	name := strings.Repeat("n", 100<<10)
	body := `{"problem":"test/sleep","input":{"ms":1,"value":1,"nodes":[` +
		`{"name":"` + name + `a","cap":1},{"name":"` + name + `b","cap":1},{"name":"` + name + `c","cap":1}]},"variants":[`
	n := limit/(300<<10) + 1
	for i := 0; i < n; i++ {
		if i > 0 {
			body += ","
		}
		body += fmt.Sprintf(`{"name":"v%d","patch":{"value":%d}}`, i, i)
	}
	body += "]}"
	_, _, _, xe := svc.prepare([]byte(body))
	if xe == nil || xe.Kind != solver.KindTooLarge {
		t.Fatalf("%d variants of a 300 KiB input: %v, want too_large", n, xe)
	}
	_, inputs, _, xe := svc.prepare([]byte(`{"problem":"test/sleep","input":{"ms":1, "value":1},"variants":[{"name":"v","patch":{"value":2}}]}`))
	if xe != nil || len(inputs) != 2 || string(inputs[1].Input) != `{"ms":1,"value":2}` {
		t.Fatalf("small scenario: %v %q", xe, inputs)
	}
}
