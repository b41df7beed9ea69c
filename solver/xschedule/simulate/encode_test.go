package simulate

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestEncodeFields: Result.AppendJSON writes Run, Result, Baselines and
// Utilization field by field (encode.go); a field added to one of them
// must be added there too, or the answer would lack it wherever
// solvertest.Check does not see it set. The lists below are what
// AppendJSON writes.
func TestEncodeFields(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[Run](), []string{"until", "ended", "summary", "apps", "requests", "events", "events_dropped", "utilization", "packing", "masters,omitempty"}},
		{reflect.TypeFor[Result](), []string{"", "imbalance", "baselines"}},
		{reflect.TypeFor[Baselines](), []string{"drf", "yarn_fair,omitempty", "yarn_capacity,omitempty"}},
		{reflect.TypeFor[Utilization](), []string{"points", "truncated"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Tag.Get("json"))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s has fields %s; encode.go writes %s", c.typ.Name(), strings.Join(got, " "), strings.Join(c.want, " "))
		}
	}
}
