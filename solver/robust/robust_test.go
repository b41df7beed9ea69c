package robust_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// sweepBudgetMS is the budget_ms every mutated request carries (and the
// Runner's cap): long enough for the example instances to finish, short
// enough for hundreds of runs per problem.
const sweepBudgetMS = 200

// overBudgetFactor: a run taking longer than this many budgets is counted
// and printed (never asserted: the box is shared and timing is noisy).
const overBudgetFactor = 10

// hangLimit is how long one run may take before the sweep gives up on it
// and reports a hang (a solver that ignores its deadline).
const hangLimit = 30 * time.Second

// Mutations run per problem: enough to cover every kind at every stress
// value on the examples, bounded so the package stays under a minute on
// two cores. -short cuts it further; -robust.all lifts the cap.
const (
	capFull  = 300
	capShort = 60
)

var (
	runAll   = flag.Bool("robust.all", false, "run every mutation (no per-problem cap; minutes)")
	runDump  = flag.String("robust.dump", "", "write each finding's full request to this directory (for reducing it)")
	runTrace = flag.Bool("robust.trace", false, "print each mutation before running it (to name one that crashes the process)")
)

// repoRoot is the module root relative to this package.
const repoRoot = "../.."

// baseRequests lists the example request files of p: examples/CMD.json and
// the problem package's testdata/*.json, deduplicated by content, in path
// order. Files the request schema rejects are not requests (or are
// deliberate bad inputs) and are skipped.
func baseRequests(t *testing.T, r *solver.Runner, p solver.Problem) (names []string, docs []map[string]any) {
	t.Helper()
	paths := []string{filepath.Join(repoRoot, "examples", p.Command()+".json")}
	more, err := filepath.Glob(filepath.Join(repoRoot, "solver", filepath.FromSlash(p.Name), "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, more...)
	seen := map[string]bool{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(raw)] {
			continue
		}
		seen[string(raw)] = true
		doc, err := solver.DecodeAny(raw)
		if err != nil {
			continue
		}
		m, ok := doc.(map[string]any)
		if !ok || len(r.Schemas().Validate(p.RequestSchema, doc)) > 0 {
			continue
		}
		m["budget_ms"] = json.Number(fmt.Sprint(sweepBudgetMS))
		rel, _ := filepath.Rel(repoRoot, path)
		names = append(names, filepath.ToSlash(rel))
		docs = append(docs, m)
	}
	return names, docs
}

// knownIssue is a finding in code this package's owner may not change,
// reported to its owner with a minimal request. Mutations it matches are
// still run and a finding there is counted as known-CLASS instead of
// failing the sweep, unless crashes is set: then they are not run at all
// (each would take the whole test process down) and count as skipped.
// Remove an entry once its fix lands (TestKnownIssuesDocumented fails
// until then): the sweep then asserts on the case again, and the repro moves
// to the corpus.
type knownIssue struct {
	problem string
	what    string
	// repro names the minimal request in testdata/known reported to the
	// owner; TestKnownIssuesDocumented checks that it exists and matches.
	repro   string
	crashes bool
	match   func(doc map[string]any) bool
}

// knownIssues is empty: the three tetris findings this sweep reported
// (simulate allocating before its task limit, NaN utilization at a
// subnormal arrival, assign placing on zero free capacity) are fixed and
// their requests are in the corpus.
var knownIssues = []knownIssue{}

// known returns the known issue a mutation of p triggers, if any.
func known(p solver.Problem, body []byte) *knownIssue {
	return matchKnown(knownIssues, p, body)
}

// matchKnown returns the first of issues that body, a request to p,
// matches.
func matchKnown(issues []knownIssue, p solver.Problem, body []byte) *knownIssue {
	if len(issues) == 0 {
		return nil // nothing to match: no decode per mutation
	}
	var doc map[string]any
	d, err := solver.DecodeAny(body)
	if err != nil {
		return nil
	}
	doc, _ = d.(map[string]any)
	for i := range issues {
		if issues[i].problem == p.Name && issues[i].match(doc) {
			return &issues[i]
		}
	}
	return nil
}

// outcome of one run.
type outcome struct {
	m       mutation
	class   string // "ok/<status>", an error kind, or a finding class
	finding string // non-empty for a finding
	elapsed time.Duration
}

// Finding classes.
const (
	findPanic   = "PANIC"
	findInt     = "INTERNAL"
	findEncode  = "UNENCODABLE"
	findSchema  = "RESPONSE-SCHEMA"
	findHang    = "HANG"
	findNoWhere = "4XX-WITHOUT-REASON"
	findPicture = "PICTURE"
)

// runOne solves one mutated body the way the HTTP handler does and
// classifies the answer.
func runOne(r *solver.Runner, p solver.Problem, m mutation) (o outcome) {
	o = outcome{m: m}
	k := known(p, m.body)
	if k != nil && k.crashes {
		o.class = "skipped-known"
		return o
	}
	defer func() {
		if k != nil && o.finding != "" {
			o.class, o.finding = "known-"+o.class, ""
		}
	}()
	if *runTrace {
		fmt.Fprintf(os.Stderr, "run %s %s [%s] %s\n", p.Name, m.source, m.desc, m.body)
	}
	type res struct {
		resp *solver.Response
		err  error
	}
	ch := make(chan res, 1)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	go func() {
		resp, err := r.Run(ctx, p.Name, m.body)
		ch <- res{resp, err}
	}()
	var got res
	select {
	case got = <-ch:
	case <-time.After(hangLimit + time.Second):
		o.class, o.finding = findHang, fmt.Sprintf("no answer after %v", hangLimit)
		o.elapsed = time.Since(start)
		return o
	}
	o.elapsed = time.Since(start)
	if got.err != nil {
		var xe *solver.Error
		if !errors.As(got.err, &xe) {
			o.class, o.finding = findInt, fmt.Sprintf("Run returned %T: %v", got.err, got.err)
			return o
		}
		switch xe.Kind {
		case solver.KindInternal:
			o.class = findInt
			if strings.HasPrefix(xe.Detail, "panic in ") {
				o.class = findPanic
			}
			o.finding = xe.Error()
		case solver.KindCanceled:
			o.class, o.finding = findHang, "canceled by the hang guard: "+xe.Error()
		default:
			o.class = string(xe.Kind)
			if xe.Detail == "" && len(xe.Violations) == 0 {
				o.class, o.finding = findNoWhere, xe.Error()
			}
		}
		return o
	}
	// Exactly what Runner.Run encodes (Response.Wire) but for the newline.
	b, err := got.resp.AppendJSON(nil)
	if err != nil {
		o.class, o.finding = findEncode, err.Error()
		return o
	}
	doc, err := solver.DecodeAny(b)
	if err != nil {
		o.class, o.finding = findEncode, "response is not JSON: "+err.Error()
		return o
	}
	if vs := r.Schemas().Validate(p.ResponseSchema, doc); len(vs) > 0 {
		o.class, o.finding = findSchema, fmt.Sprintf("%s: %s (and %d more)", vs[0].Pointer, vs[0].Message, len(vs)-1)
		return o
	}
	if msg := checkPicture(r, p, m.body, got.resp.Wire); msg != "" {
		o.class, o.finding = findPicture, msg
		return o
	}
	o.class = "ok/" + string(got.resp.Meta.Status)
	return o
}

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// sweep runs ms on a pool of GOMAXPROCS workers and returns the outcomes
// in the order of ms.
func sweep(r *solver.Runner, p solver.Problem, ms []mutation) []outcome {
	out := make([]outcome, len(ms))
	parallel(len(ms), func(i int) { out[i] = runOne(r, p, ms[i]) })
	return out
}

// parallel runs f(0..n-1) on GOMAXPROCS workers and waits for all.
func parallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// TestSweep is the robustness sweep over every registered problem.
func TestSweep(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), sweepBudgetMS*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	w := newSchemaWalker(r.Schemas())
	limit := capFull
	if testing.Short() {
		limit = capShort
	}
	var summary []string
	for _, p := range r.Problems() {
		t.Run(p.Command(), func(t *testing.T) {
			names, docs := baseRequests(t, r, p)
			if len(docs) == 0 {
				t.Fatalf("no example requests for %s", p.Name)
			}
			var ms []mutation
			for i, doc := range docs {
				ms = append(ms, mutations(w, p.RequestSchema, names[i], doc, seedOf(names[i]))...)
			}
			total := len(ms)
			if !*runAll && len(ms) > limit {
				rng := rand.New(rand.NewPCG(seedOf(p.Name), 1))
				rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
				ms = ms[:limit]
			}
			start := time.Now()
			outs := sweep(r, p, ms)
			wall := time.Since(start)
			byClass := map[string]int{}
			over := 0
			var slowest time.Duration
			slowDesc := ""
			for i, o := range outs {
				byClass[o.class]++
				if o.elapsed > overBudgetFactor*sweepBudgetMS*time.Millisecond {
					over++
				}
				if o.elapsed > slowest {
					slowest, slowDesc = o.elapsed, o.m.source+" ["+o.m.desc+"]"
				}
				if o.finding != "" && *runDump != "" {
					name := fmt.Sprintf("%s-%03d-%s.json", p.Command(), i, o.class)
					if err := os.WriteFile(filepath.Join(*runDump, name), o.m.body, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if o.finding != "" {
					body := string(o.m.body)
					if len(body) > 600 {
						body = body[:600] + "..."
					}
					t.Errorf("%s: %s [%s]: %s\nrequest: %s", o.class, o.m.source, o.m.desc, o.finding, body)
				}
			}
			classes := make([]string, 0, len(byClass))
			for c, n := range byClass {
				classes = append(classes, fmt.Sprintf("%s=%d", c, n))
			}
			sort.Strings(classes)
			line := fmt.Sprintf("%-16s files=%d mutations=%d/%d wall=%v over%dx=%d slowest=%v %s",
				p.Command(), len(docs), len(ms), total, wall.Round(time.Millisecond), overBudgetFactor, over, slowest.Round(time.Millisecond), strings.Join(classes, " "))
			t.Log(line)
			if slowest > overBudgetFactor*sweepBudgetMS*time.Millisecond {
				t.Logf("%s slowest: %s", p.Command(), slowDesc)
			}
			summary = append(summary, line)
		})
	}
	for _, l := range summary {
		t.Log(l)
	}
}

// problemOfFile finds the problem a testdata file belongs to: its name
// starts with the problem's command name and a dash.
func problemOfFile(r *solver.Runner, name string) (solver.Problem, bool) {
	best, found := solver.Problem{}, false
	for _, p := range r.Problems() {
		if strings.HasPrefix(name, p.Command()+"-") && len(p.Command()) > len(best.Command()) {
			best, found = p, true
		}
	}
	return best, found
}

// TestCorpus runs the minimal requests behind the sweep's findings (each
// fixed in its solver package, with a regression test there too): none may
// panic, fail internally, hang or answer with an unencodable or
// schema-violating response.
func TestCorpus(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), sweepBudgetMS*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in testdata: %v", err)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			p, ok := problemOfFile(r, name)
			if !ok {
				t.Fatalf("%s names no registered problem", name)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o := runOne(r, p, mutation{source: path, desc: "corpus", body: body})
			if o.finding != "" {
				t.Fatalf("%s: %s", o.class, o.finding)
			}
			t.Logf("%s: %s in %v", p.Name, o.class, o.elapsed.Round(time.Millisecond))
		})
	}
}

