package jobs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// TestMergePatchRFC7396 checks applyPatch against every example of RFC
// 7396, Appendix A, plus the nested-null case of section 2.
func TestMergePatchRFC7396(t *testing.T) {
	t.Parallel()
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// Section 1's example.
		{`{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}`,
			`{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}`,
			`{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}`},
	}
	for _, c := range cases {
		got, err := applyPatch([]byte(c.target), json.RawMessage(c.patch))
		if err != nil {
			t.Errorf("%s + %s: %v", c.target, c.patch, err)
			continue
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(c.want), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s + %s = %s, want %s", c.target, c.patch, got, c.want)
		}
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := solver.DecodeAny([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDiff(t *testing.T) {
	t.Parallel()
	cases := []struct{ a, b, want string }{
		{`{"x":1}`, `{"x":1.0}`, ``},
		{`{"x":1,"y":2}`, `{"x":1,"y":3,"z":0}`, `/y,/z`},
		{`{"alloc":[{"name":"web","node":"n1"},{"name":"db","node":"n2"}]}`,
			`{"alloc":[{"name":"db","node":"n2"},{"name":"web","node":"n3"}]}`, `/alloc/web/node`},
		{`{"alloc":[{"name":"a"},{"name":"b"}]}`, `{"alloc":[{"name":"a"}]}`, `/alloc/b`},
		{`{"v":[1,2,3]}`, `{"v":[1,5]}`, `/v/1,/v/2`},
		{`{"m":{"a~b/c":1}}`, `{"m":{"a~b/c":2}}`, `/m/a~0b~1c`},
		{`{"dup":[{"id":1},{"id":1}]}`, `{"dup":[{"id":1},{"id":2}]}`, `/dup/1/id`},
		{`{"t":{"a":1}}`, `{"t":[1]}`, `/t`},
		{`{"elapsed_ms":1,"s":{"elapsed_ms":2}}`, `{"elapsed_ms":3,"s":{"elapsed_ms":4}}`, ``},
	}
	for _, c := range cases {
		var got []string
		diff("", decode(t, c.a), decode(t, c.b), &got)
		if strings.Join(got, ",") != c.want {
			t.Errorf("diff %s %s = %v, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestFigures(t *testing.T) {
	t.Parallel()
	got := figures(decode(t, `{"lambda":1.5,"name":"x","elapsed_ms":3,"summary":{"makespan":10,"elapsed_ms":2,"deep":{"no":1}},"list":[1,2]}`))
	want := map[string]float64{"lambda": 1.5, "summary.makespan": 10}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("figures %v, want %v", got, want)
	}
	if figures(decode(t, `[1]`)) != nil {
		t.Error("figures of an array")
	}
}

// TestCompareColumns: a result field named like a meta column (xselect's
// result has its own "gap") gets a "result." prefix instead of a
// duplicate column.
func TestCompareColumns(t *testing.T) {
	t.Parallel()
	kids := []record{{Variant: BaseVariant, State: StateSucceeded}, {Variant: "v", State: StateSucceeded}}
	results := [][]byte{
		[]byte(`{"result":{"gap":0.5,"lambda":2},"meta":{"status":"feasible","objective":2,"gap":0.5}}`),
		[]byte(`{"result":{"gap":0.25,"lambda":3},"meta":{"status":"optimal","objective":3,"gap":0}}`),
	}
	c, err := compare("p", nil, kids, results)
	if err != nil {
		t.Fatal(err)
	}
	want := "state,status,objective,bound,gap,lambda,result.gap,changed"
	if got := strings.Join(c.Columns, ","); got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if d := c.Rows[1].Delta; d["result.gap"] != -0.25 || d["lambda"] != 1 || d["objective"] != 1 {
		t.Errorf("delta %v", d)
	}
	if got := strings.Join(c.Rows[1].Changed.Paths, ","); got != "/gap,/lambda" {
		t.Errorf("changed %v", c.Rows[1].Changed)
	}
}

// nested is a merge patch of depth levels: {"a":{"a":...{"a":1}}}.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// TestPatchDepth: a variant's patch deeper than any valid request of the
// problem is refused with a 422 violation pointing at the first level too
// deep, before the merge patch library (quadratic in depth: issue 15's
// 9,000-level patch took 3.3 s) sees it; a patch as deep as the schema
// allows is applied.
func TestPatchDepth(t *testing.T) {
	t.Parallel()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc := &Service{cfg: Config{}.WithDefaults(), runner: runner}
	p, _ := runner.Lookup(jobtest.Name)
	limit := patchDepthLimit(runner.Schemas(), p.RequestSchema)
	if limit != 3 { // the object, "nodes", a node
		t.Fatalf("depth limit of %s: %d, want 3", p.RequestSchema, limit)
	}
	body := `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[` +
		`{"name":"ok","patch":{"nodes":[{"name":"a","cap":1}]}},{"name":"deep","patch":` + nested(5000) + `}]}`
	_, _, _, xe := svc.prepare([]byte(body))
	want := "/variants/1/patch" + strings.Repeat("/a", limit)
	if xe == nil || xe.Kind != solver.KindSchema || len(xe.Violations) != 1 || xe.Violations[0].Pointer != want ||
		!strings.Contains(xe.Violations[0].Message, "deeper than the 3 levels") {
		t.Fatalf("5000-level patch: %+v, want one schema violation at %s", xe, want)
	}
	_, inputs, _, xe := svc.prepare([]byte(`{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[` +
		`{"name":"ok","patch":{"nodes":[{"name":"a","cap":1}]}}]}`))
	if xe != nil || len(inputs) != 2 {
		t.Fatalf("a patch as deep as the schema allows: %v", xe)
	}
}

// TestPatchDepthLimits: every shipped request schema bounds depth, within
// maxPatchDepth (cmmf's only through if/then, which MaxDepth does not read:
// see maxPatchDepth), and no generated instance of any problem is deeper
// than the limit its patches get.
func TestPatchDepthLimits(t *testing.T) {
	t.Parallel()
	set, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems.All() {
		d, ok := set.MaxDepth(p.RequestSchema)
		if !ok || (d > maxPatchDepth && p.Name != "cmmf") {
			t.Errorf("%s: MaxDepth %d (known %v), over maxPatchDepth %d", p.Name, d, ok, maxPatchDepth)
		}
		limit := patchDepthLimit(set, p.RequestSchema)
		for seed := int64(1); seed <= 3; seed++ {
			inst, err := p.Generate(seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(inst)
			if err != nil {
				t.Fatal(err)
			}
			if ptr, deep := tooDeep(raw, limit); deep {
				t.Errorf("%s seed %d: generated instance deeper than the limit %d at %s", p.Name, seed, limit, ptr)
			}
		}
	}
}
