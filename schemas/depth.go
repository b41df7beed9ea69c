package schemas

import (
	"math"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Unbounded is MaxDepth's answer for a schema that accepts documents of
// any depth.
const Unbounded = math.MaxInt

// MaxDepth is the deepest nesting of objects and arrays in any document
// the named schema accepts, counting the top-level container as 1 (a
// scalar is 0); Unbounded when a part of the schema accepts any JSON or
// refers to itself. It is an upper bound read off the keywords that bound
// depth (type, properties, additionalProperties, items, prefixItems,
// const, enum, $ref and the combinators), so it may exceed the deepest
// document that validates, never fall short of it. Callers use it to
// refuse input that cannot validate before doing work that grows with
// depth (RFC 7396 merge patching). ok is false for an unknown name.
func (s *Set) MaxDepth(name string) (depth int, ok bool) {
	sch, ok := s.compiled[name]
	if !ok {
		return 0, false
	}
	return schemaDepth(sch, map[*jsonschema.Schema]bool{}), true
}

// schemaDepth bounds the depth of the documents sch accepts. visiting
// holds the schemas on the current path: meeting one again is recursion,
// which allows any depth.
func schemaDepth(sch *jsonschema.Schema, visiting map[*jsonschema.Schema]bool) int {
	if sch.Always != nil {
		if *sch.Always {
			return Unbounded
		}
		return 0
	}
	if visiting[sch] {
		return Unbounded
	}
	visiting[sch] = true
	defer delete(visiting, sch)
	d := ownDepth(sch, visiting)
	// Every applicator below must hold too, so each one can only lower
	// the bound; anyOf and oneOf allow the deepest of their branches.
	for _, ref := range []*jsonschema.Schema{sch.Ref, sch.RecursiveRef, sch.DynamicRef} {
		if ref != nil {
			d = min(d, schemaDepth(ref, visiting))
		}
	}
	for _, sub := range sch.AllOf {
		d = min(d, schemaDepth(sub, visiting))
	}
	for _, alts := range [][]*jsonschema.Schema{sch.AnyOf, sch.OneOf} {
		if len(alts) > 0 {
			d = min(d, maxDepth(alts, visiting))
		}
	}
	return d
}

// ownDepth bounds depth by the schema's own keywords: const and enum fix
// the values; otherwise a container is one level above the deepest child
// its properties and items allow, and an absent child schema allows any.
func ownDepth(sch *jsonschema.Schema, visiting map[*jsonschema.Schema]bool) int {
	if len(sch.Constant) > 0 {
		return valueDepth(sch.Constant[0])
	}
	if sch.Enum != nil {
		d := 0
		for _, v := range sch.Enum {
			d = max(d, valueDepth(v))
		}
		return d
	}
	d := 0
	if allows(sch, "object") && sch.MaxProperties != 0 {
		d = max(d, below(objectChildren(sch, visiting)))
	}
	if allows(sch, "array") && sch.MaxItems != 0 {
		d = max(d, below(arrayChildren(sch, visiting)))
	}
	return d
}

// below is the depth of a container whose children reach child.
func below(child int) int {
	if child == Unbounded {
		return Unbounded
	}
	return child + 1
}

func allows(sch *jsonschema.Schema, typ string) bool {
	if len(sch.Types) == 0 {
		return true
	}
	for _, t := range sch.Types {
		if t == typ {
			return true
		}
	}
	return false
}

// objectChildren bounds the depth of an object's member values.
func objectChildren(sch *jsonschema.Schema, visiting map[*jsonschema.Schema]bool) int {
	d := 0
	for _, p := range sch.Properties {
		d = max(d, schemaDepth(p, visiting))
	}
	for _, p := range sch.PatternProperties {
		d = max(d, schemaDepth(p, visiting))
	}
	switch ap := sch.AdditionalProperties.(type) {
	case nil:
		return Unbounded
	case bool:
		if ap {
			return Unbounded
		}
	case *jsonschema.Schema:
		d = max(d, schemaDepth(ap, visiting))
	}
	return d
}

// arrayChildren bounds the depth of an array's items (draft 2020-12's
// prefixItems and items, and the older items forms).
func arrayChildren(sch *jsonschema.Schema, visiting map[*jsonschema.Schema]bool) int {
	d := maxDepth(sch.PrefixItems, visiting)
	switch it := sch.Items.(type) {
	case *jsonschema.Schema:
		return max(d, schemaDepth(it, visiting))
	case []*jsonschema.Schema:
		d = max(d, maxDepth(it, visiting))
	}
	if sch.Items2020 != nil {
		return max(d, schemaDepth(sch.Items2020, visiting))
	}
	if sch.MaxItems >= 0 && sch.MaxItems <= len(sch.PrefixItems) {
		return d // no item beyond the prefix
	}
	return Unbounded
}

func maxDepth(schs []*jsonschema.Schema, visiting map[*jsonschema.Schema]bool) int {
	d := 0
	for _, s := range schs {
		d = max(d, schemaDepth(s, visiting))
	}
	return d
}

// valueDepth is the nesting depth of a decoded JSON value.
func valueDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			d = max(d, valueDepth(c))
		}
		return d + 1
	case []any:
		for _, c := range x {
			d = max(d, valueDepth(c))
		}
		return d + 1
	}
	return 0
}