// TestKnownIssuesDocumented checks, for every registered problem, that its
// known issues and the requests in testdata/known pair up: each knownIssue
// says what is wrong and names a repro file that exists and that it
// matches (an issue without one is undocumented), each repro file belongs to
// an entry (one left behind documents nothing), and a repro that does not
// crash still produces a finding (once the fix lands the entry goes and the
// repro moves to the corpus, so the sweep asserts on the case again).
func TestKnownIssuesDocumented(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), sweepBudgetMS*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "known")
	repros, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range repros {
		if _, ok := problemOfFile(r, filepath.Base(path)); !ok {
			t.Errorf("%s names no registered problem", path)
		}
	}
	for _, p := range r.Problems() {
		t.Run(p.Name, func(t *testing.T) {
			for _, e := range checkKnownIssues(r, p, knownIssues, dir) {
				t.Error(e)
			}
		})
	}
}

// TestCheckKnownIssues: the check behind TestKnownIssuesDocumented reports
// an issue without a repro, a repro without an issue and a repro that no
// longer reproduces (a fixed cmmf request from the corpus).
func TestCheckKnownIssues(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), sweepBudgetMS*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := problemOfFile(r, "cmmf-fixed.json")
	if !ok || p.Name != "cmmf" {
		t.Fatal("cmmf is not registered")
	}
	fixed, err := os.ReadFile(filepath.Join("testdata", "cmmf-lp-divisible-counts-1e9-infeasible.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"cmmf-fixed.json", "cmmf-orphan.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), fixed, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := func(map[string]any) bool { return true }
	issues := []knownIssue{
		{problem: "cmmf", what: "fixed since", repro: "cmmf-fixed.json", match: all},
		{problem: "cmmf", what: "no repro", repro: "cmmf-missing.json", match: all},
		{problem: "xsize", what: "another problem's", repro: "xsize-elsewhere.json", match: all},
	}
	got := strings.Join(checkKnownIssues(r, p, issues, dir), "\n")
	for _, want := range []string{`"no repro" is undocumented`, "cmmf-orphan.json belongs to no known issue",
		"cmmf-fixed.json (fixed since) no longer reproduces"} {
		if !strings.Contains(got, want) {
			t.Errorf("check says\n%s\nwant a line with %q", got, want)
		}
	}
	if strings.Contains(got, "xsize") {
		t.Errorf("check of cmmf reports another problem's issue:\n%s", got)
	}
}

