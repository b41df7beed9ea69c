package robust_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// The bad-input sweep of issue 15: in every problem's example request
// (examples/CMD.json), every number is set, one at a time, to each of
// badNumbers, and every string to each of badStrings, whatever the schema
// says. Each body goes through the HTTP handler the server runs (routing,
// middleware, validation, the Runner, response encoding) and through the
// Runner alone. No answer may be a 500, and nothing may panic or hang;
// 4xx is the expected answer to most of them.

// badNumbers are JSON number texts, kept verbatim: -0 and 1e-400 (which
// decodes to 0) are distinct inputs from 0.
var badNumbers = []string{"0", "-0", "1e-400", "5e-324", "1e15", "1e308", "-1"}

// badStringMarker stands for invalid UTF-8 until the body is serialised:
// encoding/json would replace the bytes with U+FFFD.
const badStringMarker = "\x01invalid-utf8\x01"

// invalidUTF8 is a JSON string literal whose content is not UTF-8: a lone
// continuation byte, a truncated two-byte sequence and an overlong NUL.
const invalidUTF8 = "\"\x80bad\xc3(\xc0\x80\""

// badStrings are the string values: empty, 1 MiB, invalid UTF-8.
var badStrings = []string{"", strings.Repeat("x", 1<<20), badStringMarker}

// badInputBudgetMS is both the Runner's budget cap and every request's
// budget_ms (unless the mutation is of budget_ms itself): the sweep is
// about answers, not quality, and runs thousands of requests.
const badInputBudgetMS = 20

// badMutation is one mutated example.
type badMutation struct {
	problem solver.Problem
	desc    string
	body    []byte
}

// badMutations lists every mutation of one example, in document order:
// each number set to each of badNumbers, each string value to each of
// badStrings, and each object key to "" and invalid UTF-8 (a 1 MiB key
// costs the schema library a quoted copy per violation, 6 s of the
// sweep's CPU, and reaches the same length checks as a 1 MiB value).
func badMutations(p solver.Problem, doc map[string]any) []badMutation {
	var out []badMutation
	emit := func(desc string, d any) {
		b, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		b = bytes.ReplaceAll(b, []byte(`"`+jsonEscape(badStringMarker)+`"`), []byte(invalidUTF8))
		out = append(out, badMutation{problem: p, desc: desc, body: b})
	}
	walkJSON(doc, nil, func(path []any, v any) {
		ptr := pointer(path)
		switch v.(type) {
		case json.Number:
			for _, n := range badNumbers {
				d := deepCopy(doc)
				set(d, path, json.Number(n))
				emit(ptr+"="+n, d)
			}
		case string:
			for _, s := range badStrings {
				d := deepCopy(doc)
				set(d, path, s)
				emit(fmt.Sprintf("%s=string(%d bytes)", ptr, len(s)), d)
			}
		case map[string]any:
			for k := range v.(map[string]any) {
				for _, s := range []string{"", badStringMarker} {
					d := deepCopy(doc)
					m := get(d, path).(map[string]any)
					m[s] = m[k]
					delete(m, k)
					emit(fmt.Sprintf("%s key %q=string(%d bytes)", ptr, k, len(s)), d)
				}
			}
		}
	})
	return out
}

// get returns the value at path in doc.
func get(doc any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			doc = doc.(map[string]any)[k]
		case int:
			doc = doc.([]any)[k]
		}
	}
	return doc
}

// jsonEscape is how encoding/json writes s inside quotes.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// walkJSON calls f on every object, number and string in doc (object
// keys in sorted order), with its path.
func walkJSON(v any, path []any, f func(path []any, v any)) {
	switch x := v.(type) {
	case map[string]any:
		f(path, v)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkJSON(x[k], append(append([]any(nil), path...), k), f)
		}
	case []any:
		for i, e := range x {
			walkJSON(e, append(append([]any(nil), path...), i), f)
		}
	case json.Number, string:
		f(path, v)
	}
}

func pointer(path []any) string {
	var b strings.Builder
	for _, p := range path {
		fmt.Fprintf(&b, "/%v", p)
	}
	return b.String()
}

// badInputResult is what one mutation got on both paths.
type badInputResult struct {
	status int     // HTTP status
	runner outcome // the Runner's answer, classified by runOne
	body   string  // HTTP response body (for a 500)
}

// runBadInput sends m through the handler and through the Runner.
func runBadInput(h http.Handler, r *solver.Runner, m badMutation) badInputResult {
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/"+m.problem.Name, bytes.NewReader(m.body)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := badInputResult{status: rec.Code}
	if rec.Code >= 500 {
		b, _ := io.ReadAll(rec.Result().Body)
		res.body = string(b)
	}
	res.runner = runOne(r, m.problem, mutation{source: "examples", desc: m.desc, body: m.body})
	return res
}

// TestBadInputSweep is the sweep; it logs the counts it ran and fails on
// any 500 (HTTP) or finding (Runner: panic, internal error, hang,
// unencodable or schema-violating response).
func TestBadInputSweep(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), badInputBudgetMS*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	srv := httpapi.New(httpapi.Config{MaxConcurrent: workers, QueueWait: hangLimit}, r, zerolog.Nop())
	h := srv.Handler()
	var ms []badMutation
	for _, p := range r.Problems() {
		raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", p.Command()+".json"))
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		doc, err := solver.DecodeAny(raw)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		m := doc.(map[string]any)
		m["budget_ms"] = json.Number(fmt.Sprint(badInputBudgetMS))
		ms = append(ms, badMutations(p, m)...)
	}
	start := time.Now()
	results := make([]badInputResult, len(ms))
	parallel(len(ms), func(i int) { results[i] = runBadInput(h, r, ms[i]) })
	statuses := map[string]map[int]int{}
	classes := map[string]int{}
	for i, res := range results {
		m := ms[i]
		if statuses[m.problem.Name] == nil {
			statuses[m.problem.Name] = map[int]int{}
		}
		statuses[m.problem.Name][res.status]++
		classes[res.runner.class]++
		if res.status >= 500 {
			t.Errorf("%s [%s]: HTTP %d: %s", m.problem.Name, m.desc, res.status, res.body)
		}
		if res.runner.finding != "" {
			t.Errorf("%s [%s]: Runner %s: %s", m.problem.Name, m.desc, res.runner.class, res.runner.finding)
		}
	}
	names := make([]string, 0, len(statuses))
	for n := range statuses {
		names = append(names, n)
	}
	sort.Strings(names)
	total := map[int]int{}
	for _, n := range names {
		t.Logf("%-16s %s", n, histogram(statuses[n]))
		for code, k := range statuses[n] {
			total[code] += k
		}
	}
	t.Logf("%d mutations, each over HTTP and through the Runner, in %v: HTTP %s; Runner %v",
		len(ms), time.Since(start).Round(time.Millisecond), histogram(total), classes)
}

// histogram formats status counts in code order.
func histogram(h map[int]int) string {
	codes := make([]int, 0, len(h))
	for c := range h {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d=%d", c, h[c])
	}
	return strings.Join(parts, " ")
}
