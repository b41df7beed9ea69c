package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

// BaseVariant is the name of a scenario's unpatched input in the
// comparison table.
const BaseVariant = "base"

// Variant is one named what-if applied to the scenario's base input: a
// JSON Merge Patch (RFC 7396, an object), e.g. {"nodes": [...]} to
// replace the node list or {"apps": {"B": {"mix": 2}}} to change one field
// of a keyed object; or a JSON Patch (RFC 6902, an array of operations),
// e.g. [{"op": "add", "path": "/nodes/-", "value": {...}}] to append a
// node without repeating the others. A merge patch that is an array would
// replace the whole input with an array, which no request is, so the
// patch's type tells the two apart.
type Variant struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Patch       json.RawMessage `json:"patch"`
}

// applyPatch applies an RFC 7396 merge patch (github.com/evanphx/json-patch
// implements it exactly; TestMergePatchRFC7396 checks the RFC's appendix).
// The library's time and memory grow with the square of the patch's
// depth (issue 15: a 9,000-level patch took 3.3 s and over 0.5 GB), so
// callers refuse patches deeper than patchDepthLimit first (tooDeep).
func applyPatch(base []byte, patch json.RawMessage) ([]byte, error) {
	return jsonpatch.MergePatch(base, patch)
}

// isJSONPatch reports whether patch is a JSON Patch (RFC 6902): an
// array, where a merge patch is an object.
func isJSONPatch(patch json.RawMessage) bool {
	t := bytes.TrimLeft(patch, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// applyJSONPatch applies an RFC 6902 patch with github.com/evanphx/json-patch
// (the module already used for merge patches). Negative array indices,
// the library's extension, are refused as the RFC does, and what copy
// operations may duplicate is capped at copyLimit bytes, so a few copy
// operations that double a subtree cannot grow the input past what a
// job may store (each copy would otherwise double it).
func applyJSONPatch(base []byte, patch json.RawMessage, copyLimit int) ([]byte, error) {
	ops, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	opts := jsonpatch.NewApplyOptions()
	opts.SupportNegativeIndices = false
	opts.AccumulatedCopySizeLimit = int64(copyLimit)
	return ops.ApplyWithOptions(base, opts)
}

// jsonPatchTooDeep is tooDeep for a JSON Patch: the pointer, relative to
// the patch, of an operation's value that would nest deeper than limit
// levels where its path puts it (a value of depth d at a path of k
// segments makes the document at least k+d deep).
func jsonPatchTooDeep(patch json.RawMessage, limit int) (string, bool) {
	var ops []struct {
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(patch, &ops) != nil {
		return "", false // applyJSONPatch reports it
	}
	for i, op := range ops {
		if len(op.Value) == 0 {
			continue
		}
		k := strings.Count(op.Path, "/")
		if ptr, deep := tooDeep(op.Value, max(limit-k, 0)); deep {
			return solver.Ptr(i, "value") + ptr, true
		}
	}
	return "", false
}

// maxPatchDepth caps a merge patch's depth where the request schema does
// not bound it (schemas.Set.MaxDepth is Unbounded). Among the shipped
// request schemas only cmmf's is, because its predicates' values are
// bounded by if/then, which MaxDepth does not read; its deepest valid
// document is 6 levels (users, a user, require, a predicate, an "in"
// value list). TestPatchDepthLimits checks every shipped schema.
const maxPatchDepth = 32

// patchDepthLimit is the deepest merge patch that can yield a valid
// request for the schema. Every object and array of a patch is in the
// patched document at the same path (RFC 7396 merges objects into
// objects, or into an empty object, and copies arrays whole; only null
// members are not copied), so the document is at least as deep as the
// patch, and a deeper patch than the schema allows can only fail.
func patchDepthLimit(set *schemas.Set, schema string) int {
	d, ok := set.MaxDepth(schema)
	if !ok {
		return maxPatchDepth
	}
	return min(d, maxPatchDepth)
}

// tooDeep returns the JSON pointer, relative to the patch, of the first
// object or array nested deeper than limit levels (the patch itself is
// level 1), and false when there is none. A patch that does not decode
// is left to applyPatch to report.
func tooDeep(patch json.RawMessage, limit int) (string, bool) {
	doc, err := solver.DecodeAny(patch)
	if err != nil {
		return "", false
	}
	return deeper(doc, "", limit)
}

// deeper walks v, which is at depth 1 if it is a container, down to limit
// levels.
func deeper(v any, ptr string, limit int) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		if limit == 0 {
			return ptr, true
		}
		for _, k := range sortedKeys(x) {
			if p, ok := deeper(x[k], ptr+solver.Ptr(k), limit-1); ok {
				return p, true
			}
		}
	case []any:
		if limit == 0 {
			return ptr, true
		}
		for i, e := range x {
			if p, ok := deeper(e, ptr+solver.Ptr(i), limit-1); ok {
				return p, true
			}
		}
	}
	return "", false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Comparison is a scenario's result: one row per variant (the base first),
// side by side.
type Comparison struct {
	Problem string `json:"problem"`
	Base    string `json:"base"`
	// Columns lists the figures every row may carry, in display order: the
	// meta figures, then the numeric fields found in the results.
	Columns []string        `json:"columns"`
	Rows    []ComparisonRow `json:"rows"`
}

// ComparisonRow holds one variant's key figures.
type ComparisonRow struct {
	Variant     string   `json:"variant"`
	Description string   `json:"description,omitempty"`
	State       State    `json:"state"`
	Status      string   `json:"status,omitempty"`
	Objective   *float64 `json:"objective,omitempty"`
	Bound       *float64 `json:"bound,omitempty"`
	Gap         *float64 `json:"gap,omitempty"`
	// Figures are the numeric fields of the result at depth one or two
	// outside arrays (e.g. "lambda", "summary.makespan"), by dotted name.
	Figures map[string]float64 `json:"figures,omitempty"`
	// Delta is each figure (and the objective) minus the base's.
	Delta map[string]float64 `json:"delta,omitempty"`
	// Changed lists what differs from the base's result (allocations,
	// assignments, ...), as JSON pointers into the result.
	Changed *Changes                `json:"changed,omitempty"`
	Error   *httpapi.ProblemDetails `json:"error,omitempty"`
}

// Changes summarises the differences between two results.
type Changes struct {
	Count int      `json:"count"`
	Paths []string `json:"paths"`
	// Truncated is set when Paths holds only the first maxChangedPaths.
	Truncated bool `json:"truncated,omitempty"`
}

// maxChangedPaths bounds the pointers listed per variant so a comparison of
// large instances stays readable; Count is always complete.
const maxChangedPaths = 100

// keyFields identify the elements of an array of objects, so allocations
// are matched by name rather than position when lists are reordered.
var keyFields = []string{"name", "id", "job", "container", "app", "user", "node", "task"}

// compare builds the comparison of a finished scenario from its children
// (base first) and their stored responses; descs maps variant names to
// their descriptions.
// metaColumns are the leading columns of every comparison (changedColumn
// is the last); result figures with any of these names are prefixed
// "result.".
func metaColumns() []string { return []string{"state", "status", "objective", "bound", "gap"} }

const changedColumn = "changed"

func compare(problem string, descs map[string]string, kids []record, results [][]byte) (*Comparison, error) {
	c := &Comparison{Problem: problem, Base: BaseVariant}
	docs := make([]any, len(kids))
	figs := map[string]bool{}
	for i, k := range kids {
		row := ComparisonRow{Variant: k.Variant, State: k.State, Error: k.Error, Description: descs[k.Variant]}
		if len(results[i]) > 0 {
			var resp struct {
				Result json.RawMessage `json:"result"`
				Meta   solver.Meta     `json:"meta"`
			}
			if err := json.Unmarshal(results[i], &resp); err != nil {
				return nil, fmt.Errorf("decode result of variant %s: %w", k.Variant, err)
			}
			row.Status = string(resp.Meta.Status)
			row.Objective, row.Bound, row.Gap = resp.Meta.Objective, resp.Meta.Bound, resp.Meta.Gap
			doc, err := solver.DecodeAny(resp.Result)
			if err != nil {
				return nil, fmt.Errorf("decode result of variant %s: %w", k.Variant, err)
			}
			docs[i] = doc
			row.Figures = figures(doc)
			for _, m := range append(metaColumns(), changedColumn) {
				if v, ok := row.Figures[m]; ok {
					// e.g. a result's own "gap" next to meta.gap
					delete(row.Figures, m)
					row.Figures["result."+m] = v
				}
			}
			for f := range row.Figures {
				figs[f] = true
			}
		}
		c.Rows = append(c.Rows, row)
	}
	c.Columns = metaColumns()
	names := make([]string, 0, len(figs))
	for f := range figs {
		names = append(names, f)
	}
	sort.Strings(names)
	c.Columns = append(c.Columns, names...)
	c.Columns = append(c.Columns, changedColumn)
	if len(c.Rows) == 0 || docs[0] == nil {
		return c, nil
	}
	base := c.Rows[0]
	for i := 1; i < len(c.Rows); i++ {
		row := &c.Rows[i]
		if docs[i] == nil {
			continue
		}
		row.Delta = map[string]float64{}
		if row.Objective != nil && base.Objective != nil {
			row.Delta["objective"] = *row.Objective - *base.Objective
		}
		for f, v := range row.Figures {
			if b, ok := base.Figures[f]; ok {
				row.Delta[f] = v - b
			}
		}
		var paths []string
		diff("", docs[0], docs[i], &paths)
		ch := &Changes{Count: len(paths), Paths: paths}
		if len(paths) > maxChangedPaths {
			ch.Paths, ch.Truncated = paths[:maxChangedPaths], true
		}
		if ch.Paths == nil {
			ch.Paths = []string{}
		}
		row.Changed = ch
	}
	return c, nil
}

// timingField is xflex's name for wall-clock measurements; a result field
// of that name is timing, not solution, and is left out of figures and
// changes (it differs on every run).
const timingField = "elapsed_ms"

// figures collects the finite numeric leaves of a result at depth one
// ("lambda") and two ("summary.makespan"), outside arrays.
func figures(doc any) map[string]float64 {
	out := map[string]float64{}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	for k, v := range top {
		if k == timingField {
			continue
		}
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
				out[k] = f
			}
		case map[string]any:
			for k2, v2 := range x {
				if n, ok := v2.(json.Number); ok && k2 != timingField {
					if f, err := n.Float64(); err == nil && !math.IsInf(f, 0) {
						out[k+"."+k2] = f
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// diff appends the JSON pointers (RFC 6901) at which a and b differ: leaves
// with different values and members present on one side only. Arrays of
// objects that share a unique identifying field (see keyFields) are matched
// by it; other arrays by index. Output is sorted within each object and
// deterministic.
func diff(ptr string, a, b any, out *[]string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, ptr)
			return
		}
		for _, k := range unionKeys(x, y) {
			if k == timingField {
				continue
			}
			va, oka := x[k]
			vb, okb := y[k]
			p := ptr + solver.Ptr(k)
			if !oka || !okb {
				*out = append(*out, p)
				continue
			}
			diff(p, va, vb, out)
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			*out = append(*out, ptr)
			return
		}
		if key := commonKey(x, y); key != "" {
			ma, mb := index(x, key), index(y, key)
			for _, k := range unionKeys(ma, mb) {
				va, oka := ma[k]
				vb, okb := mb[k]
				p := ptr + solver.Ptr(k)
				if !oka || !okb {
					*out = append(*out, p)
					continue
				}
				diff(p, va, vb, out)
			}
			return
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			p := ptr + solver.Ptr(i)
			if i >= len(x) || i >= len(y) {
				*out = append(*out, p)
				continue
			}
			diff(p, x[i], y[i], out)
		}
	default:
		if !leafEqual(a, b) {
			*out = append(*out, ptr)
		}
	}
}

// leafEqual compares scalars; numbers by value (1 and 1.0 are equal).
func leafEqual(a, b any) bool {
	na, oka := a.(json.Number)
	nb, okb := b.(json.Number)
	if oka && okb {
		fa, ea := na.Float64()
		fb, eb := nb.Float64()
		if ea == nil && eb == nil {
			return fa == fb
		}
		return na == nb
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// commonKey returns the first of keyFields that every element of both
// arrays has as a string or number, with unique values in each array; ""
// if none.
func commonKey(a, b []any) string {
	if len(a) == 0 && len(b) == 0 {
		return ""
	}
	for _, k := range keyFields {
		if uniqueKey(a, k) && uniqueKey(b, k) {
			return k
		}
	}
	return ""
}

func uniqueKey(arr []any, key string) bool {
	seen := map[string]bool{}
	for _, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		v, ok := keyString(m[key])
		if !ok || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

func keyString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

func index(arr []any, key string) map[string]any {
	m := make(map[string]any, len(arr))
	for _, e := range arr {
		k, _ := keyString(e.(map[string]any)[key])
		m[k] = e
	}
	return m
}

// Table renders a comparison as aligned text, one column per variant, for
// `xflex jobs result --table`.
func (c *Comparison) Table() string {
	var b strings.Builder
	header := []string{"figure"}
	for _, r := range c.Rows {
		header = append(header, r.Variant)
	}
	lines := [][]string{header}
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.6g", *p)
	}
	for _, col := range c.Columns {
		line := []string{col}
		for _, r := range c.Rows {
			var cell string
			switch col {
			case "state":
				cell = string(r.State)
			case "status":
				cell = r.Status
			case "objective":
				cell = num(r.Objective)
			case "bound":
				cell = num(r.Bound)
			case "gap":
				cell = num(r.Gap)
			case changedColumn:
				cell = "-"
				if r.Changed != nil {
					cell = fmt.Sprint(r.Changed.Count)
				}
			default:
				cell = "-"
				if v, ok := r.Figures[col]; ok {
					cell = fmt.Sprintf("%.6g", v)
				}
			}
			if cell == "" {
				cell = "-"
			}
			line = append(line, cell)
		}
		lines = append(lines, line)
	}
	width := make([]int, len(header))
	for _, l := range lines {
		for i, cell := range l {
			width[i] = max(width[i], len(cell))
		}
	}
	for _, l := range lines {
		for i, cell := range l {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%-*s", width[i], cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// unionKeys lists the keys of a and b together, sorted, so diffs walk
// both maps in a deterministic order.
func unionKeys[V any](a, b map[string]V) []string {
	out := make([]string, 0, len(a)+len(b))
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