// checkKnownIssues returns what is wrong with p's entries of issues and the
// repro files of p in dir (see TestKnownIssuesDocumented).
func checkKnownIssues(r *solver.Runner, p solver.Problem, issues []knownIssue, dir string) []string {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return []string{err.Error()}
	}
	files := map[string]bool{}
	for _, path := range paths {
		if q, ok := problemOfFile(r, filepath.Base(path)); ok && q.Name == p.Name {
			files[filepath.Base(path)] = true
		}
	}
	var errs []string
	claimed := map[string]bool{}
	for _, k := range issues {
		if k.problem != p.Name {
			continue
		}
		claimed[k.repro] = true
		if k.what == "" || k.repro == "" || !files[k.repro] {
			errs = append(errs, fmt.Sprintf("known issue %q is undocumented: it needs a description and a repro in %s (repro %q)",
				k.what, dir, k.repro))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !claimed[name] {
			errs = append(errs, fmt.Sprintf("%s belongs to no known issue of %s: fixed? move it to the corpus", name, p.Name))
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		k := matchKnown(issues, p, body)
		if k == nil || k.repro != name {
			errs = append(errs, name+" is not matched by the known issue that names it")
			continue
		}
		if k.crashes {
			continue
		}
		o := runOne(r, p, mutation{source: name, desc: "known", body: body})
		if o.finding == "" && !strings.HasPrefix(o.class, "known-") {
			errs = append(errs, fmt.Sprintf("%s (%s) no longer reproduces (%s): remove the entry and move the repro to the corpus",
				name, k.what, o.class))
		}
	}
	return errs
}

// checkPicture draws an answer of a problem that has a picture, as
// Accept: image/svg+xml would: "" when it is a well-formed SVG document,
// else what is wrong (an error there would be a 500 on a valid request).
func checkPicture(r *solver.Runner, p solver.Problem, body, wire []byte) string {
	if p.Picture == nil {
		return ""
	}
	svg, err := r.Picture(p.Name, body, wire)
	if err != nil {
		return "picture: " + err.Error()
	}
	if _, err := sighttest.Parse(svg); err != nil {
		return "picture is not well-formed: " + err.Error()
	}
	return ""
}
