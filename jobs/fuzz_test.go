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

// TestScenarioRefusedBeforePatching: a scenario whose variants cannot fit
// the stored-inputs limit, even each at its base's size, is refused with
// 413 before any patch is applied: every patch here fails to apply (a
// JSON Patch removing a missing member), so a server that patched first
// would answer 422 with their errors instead.
func TestScenarioRefusedBeforePatching(t *testing.T) {
	t.Parallel()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20
	svc := &Service{cfg: Config{MaxVariants: 100}.WithDefaults(), runner: runner, maxStoredBytes: limit}
	input := `{"ms":1,"value":1,"nodes":[{"name":"` + strings.Repeat("n", 300<<10) + `","cap":1}]}`
	variants := func(n int) string {
		var vs []string
		for i := range n {
			vs = append(vs, fmt.Sprintf(`{"name":"v%d","patch":[{"op":"remove","path":"/missing"}]}`, i))
		}
		return `{"problem":"test/sleep","input":` + input + `,"variants":[` + strings.Join(vs, ",") + `]}`
	}
	_, _, _, xe := svc.prepare([]byte(variants(2))) // 3 × 300 KiB fits 1 MiB
	if xe == nil || xe.Kind != solver.KindSchema || len(xe.Violations) != 2 {
		t.Fatalf("2 variants that fit: %v, want the 2 patches' errors", xe)
	}
	_, _, _, xe = svc.prepare([]byte(variants(3))) // 4 × 300 KiB does not
	if xe == nil || xe.Kind != solver.KindTooLarge || !strings.Contains(xe.Detail, "at most 2 variants") {
		t.Fatalf("3 variants of a 300 KiB input: %v, want too_large before patching", xe)
	}
}

// TestScenarioJSONPatch: a variant's patch that is an array is a JSON
// Patch (RFC 6902): it appends to an array without repeating it, tests
// and moves; negative indices (the library's extension), copies that
// would grow the input past the stored limit, values nested deeper than a
// request can be and failing operations are refused at the variant's
// pointer.
func TestScenarioJSONPatch(t *testing.T) {
	t.Parallel()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc := &Service{cfg: Config{MaxVariants: 100}.WithDefaults(), runner: runner, maxStoredBytes: 64 << 10}
	prepare := func(patch string) ([]variantInput, *solver.Error) {
		_, inputs, _, xe := svc.prepare([]byte(`{"problem":"test/sleep","input":{"ms":1,"value":1,"nodes":[{"name":"a","cap":1}]},` +
			`"variants":[{"name":"v","patch":` + patch + `}]}`))
		return inputs, xe
	}
	for patch, want := range map[string]string{
		`[{"op":"add","path":"/nodes/-","value":{"name":"b","cap":2}}]`:                        `{"ms":1,"value":1,"nodes":[{"name":"a","cap":1},{"name":"b","cap":2}]}`,
		`[{"op":"test","path":"/value","value":1},{"op":"replace","path":"/value","value":3}]`: `{"ms":1,"value":3,"nodes":[{"name":"a","cap":1}]}`,
		`{"value":2}`: `{"ms":1,"value":2,"nodes":[{"name":"a","cap":1}]}`,
	} {
		inputs, xe := prepare(patch)
		if xe != nil || len(inputs) != 2 || string(inputs[1].Input) != want {
			t.Errorf("patch %s: %v %q, want %s", patch, xe, inputs, want)
		}
	}
	big := `{"op":"add","path":"/pad","value":"` + strings.Repeat("x", 20<<10) + `"}`
	copies := `[` + big
	for i := range 4 {
		copies += fmt.Sprintf(`,{"op":"copy","from":"/pad","path":"/pad%d"}`, i)
	}
	copies += `]`
	for patch, want := range map[string]string{
		`[{"op":"remove","path":"/nodes/-1"}]`:                           "/variants/0/patch",
		`[{"op":"test","path":"/value","value":2}]`:                      "/variants/0/patch",
		`[{"op":"add","path":"/nodes/0","value":{"cap":[[[[[[1]]]]]]}}]`: "/variants/0/patch/0/value",
		copies: "/variants/0/patch",
	} {
		_, xe := prepare(patch)
		if xe == nil || xe.Kind != solver.KindSchema || len(xe.Violations) == 0 || !strings.HasPrefix(xe.Violations[0].Pointer, want) {
			t.Errorf("patch %.80s: %v, want a violation at %s", patch, xe, want)
		}
	}
}
