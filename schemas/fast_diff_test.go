package schemas_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// fastTestSchema exercises the keywords the fast path supports but the
// embedded schemas do not use (not, else, exclusiveMaximum, schema-valued
// additionalProperties, boolean schemas, numeric and object enum/const,
// uniqueItems on numbers), and keywords it deliberately leaves unsure
// (multipleOf, patternProperties, prefixItems, contains, dependentRequired).
const fastTestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://xflex.dev/schemas/fasttest.json",
  "type": "object",
  "properties": {
    "neg": {"not": {"type": "string"}},
    "cond": {"if": {"type": "number"}, "then": {"minimum": 0}, "else": {"type": "string", "maxLength": 3}},
    "below": {"type": "number", "exclusiveMaximum": 2.5, "exclusiveMinimum": -1e-300},
    "bag": {"type": "object", "additionalProperties": {"type": "integer", "maximum": 9007199254740992}},
    "yes": true,
    "no": false,
    "nums": {"enum": [1, 2.5, 1e15, "1", null, {"a": [1, 2]}]},
    "obj": {"const": {"k": [0, 1.5]}},
    "set": {"type": "array", "uniqueItems": true, "items": {"type": ["number", "string", "array", "object"]}},
    "when": {"type": "string", "format": "date-time"},
    "mult": {"multipleOf": 0.5},
    "pats": {"patternProperties": {"^x": {"type": "string"}}},
    "pre": {"prefixItems": [{"type": "string"}]},
    "has": {"contains": {"type": "string"}},
    "dep": {"dependentRequired": {"a": ["b"]}},
    "either": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]},
    "one": {"oneOf": [{"type": "number", "minimum": 0}, {"type": "integer", "maximum": 10}]},
    "few": {"type": "object", "minProperties": 1, "maxProperties": 2}
  }
}`

const fastTestName = "fasttest.json"

// maxUnsureFraction bounds how often the fast path may answer unsure on
// the embedded schemas' documents and mutations. The only unsure cases
// there are numbers beyond the float64 range, counted apart (holdsRefused),
// so 1% leaves room without hiding a regression that makes whole classes
// of documents unsure.
const maxUnsureFraction = 0.01

// mutantsPerRun is the number of seeded random mutants checked.
const mutantsPerRun = 6000

type seedDoc struct {
	label  string
	schema string
	doc    any
}

// loadSeeds reads every request under solver/*/testdata, solver/*/*/testdata
// and examples/ (against its problem's request schema) and every JSON
// *.golden (against the response schema).
func loadSeeds(t testing.TB) []seedDoc {
	var out []seedDoc
	add := func(path, schema string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := solver.DecodeAny(b)
		if err != nil {
			return // a golden file that is not JSON
		}
		out = append(out, seedDoc{label: path, schema: schema, doc: doc})
	}
	for _, p := range problems.All() {
		dir := filepath.Join("..", "solver", filepath.FromSlash(p.Name), "testdata")
		reqs, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		golds, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
		for _, f := range reqs {
			add(f, p.RequestSchema)
		}
		for _, f := range golds {
			add(f, p.ResponseSchema)
		}
		cli := p.CLIName
		if cli == "" {
			cli = p.Name
		}
		if ex := filepath.Join("..", "examples", cli+".json"); fileExists(ex) {
			add(ex, p.RequestSchema)
		}
		if len(reqs) == 0 {
			t.Errorf("problem %s has no testdata requests in %s", p.Name, dir)
		}
	}
	benches, _ := filepath.Glob(filepath.Join("..", "benchmarks", "*", "testdata", "*.json"))
	if len(benches) > 0 {
		t.Logf("benchmarks testdata files not mapped to a schema: %v", benches)
	}
	return out
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func loadFastSet(t testing.TB) *schemas.Set {
	set, err := schemas.LoadWith(map[string][]byte{fastTestName: []byte(fastTestSchema)})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// libraryVerdict is true when the library accepts doc; panicked reports a
// panic out of the library path (none is known: it guards the library),
// after which the fast path must not have said valid either.
func libraryVerdict(set *schemas.Set, name string, doc any) (ok, panicked bool) {
	defer func() {
		if recover() != nil {
			ok, panicked = false, true
		}
	}()
	return len(set.ValidateLibrary(name, doc)) == 0, false
}

// diffStats accumulates the differential run.
type diffStats struct {
	docs, unsure    map[string]int
	libOK, libBad   map[string]int
	cov             map[string]*[3]int
	failures        int
	unsureExamples  []string
	embeddedDocs    int
	embeddedUnsure  int
	fastDefinitives int
	refusedDocs     int
	refusedRefused  int
}

func newDiffStats() *diffStats {
	return &diffStats{docs: map[string]int{}, unsure: map[string]int{}, libOK: map[string]int{}, libBad: map[string]int{}, cov: map[string]*[3]int{}}
}

// checkDoc compares the fast verdict with the library's and Validate's
// output with the library's, returning the library verdict.
func (st *diffStats) checkDoc(t *testing.T, set *schemas.Set, name, label string, doc any) bool {
	t.Helper()
	fast := set.FastVerdictCov(name, doc, st.cov)
	lib, panicked := libraryVerdict(set, name, doc)
	st.docs[name]++
	refused := holdsRefused(doc)
	if refused {
		st.refusedDocs++
		if !panicked && !lib {
			st.refusedRefused++
		}
	}
	if name != fastTestName && !refused {
		st.embeddedDocs++
	}
	if lib {
		st.libOK[name]++
	} else {
		st.libBad[name]++
	}
	switch {
	case fast == "unsure":
		st.unsure[name]++
		if name != fastTestName && !refused {
			st.embeddedUnsure++
			if len(st.unsureExamples) < 5 {
				b, _ := json.Marshal(doc)
				st.unsureExamples = append(st.unsureExamples, fmt.Sprintf("%s: %.300s", label, b))
			}
		}
	case (fast == "valid") != lib:
		st.failures++
		if st.failures <= 10 {
			b, _ := json.Marshal(doc)
			t.Errorf("%s against %s: fast says %s, library valid=%v panicked=%v; doc %.600s", label, name, fast, lib, panicked, b)
		}
	default:
		st.fastDefinitives++
	}
	if !panicked {
		got, want := normalise(set.Validate(name, doc)), normalise(set.ValidateLibrary(name, doc))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s against %s: Validate %v differs from the library %v", label, name, got, want)
		}
	}
	return lib
}

// normalise sorts the property list of the library's additionalProperties
// message, which it builds in Go map order (two library runs on one
// document can differ there), so runs can be compared.
func normalise(vs []schemas.Violation) []schemas.Violation {
	const pre, post = "additionalProperties ", " not allowed"
	out := make([]schemas.Violation, len(vs))
	for i, v := range vs {
		if strings.HasPrefix(v.Message, pre) && strings.HasSuffix(v.Message, post) {
			names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(v.Message, pre), post), ", ")
			sort.Strings(names)
			v.Message = pre + strings.Join(names, ", ") + post
		}
		out[i] = v
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// TestFastMatchesLibraryDifferential is the proof of the fast path: on every
// testdata document, schema-generated documents for every schema, and
// seeded random mutations of them, the fast verdict never contradicts the
// library, and it is unsure rarely.
func TestFastMatchesLibraryDifferential(t *testing.T) {
	set := loadFastSet(t)
	seeds := loadSeeds(t)
	for i, d := range floatEdgeDocs {
		seeds = append(seeds, seedDoc{label: fmt.Sprintf("float edge #%d", i), schema: fastTestName, doc: decodeNumber(t, d)})
	}
	for i, d := range keywordEdgeDocs {
		seeds = append(seeds, seedDoc{label: fmt.Sprintf("keyword edge #%d", i), schema: fastTestName, doc: decodeNumber(t, d)})
	}
	k := collectKnowledge(set)
	rng := rand.New(rand.NewPCG(20261122, 1))
	for _, name := range set.Names() {
		n := 4
		if name == fastTestName {
			n = 40 // its keywords appear in no other schema
		}
		for i := 0; i < n; i++ {
			seeds = append(seeds, seedDoc{label: fmt.Sprintf("generated %s #%d", name, i), schema: name, doc: k.generate(rng, set.Compiled(name), 0)})
		}
	}
	st := newDiffStats()
	for _, s := range seeds {
		st.checkDoc(t, set, s.schema, s.label, s.doc)
	}
	type opCount struct{ applied, valid, invalid int }
	ops := make([]opCount, len(mutationOps))
	for i := 0; i < mutantsPerRun; i++ {
		s := seeds[rng.IntN(len(seeds))]
		doc := deepCopy(s.doc)
		n := 1 + rng.IntN(3)
		var applied []int
		for j := 0; j < n; j++ {
			op := rng.IntN(len(mutationOps))
			var ok bool
			doc, ok = mutationOps[op].apply(k, rng, doc)
			if ok {
				applied = append(applied, op)
			}
		}
		lib := st.checkDoc(t, set, s.schema, fmt.Sprintf("mutant %d of %s", i, s.label), doc)
		for _, op := range applied {
			ops[op].applied++
			if lib {
				ops[op].valid++
			} else {
				ops[op].invalid++
			}
		}
	}

	// Coverage: every schema, both library verdicts on each.
	for _, name := range set.Names() {
		t.Logf("%-32s docs %5d  library valid %5d invalid %5d  fast unsure %4d", name, st.docs[name], st.libOK[name], st.libBad[name], st.unsure[name])
		if st.libOK[name] == 0 || (st.libBad[name] == 0 && name != "common.json") { // common.json holds only $defs: everything is valid
			t.Errorf("%s: library verdicts valid %d, invalid %d; want both", name, st.libOK[name], st.libBad[name])
		}
	}
	// Every mutation class hits, with both outcomes.
	for i, op := range mutationOps {
		t.Logf("mutation %-14s applied %5d  valid %5d invalid %5d", op.name, ops[i].applied, ops[i].valid, ops[i].invalid)
		if ops[i].applied < mutantsPerRun/len(mutationOps)/2 || ops[i].valid == 0 || ops[i].invalid == 0 {
			t.Errorf("mutation %s: applied %d, valid %d, invalid %d; want it hitting with both outcomes", op.name, ops[i].applied, ops[i].valid, ops[i].invalid)
		}
	}
	// Every supported keyword decided both ways by the fast path.
	kws := make([]string, 0, len(st.cov))
	for kw := range st.cov {
		kws = append(kws, kw)
	}
	sort.Strings(kws)
	for _, kw := range kws {
		c := st.cov[kw]
		t.Logf("keyword %-22s fast valid %7d unsure %5d invalid %6d", kw, c[0], c[1], c[2])
	}
	for _, kw := range []string{"type", "const", "enum", "format", "minProperties", "maxProperties", "required",
		"properties", "additionalProperties", "propertyNames", "minItems", "maxItems", "uniqueItems", "items",
		"minLength", "maxLength", "pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
		"$ref", "not", "allOf", "anyOf", "oneOf", "if", "then", "else", "integerLiteral"} {
		c := st.cov[kw]
		if c == nil || c[0] == 0 || c[2] == 0 {
			t.Errorf("keyword %s: fast verdicts %v; want both valid and invalid", kw, c)
		}
	}
	frac := float64(st.embeddedUnsure) / float64(st.embeddedDocs)
	t.Logf("embedded schemas: %d documents, fast unsure %d (%.3f%%), definitive answers checked %d, disagreements %d; unsure examples %v",
		st.embeddedDocs, st.embeddedUnsure, 100*frac, st.fastDefinitives, st.failures, st.unsureExamples)
	t.Logf("documents holding a number beyond the float64 range: %d, refused without a panic: %d", st.refusedDocs, st.refusedRefused)
	if st.refusedDocs == 0 || st.refusedRefused != st.refusedDocs {
		t.Errorf("documents holding a number beyond the float64 range: %d, refused without a panic %d; want all, and some", st.refusedDocs, st.refusedRefused)
	}
	if frac > maxUnsureFraction {
		t.Errorf("fast path unsure on %.2f%% of embedded-schema documents, want at most %.2f%%", 100*frac, 100*maxUnsureFraction)
	}
	if st.unsure[fastTestName] == 0 {
		t.Errorf("%s: the unsupported keywords never gave unsure", fastTestName)
	}
}

// keywordEdgeDocs sit on each side of the keywords the embedded schemas
// use rarely or not at all (minProperties, maxProperties, not), so both
// verdicts of each are checked whatever the random documents and mutations
// happen to hit: which ones do shifts whenever any schema changes.
var keywordEdgeDocs = []string{
	`{"few": {}}`, `{"few": {"a": 1}}`, `{"few": {"a": 1, "b": 2}}`, `{"few": {"a": 1, "b": 2, "c": 3}}`,
	`{"neg": 1}`, `{"neg": "s"}`,
}

// floatEdgeDocs put numbers whose float64 decides (float.go) at each bound
// of fasttest.json's "below" (-1e-300 < below < 2.5) and "cond" (≥ 0),
// and integers written with a fraction or an exponent (rule 4).
var floatEdgeDocs = []string{
	`{"below":-1e-300}`, `{"below":-1.0000000000000000001e-300}`, `{"below":-9.9999999999999999999e-301}`,
	`{"below":-1e-400}`, `{"below":-5e-324}`, `{"below":2.5}`, `{"below":2.49999999999999999999}`,
	`{"below":2.4999999999999996}`, `{"below":-1}`, `{"cond":-1e-400}`, `{"cond":-5e-324}`, `{"cond":5e-324}`,
	`{"nums":1.00000000000000000001}`, `{"nums":2.50000000000000000001}`, `{"set":[1,1.00000000000000000001]}`,
	`{"obj":{"k":[-1e-400,1.5]}}`, `{"either":1e-400}`, `{"either":1.00000000000000000001}`, `{"bag":{"a":9007199254740993}}`,
	`{"bag":{"a":1.0,"b":1e2,"c":-0}}`, `{"either":1E+2}`, `{"one":1.0}`, `{"one":1}`, `{"budget_ms":1e3,"seed":0.0}`,
}

func decodeNumber(t *testing.T, s string) any {
	t.Helper()
	doc, err := solver.DecodeAny([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// knowledge is what the generator and the mutations know of the schema
// set: its bounds, lengths, enum strings and property names.
type knowledge struct {
	numbers []string // boundary numbers as decimal text
	strs    []string
	keys    []string
	lengths []int // array lengths at and beyond maxItems/minItems
}

var fixedNumbers = []string{"0", "-0", "0.0", "-0.0", "-0.0000000000000000001", "0.0000000000000000001",
	"1e15", "1000000000000000.0000000001", "999999999999999.9999999999", "1e-400", "-1e-400",
	"9007199254740991", "9007199254740992", "9007199254740993", "1.0", "1e2", "2.5", "1", "-1", "1E+2",
	"1.5e1", "12345678901234567890123", "1e308", "1e309", "-1e309", "0.5", "3", "100", refusedNumber,
	// Where float64 rounding decides (float.go): to 0, to a subnormal, to
	// the smallest normal, to the largest finite value or to ±Inf.
	"1e-1000001", "-1e-1000001", "2e-324", "3e-324", "5e-324", "-5e-324", "1e-310", "2.225073858507201e-308",
	"2.2250738585072014e-308", "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623158e308",
	"1.7976931348623159e308", "0.00000000000000000000000000000000000000000000000000000000000000000001e-300"}

// refusedNumber is beyond the float64 range (its exponent is also far
// beyond what big.Rat converts cheaply): validateLibrary refuses it, and
// every number beyond that range, wherever it appears (unusableNumbers)
// and the fast path must answer unsure. Documents holding one are counted
// apart from the unsure fraction (holdsRefused).
const refusedNumber = "-1e999999999"

func holdsRefused(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, err := strconv.ParseFloat(string(v), 64)
		return err != nil
	case []any:
		for _, x := range v {
			if holdsRefused(x) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if holdsRefused(x) {
				return true
			}
		}
	}
	return false
}

func collectKnowledge(set *schemas.Set) *knowledge {
	k := &knowledge{numbers: append([]string(nil), fixedNumbers...)}
	strs := map[string]bool{}
	keys := map[string]bool{}
	lengths := map[int]bool{0: true, 1: true, 2: true}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, r := range []*big.Rat{s.Minimum, s.ExclusiveMinimum, s.Maximum, s.ExclusiveMaximum} {
			if r != nil {
				k.numbers = append(k.numbers, boundNumbers(r)...)
			}
		}
		for _, e := range s.Enum {
			if str, ok := e.(string); ok {
				strs[str] = true
				strs[strings.ToUpper(str)] = true
			}
		}
		for _, n := range []int{s.MaxItems, s.MinItems, s.MaxProperties, s.MinProperties} {
			if n >= 0 && n <= 2000 {
				lengths[n], lengths[n+1] = true, true
				if n > 0 {
					lengths[n-1] = true
				}
			}
		}
		for name, p := range s.Properties {
			keys[name] = true
			walk(p)
		}
		walk(s.Ref)
		walk(s.PropertyNames)
		walk(s.Items2020)
		walk(s.Not)
		walk(s.If)
		walk(s.Then)
		walk(s.Else)
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			walk(a)
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range l {
				walk(x)
			}
		}
	}
	for _, n := range set.Names() {
		walk(set.Compiled(n))
	}
	runes := []string{"x", "é", "日", "😀"}
	for _, r := range runes {
		for _, n := range []int{0, 1, 2, 3, 4, 63, 64, 65, 128, 129} {
			strs[strings.Repeat(r, n)] = true
		}
	}
	for _, s := range []string{"a\x00b", "\x1f", "tab\there", "line\nbreak", "\x7f", "cpu", "memory", "a/b", "1/2", "12", "1/", "/3",
		strings.Repeat("0", 64), strings.Repeat("ab", 32), strings.Repeat("A", 64), strings.Repeat("f", 63),
		"2026-11-22T05:06:28Z", "2026-11-22T05:06:28.123+01:00", "2026-11-22t05:06:28z", "2026-13-22T05:06:28Z",
		"2026-02-30T05:06:28Z", "2026-11-22T24:00:00Z", "2026-11-22 05:06:28Z", "2026-11-22T05:06:60Z", "2026-11-22"} {
		strs[s] = true
	}
	for s := range strs {
		k.strs = append(k.strs, s)
	}
	for s := range keys {
		k.keys = append(k.keys, s)
	}
	for n := range lengths {
		k.lengths = append(k.lengths, n)
	}
	sort.Strings(k.numbers) // the walk meets bounds in map order
	k.numbers = slices.Compact(k.numbers)
	sort.Strings(k.strs)
	sort.Strings(k.keys)
	sort.Ints(k.lengths)
	k.keys = append(k.keys, "zz_unknown", "cpu", "", "a\x01")
	return k
}

// boundNumbers returns decimal texts at and around an exact bound: the
// bound as written in several forms, just above and below it by 1e-19 and
// by 1, and its float64 rounding.
func boundNumbers(r *big.Rat) []string {
	exact := r.FloatString(30)
	exact = strings.TrimRight(strings.TrimRight(exact, "0"), ".")
	tiny := new(big.Rat).SetFrac64(1, 1)
	tiny.Quo(tiny, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil)))
	out := []string{exact, exact + "e0",
		new(big.Rat).Add(r, tiny).FloatString(25), new(big.Rat).Sub(r, tiny).FloatString(25),
		new(big.Rat).Add(r, big.NewRat(1, 1)).FloatString(0), new(big.Rat).Sub(r, big.NewRat(1, 1)).FloatString(0)}
	if !strings.Contains(exact, ".") {
		out = append(out, exact+".0", exact+".00000000000000000001")
	}
	f, _ := r.Float64()
	out = append(out, fmt.Sprintf("%g", f), fmt.Sprintf("%e", f))
	// The float64s next to the bound's: the first values the float view
	// (float.go) tells apart from it.
	for _, g := range []float64{math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))} {
		if !math.IsInf(g, 0) {
			out = append(out, strconv.FormatFloat(g, 'g', -1, 64))
		}
	}
	if r.IsInt() && r.Sign() != 0 && strings.HasSuffix(exact, "0") {
		t := strings.TrimRight(exact, "0")
		out = append(out, fmt.Sprintf("%se%d", t, len(exact)-len(t)))
	}
	return out
}

// generate builds a document from a compiled schema: required properties
// and about half of the optional ones, arrays of a few items, values inside
// bounds where the schema says so. It is a starting point for mutations,
// not a guarantee of validity.
func (k *knowledge) generate(rng *rand.Rand, s *jsonschema.Schema, depth int) any {
	if s == nil || depth > 12 {
		return nil
	}
	if s.Always != nil {
		return k.randomValue(rng, 1)
	}
	if s.Ref != nil {
		return k.generate(rng, s.Ref, depth+1)
	}
	if len(s.Constant) > 0 {
		return s.Constant[0]
	}
	if len(s.Enum) > 0 {
		return s.Enum[rng.IntN(len(s.Enum))]
	}
	if len(s.OneOf) > 0 {
		return k.generate(rng, s.OneOf[rng.IntN(len(s.OneOf))], depth+1)
	}
	if len(s.AnyOf) > 0 {
		return k.generate(rng, s.AnyOf[rng.IntN(len(s.AnyOf))], depth+1)
	}
	typ := ""
	if len(s.Types) > 0 {
		typ = s.Types[rng.IntN(len(s.Types))]
	} else if len(s.Properties) > 0 || len(s.Required) > 0 {
		typ = "object"
	} else if s.Items2020 != nil {
		typ = "array"
	} else if len(s.AllOf) > 0 {
		return k.generate(rng, s.AllOf[0], depth+1)
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if req[n] || rng.IntN(2) == 0 {
				obj[n] = k.generate(rng, s.Properties[n], depth+1)
			}
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				obj[r] = k.randomValue(rng, 1)
			}
		}
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			for i := rng.IntN(3); i > 0; i-- {
				obj[k.strs[rng.IntN(len(k.strs))]] = k.generate(rng, a, depth+1)
			}
		}
		return obj
	case "array":
		n := max(s.MinItems, 0) + rng.IntN(3)
		if s.MaxItems >= 0 && n > s.MaxItems {
			n = s.MaxItems
		}
		arr := make([]any, n)
		for i := range arr {
			arr[i] = k.generate(rng, s.Items2020, depth+1)
		}
		return arr
	case "string":
		if s.Format == "date-time" {
			return "2026-11-22T05:06:28Z"
		}
		if s.Pattern != nil {
			for _, c := range []string{"cpu", "node-7", strings.Repeat("0a", 32), "3/4", "12"} {
				if s.Pattern.MatchString(c) {
					return c
				}
			}
		}
		return fmt.Sprintf("s%d", rng.IntN(5))
	case "integer", "number":
		lo := 0.0
		if s.Minimum != nil {
			lo, _ = s.Minimum.Float64()
		}
		if s.ExclusiveMinimum != nil {
			lo, _ = s.ExclusiveMinimum.Float64()
			lo++
		}
		v := lo + float64(rng.IntN(20))
		if s.Maximum != nil {
			if hi, _ := s.Maximum.Float64(); v > hi {
				v = hi
			}
		}
		if typ == "number" && rng.IntN(2) == 0 {
			return json.Number(fmt.Sprintf("%g", v+0.5))
		}
		return json.Number(fmt.Sprintf("%d", int64(v)))
	case "boolean":
		return rng.IntN(2) == 0
	case "null":
		return nil
	}
	return k.randomValue(rng, 1)
}

// randomValue is a random JSON value of any type from the knowledge's
// numbers and strings, nested at most depth levels.
func (k *knowledge) randomValue(rng *rand.Rand, depth int) any {
	t := rng.IntN(6)
	if depth <= 0 && t >= 4 {
		t = rng.IntN(4)
	}
	switch t {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return json.Number(k.numbers[rng.IntN(len(k.numbers))])
	case 3:
		return k.strs[rng.IntN(len(k.strs))]
	case 4:
		arr := make([]any, rng.IntN(3))
		for i := range arr {
			arr[i] = k.randomValue(rng, depth-1)
		}
		return arr
	}
	obj := map[string]any{}
	for i := rng.IntN(3); i > 0; i-- {
		obj[k.keys[rng.IntN(len(k.keys))]] = k.randomValue(rng, depth-1)
	}
	return obj
}

// location is one value inside a document: its container and key or index
// (container nil: the root).
type location struct {
	obj map[string]any
	arr []any
	key string
	idx int
	val any
}

func locations(doc any) []location {
	out := []location{{val: doc}}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for key := range v {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				out = append(out, location{obj: v, key: key, val: v[key]})
				walk(v[key])
			}
		case []any:
			for i, x := range v {
				out = append(out, location{arr: v, idx: i, val: x})
				walk(x)
			}
		}
	}
	walk(doc)
	return out
}

// set replaces the value at l, returning the new root.
func (l location) set(root, v any) any {
	switch {
	case l.obj != nil:
		l.obj[l.key] = v
	case l.arr != nil:
		l.arr[l.idx] = v
	default:
		return v
	}
	return root
}

// pick returns a random location whose value satisfies want (any location
// if none does, ok false).
func pick(rng *rand.Rand, doc any, want func(location) bool) (location, bool) {
	locs := locations(doc)
	var fit []location
	for _, l := range locs {
		if want(l) {
			fit = append(fit, l)
		}
	}
	if len(fit) == 0 {
		return locs[rng.IntN(len(locs))], false
	}
	return fit[rng.IntN(len(fit))], true
}

func isKind[T any](l location) bool { _, ok := l.val.(T); return ok }

type mutationOp struct {
	name  string
	apply func(k *knowledge, rng *rand.Rand, doc any) (any, bool)
}

var mutationOps = []mutationOp{
	{"delete-key", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, func(l location) bool { return l.obj != nil })
		if ok {
			delete(l.obj, l.key)
		}
		return doc, ok
	}},
	{"add-key", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, isKind[map[string]any])
		if ok {
			l.val.(map[string]any)[k.keys[rng.IntN(len(k.keys))]] = k.randomValue(rng, 1)
		}
		return doc, ok
	}},
	{"grow-object", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, isKind[map[string]any])
		if !ok {
			return doc, false
		}
		obj := l.val.(map[string]any)
		n := k.lengths[rng.IntN(len(k.lengths))]
		var v any = json.Number("1")
		if locs := locations(obj); len(locs) > 1 {
			v = locs[1].val // the value at the smallest key: deterministic
		}
		for i := len(obj); i < n; i++ {
			obj[fmt.Sprintf("k%d", i)] = deepCopy(v)
		}
		return doc, true
	}},
	{"rename-key", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, func(l location) bool { return l.obj != nil })
		if ok {
			v := l.obj[l.key]
			delete(l.obj, l.key)
			l.obj[k.strs[rng.IntN(len(k.strs))]] = v
		}
		return doc, ok
	}},
	{"swap-type", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, _ := pick(rng, doc, func(location) bool { return true })
		return l.set(doc, k.randomValue(rng, 1)), true
	}},
	{"number", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, isKind[json.Number])
		return l.set(doc, json.Number(k.numbers[rng.IntN(len(k.numbers))])), ok
	}},
	{"string", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, isKind[string])
		return l.set(doc, k.strs[rng.IntN(len(k.strs))]), ok
	}},
	{"array-length", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, isKind[[]any])
		if !ok {
			return doc, false
		}
		arr := l.val.([]any)
		n := k.lengths[rng.IntN(len(k.lengths))]
		out := make([]any, n)
		for i := range out {
			if len(arr) > 0 {
				out[i] = deepCopy(arr[i%len(arr)])
			} else {
				out[i] = k.randomValue(rng, 0)
			}
		}
		return l.set(doc, out), true
	}},
	{"duplicate-item", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, ok := pick(rng, doc, func(l location) bool { a, ok := l.val.([]any); return ok && len(a) > 0 })
		if !ok {
			return doc, false
		}
		arr := l.val.([]any)
		return l.set(doc, append(append([]any(nil), arr...), deepCopy(arr[rng.IntN(len(arr))]))), true
	}},
	{"ambiguous", func(k *knowledge, rng *rand.Rand, doc any) (any, bool) {
		l, _ := pick(rng, doc, func(l location) bool { return l.obj != nil })
		choices := []any{nil, []any{}, map[string]any{}, []any{nil}, []any{json.Number("1"), json.Number("1.0")},
			[]any{"a", "a"}, json.Number("1.0"), "1", []any{json.Number("2"), json.Number("0.5")}}
		return l.set(doc, deepCopy(choices[rng.IntN(len(choices))])), true
	}},
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = deepCopy(x)
		}
		return a
	}
	return v
}
