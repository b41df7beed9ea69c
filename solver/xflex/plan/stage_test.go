package plan

import (
	"slices"
	"testing"

	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// TestSetBaselines: the plan's baselines reach a request type that has a
// baselines field (xschedule/simulate's once it names its baselines), and
// a type without one is left alone.
func TestSetBaselines(t *testing.T) {
	var with struct {
		Apps      []string `json:"apps"`
		Baselines []string `json:"baselines,omitempty"`
	}
	setBaselines(&with, []string{"drf", "yarn_fair"})
	if !slices.Equal(with.Baselines, []string{"drf", "yarn_fair"}) {
		t.Fatalf("baselines %v not set", with.Baselines)
	}
	var without simulate.Request
	setBaselines(&without, []string{"drf"}) // no field: nothing to set, no panic
	setBaselines(&with, nil)
	if with.Baselines == nil {
		t.Fatal("an empty list cleared the field")
	}
}
