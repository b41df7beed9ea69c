package cmmf

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
)

// TestValueKeysSeparateValues: a value's key (appendValueKey, which
// groups machines and predicate lists) is equal for two values exactly
// when their type-tagged shortest float formatting is, the key it had
// before integers got a key of digits: -0 and 0, 2^53 and its neighbours,
// integers and fractions, numbers and strings stay apart.
func TestValueKeysSeparateValues(t *testing.T) {
	vals := []any{0.0, math.Copysign(0, -1), 1.0, -1.0, 1.5, 100.0, 1e6, 1e21, 1e300, -1e300, 1 << 53, 1<<53 - 1, 1<<53 + 2,
		-(1 << 53), 0.1, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1), "1", "i1", "n1", true, false, []any{1.0, "a"}, []any{"1", "a"}}
	formatted := func(v any) string {
		if f, ok := v.(float64); ok {
			return "n" + strconv.FormatFloat(f, 'g', -1, 64)
		}
		return string(appendValueKey(nil, v))
	}
	for i, a := range vals {
		for j, b := range vals {
			same := string(appendValueKey(nil, a)) == string(appendValueKey(nil, b))
			if want := formatted(a) == formatted(b); same != want || (i == j) != same {
				t.Errorf("%v vs %v: keys equal %v, want %v", a, b, same, want)
			}
		}
	}
}

// TestGroupsAndNonFiniteAttributes: machines with equal attributes share a
// group whatever the order their maps hold them in, a change of names
// or values starts a new group, and attributes that are not finite (from
// Go callers) are reported per machine, sorted, after its name check.
func TestGroupsAndNonFiniteAttributes(t *testing.T) {
	req := &Request{
		Machines: []Machine{
			{Name: "a", Attributes: map[string]any{"x": 1.0, "y": "s"}},
			{Name: "b", Attributes: map[string]any{"y": "s", "x": 1.0}},
			{Name: "c", Attributes: map[string]any{"x": math.Copysign(0, -1)}},
			{Name: "d", Attributes: map[string]any{"x": 0.0}},
			{Name: "e"},
			{Name: "f", Attributes: map[string]any{"x": 1.0, "y": "s", "z": true}},
			{Name: "g", Attributes: map[string]any{"x": 1.0, "y": "s"}},
		},
		Users: []User{{Name: "u"}},
	}
	b := newBuilder(req)
	b.groupUnits()
	b.indexUnits()
	if want := []int{0, 0, 1, 2, 3, 4, 0}; !reflect.DeepEqual(b.groupOf, want) {
		t.Errorf("groups %v, want %v", b.groupOf, want)
	}
	req.Machines = append(req.Machines,
		Machine{Name: "h", Attributes: map[string]any{"z": math.Inf(1), "a": math.NaN(), "m": 2.0}},
		Machine{Name: "a", Attributes: map[string]any{"q": math.NaN()}},
		Machine{Name: "i", Attributes: map[string]any{"b": math.Inf(-1)}})
	_, err := Build(req)
	var xe *solver.Error
	if !errors.As(err, &xe) {
		t.Fatalf("Build: %v, want violations", err)
	}
	var got []string
	for _, v := range xe.Violations {
		got = append(got, v.Pointer+" "+v.Message)
	}
	want := []string{
		"/machines/7/attributes/a attribute must be finite",
		"/machines/7/attributes/z attribute must be finite",
		`/machines/8/name duplicate name "a" (also at /machines/0)`,
		"/machines/9/attributes/b attribute must be finite",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations\n%q\nwant\n%q", got, want)
	}
}
