package robust_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// stressNumbers are the values every number field is tried at (those its
// schema admits): zero, the smallest subnormal, tiny and huge magnitudes of
// both signs, the largest float64, and 1. 3e10 is the scale at which CBC
// aborted the process on Flex's tardy MILP (coefficient spread 1.2e11,
// inside every model-level limit then; see lp.MaxCoinMIPSpread). The
// schema's own bounds are added per field.
var stressNumbers = []float64{
	0, 5e-324, 1e-300, 1e-100, 1e-9, 1, 1e9, 3e10, 1e15,
	-5e-324, -1e-300, -1e-9, -1, -1e9, -1e15,
	math.MaxFloat64, -math.MaxFloat64,
}

// stressIntegers are the values every integer field is tried at: 0, 1 and
// 2^53-1 (the largest integer a float64 holds exactly), plus its bounds.
var stressIntegers = []float64{0, 1, 9007199254740991, -1, -9007199254740991}

// leaf is one numeric value in a request: where it is and what its schema
// admits there.
type leaf struct {
	path []any
	spec numSpec
}

func (l leaf) pointer() string {
	var b strings.Builder
	for _, p := range l.path {
		fmt.Fprintf(&b, "/%v", p)
	}
	return b.String()
}

// values lists the stress values the leaf's schema admits, in a fixed
// order: the schema's bounds first, then the stress list.
func (sp numSpec) values() []float64 {
	var cand []float64
	if sp.lo > -math.MaxFloat64 {
		if sp.loEx {
			if sp.integer {
				cand = append(cand, math.Floor(sp.lo)+1)
			} else {
				cand = append(cand, math.Nextafter(sp.lo, math.Inf(1)))
			}
		} else {
			cand = append(cand, sp.lo)
		}
	}
	if sp.hi < math.MaxFloat64 {
		if sp.hiEx {
			if sp.integer {
				cand = append(cand, math.Ceil(sp.hi)-1)
			} else {
				cand = append(cand, math.Nextafter(sp.hi, math.Inf(-1)))
			}
		} else {
			cand = append(cand, sp.hi)
		}
	}
	if sp.integer {
		cand = append(cand, stressIntegers...)
	} else {
		cand = append(cand, stressNumbers...)
	}
	var out []float64
	seen := map[float64]bool{}
	for _, v := range cand {
		if sp.admits(v) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// numberText is v as a JSON number: integers without exponent when they
// fit, floats in the shortest round-tripping form.
func numberText(v float64, integer bool) json.Number {
	if integer && math.Abs(v) <= 9007199254740991 {
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// leaves lists every numeric leaf of doc the schema types as a number, in
// document order (object keys sorted). budget_ms is left out: the sweep
// sets it.
func leaves(w *schemaWalker, file string, doc any) []leaf {
	var out []leaf
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if len(path) == 0 && k == "budget_ms" {
					continue
				}
				walk(x[k], append(append([]any(nil), path...), k))
			}
		case []any:
			for i, e := range x {
				walk(e, append(append([]any(nil), path...), i))
			}
		case json.Number:
			if sp, ok := w.spec(file, path); ok {
				out = append(out, leaf{path: path, spec: sp})
			}
		}
	}
	walk(doc, nil)
	return out
}

// set replaces the value at path in doc (which it modifies).
func set(doc any, path []any, v any) {
	cur := doc
	for i, p := range path {
		last := i == len(path)-1
		switch k := p.(type) {
		case string:
			m := cur.(map[string]any)
			if last {
				m[k] = v
				return
			}
			cur = m[k]
		case int:
			a := cur.([]any)
			if last {
				a[k] = v
				return
			}
			cur = a[k]
		}
	}
}

// deepCopy copies a decoded JSON document.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// mutation is one mutated request body and what was done to it.
type mutation struct {
	source string // file the base request came from
	desc   string
	body   []byte
}

// Numbers of random mutations per base request: every kind set to its own
// random stress value (kinds scaled together), and every leaf set to an
// independent one.
const (
	mixedKinds  = 12
	mixedLeaves = 6
)

// mutations builds every mutation of one base request (already carrying
// the sweep's budget), deterministically from seed: for each kind of
// number (its schema path, e.g. /machines/*/capacity/*) and each stress
// value it admits, one randomly chosen leaf of that kind set to the value
// and then every leaf of the kind; then mixed mutations; then budget_ms 1.
func mutations(w *schemaWalker, file, source string, base map[string]any, seed uint64) []mutation {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ls := leaves(w, file, base)
	var kinds []string
	byKind := map[string][]leaf{}
	for _, l := range ls {
		if _, ok := byKind[l.spec.kind]; !ok {
			kinds = append(kinds, l.spec.kind)
		}
		byKind[l.spec.kind] = append(byKind[l.spec.kind], l)
	}
	var out []mutation
	emit := func(desc string, doc any) {
		b, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		out = append(out, mutation{source: source, desc: desc, body: b})
	}
	for _, k := range kinds {
		group := byKind[k]
		rep := group[rng.IntN(len(group))]
		for _, v := range rep.spec.values() {
			doc := deepCopy(base)
			set(doc, rep.path, numberText(v, rep.spec.integer))
			emit(fmt.Sprintf("%s=%g", rep.pointer(), v), doc)
			if len(group) > 1 {
				doc := deepCopy(base)
				for _, l := range group {
					set(doc, l.path, numberText(v, l.spec.integer))
				}
				emit(fmt.Sprintf("all %s=%g", k, v), doc)
			}
		}
	}
	if len(kinds) > 1 {
		for i := 0; i < mixedKinds; i++ {
			doc := deepCopy(base)
			var parts []string
			for _, k := range kinds {
				vals := byKind[k][0].spec.values()
				v := vals[rng.IntN(len(vals))]
				for _, l := range byKind[k] {
					set(doc, l.path, numberText(v, l.spec.integer))
				}
				parts = append(parts, fmt.Sprintf("%s=%g", k, v))
			}
			emit("kinds "+strings.Join(parts, " "), doc)
		}
	}
	if len(ls) > 1 {
		for i := 0; i < mixedLeaves; i++ {
			doc := deepCopy(base)
			for _, l := range ls {
				vals := l.spec.values()
				set(doc, l.path, numberText(vals[rng.IntN(len(vals))], l.spec.integer))
			}
			emit(fmt.Sprintf("leaves #%d", i), doc)
		}
	}
	doc := deepCopy(base).(map[string]any)
	doc["budget_ms"] = json.Number("1")
	emit("budget_ms=1", doc)
	return out
}
