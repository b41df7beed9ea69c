package robust_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/xflex/xflex/schemas"
)

// numSpec is what the request schema says about one numeric leaf: its type
// and bounds. A leaf the walker cannot attribute to a numeric schema is
// left out of the sweep.
type numSpec struct {
	integer      bool
	lo, hi       float64 // bounds, ±MaxFloat64 when the schema gives none
	loEx, hiEx   bool    // exclusive bounds
	kind         string  // schema path with array indices and map keys as "*"
	boundedBelow bool
}

// schemaWalker resolves a document path to the request schema's numeric
// constraints. It understands the subset of draft 2020-12 the xflex
// request schemas use: $ref (local and to sibling files), properties,
// additionalProperties, items and the applicators allOf/anyOf/oneOf plus
// if/then (whose numeric branches are merged: the widest type wins and
// each bound is the tightest any numeric branch states).
type schemaWalker struct {
	set  *schemas.Set
	docs map[string]any
}

func newSchemaWalker(set *schemas.Set) *schemaWalker {
	return &schemaWalker{set: set, docs: map[string]any{}}
}

func (w *schemaWalker) doc(file string) any {
	if d, ok := w.docs[file]; ok {
		return d
	}
	raw, ok := w.set.Raw(file)
	if !ok {
		panic("no schema " + file)
	}
	var d any
	if err := json.Unmarshal(raw, &d); err != nil {
		panic(fmt.Sprintf("schema %s: %v", file, err))
	}
	w.docs[file] = d
	return d
}

// node is a schema object together with the file it lives in (for
// resolving local $refs).
type node struct {
	file string
	s    map[string]any
}

// resolve follows $ref chains and returns the node plus every subschema
// that applies alongside it (allOf/anyOf/oneOf branches, then-branches).
func (w *schemaWalker) expand(n node, depth int) []node {
	if depth > 32 || n.s == nil {
		return nil
	}
	out := []node{n}
	if ref, ok := n.s["$ref"].(string); ok {
		file, frag, _ := strings.Cut(ref, "#")
		if file == "" {
			file = n.file
		}
		var cur any = w.doc(file)
		for _, seg := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if seg == "" {
				continue
			}
			cur = cur.(map[string]any)[seg]
		}
		if m, ok := cur.(map[string]any); ok {
			out = append(out, w.expand(node{file, m}, depth+1)...)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if arr, ok := n.s[key].([]any); ok {
			for _, b := range arr {
				if m, ok := b.(map[string]any); ok {
					out = append(out, w.expand(node{n.file, m}, depth+1)...)
				}
			}
		}
	}
	if m, ok := n.s["then"].(map[string]any); ok {
		out = append(out, w.expand(node{n.file, m}, depth+1)...)
	}
	return out
}

// step descends one document segment: seg is a property name or an array
// index (isIndex). It reports the children and whether the step went
// through additionalProperties or items (a "*" in the kind).
func (w *schemaWalker) step(ns []node, seg string, isIndex bool) ([]node, bool) {
	var out []node
	wild := isIndex
	for _, n := range ns {
		if isIndex {
			if m, ok := n.s["items"].(map[string]any); ok {
				out = append(out, node{n.file, m})
			}
			continue
		}
		if props, ok := n.s["properties"].(map[string]any); ok {
			if m, ok := props[seg].(map[string]any); ok {
				out = append(out, node{n.file, m})
				continue
			}
		}
		if m, ok := n.s["additionalProperties"].(map[string]any); ok {
			out = append(out, node{n.file, m})
			wild = true
		}
	}
	return out, wild
}

// spec returns the numeric constraints of the leaf at path (segments with
// ints for array indices) in the request schema file, or false when no
// numeric schema applies there.
func (w *schemaWalker) spec(file string, path []any) (numSpec, bool) {
	ns := w.expandAll([]node{{file, w.doc(file).(map[string]any)}})
	var kind strings.Builder
	for _, p := range path {
		var wild bool
		switch v := p.(type) {
		case int:
			ns, wild = w.step(ns, "", true)
		case string:
			ns, wild = w.step(ns, v, false)
		}
		if wild {
			kind.WriteString("/*")
		} else {
			fmt.Fprintf(&kind, "/%v", p)
		}
		ns = w.expandAll(ns)
		if len(ns) == 0 {
			return numSpec{}, false
		}
	}
	sp := numSpec{lo: -math.MaxFloat64, hi: math.MaxFloat64, integer: true, kind: kind.String()}
	numeric := false
	for _, n := range ns {
		switch n.s["type"] {
		case "number":
			numeric = true
			sp.integer = false
		case "integer":
			numeric = true
		}
		if v, ok := n.s["minimum"].(float64); ok && v >= sp.lo {
			sp.lo, sp.loEx, sp.boundedBelow = v, false, true
		}
		if v, ok := n.s["exclusiveMinimum"].(float64); ok && v >= sp.lo {
			sp.lo, sp.loEx, sp.boundedBelow = v, true, true
		}
		if v, ok := n.s["maximum"].(float64); ok && v <= sp.hi {
			sp.hi, sp.hiEx = v, false
		}
		if v, ok := n.s["exclusiveMaximum"].(float64); ok && v <= sp.hi {
			sp.hi, sp.hiEx = v, true
		}
	}
	return sp, numeric
}

func (w *schemaWalker) expandAll(ns []node) []node {
	var out []node
	for _, n := range ns {
		out = append(out, w.expand(n, 0)...)
	}
	return out
}

// admits reports whether v satisfies the spec's bounds and type.
func (sp numSpec) admits(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if sp.integer && v != math.Trunc(v) {
		return false
	}
	if v < sp.lo || (sp.loEx && v == sp.lo) || v > sp.hi || (sp.hiEx && v == sp.hi) {
		return false
	}
	return true
}
