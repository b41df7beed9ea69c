package cmmf

import "fmt"

// Predicates: "attribute op value" on a machine's attributes, checked once
// (checkPredicate) and evaluated per machine group (holds).

func checkPredicate(p Predicate) string {
	switch p.Op {
	case "in":
		if _, ok := p.Value.([]any); !ok {
			return "op in needs an array value"
		}
	case "lt", "le", "gt", "ge":
		if _, ok := p.Value.(float64); !ok {
			return fmt.Sprintf("op %s needs a number value", p.Op)
		}
	case "eq", "ne":
		switch p.Value.(type) {
		case string, float64, bool:
		default:
			return fmt.Sprintf("op %s needs a string, number or boolean value", p.Op)
		}
	default:
		return fmt.Sprintf("unknown op %q", p.Op)
	}
	return ""
}

// holds evaluates the predicate on a machine's attributes. A missing
// attribute satisfies only "ne"; order comparisons need numbers on both
// sides; equality compares numbers numerically and strings and booleans
// exactly.
func (p Predicate) holds(attrs map[string]any) bool {
	v, ok := attrs[p.Attr]
	return p.holdsValue(v, ok)
}

// holdsValue evaluates the predicate on its attribute's value v (ok:
// the machine has the attribute).
func (p Predicate) holdsValue(v any, ok bool) bool {
	if !ok {
		return p.Op == "ne"
	}
	switch p.Op {
	case "eq":
		return scalarEqual(v, p.Value)
	case "ne":
		return !scalarEqual(v, p.Value)
	case "in":
		list, _ := p.Value.([]any)
		for _, x := range list {
			if scalarEqual(v, x) {
				return true
			}
		}
		return false
	}
	a, ok1 := v.(float64)
	b, ok2 := p.Value.(float64)
	if !ok1 || !ok2 {
		return false
	}
	switch p.Op {
	case "lt":
		return a < b
	case "le":
		return a <= b
	case "gt":
		return a > b
	case "ge":
		return a >= b
	}
	return false
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}
