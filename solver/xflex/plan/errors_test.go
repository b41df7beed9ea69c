package plan_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
	"github.com/xflex/xflex/solver/xflex/plan"
)

// base is a small valid plan; each bad case replaces parts of it.
const base = `"resources": ["cpu", "mem"],
  "cluster": {"node_types": [{"name": "n", "capacity": [8, 8], "count": 2}]}`

// TestBadInput: each bad plan gets a 422 of the right kind whose first
// violation points at the cause and names the stage that refused it.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name, body string
		kind       solver.Kind
		ptr, stage string
	}{
		{"forecast fits no usable node", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [9, 1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 10}}`,
			solver.KindInvalid, "/apps/0/forecast/0/size", "xsize"},
		{"no usable node", `{` + base + `, "apps": [{"name": "a", "require": {"racks": ["nowhere"]}, "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 10}}`,
			solver.KindInvalid, "/apps/0/require", "xselect"},
		{"trace names an unknown application", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}],
			"trace": {"requests": [{"id": "r", "app": "zz", "count": 1, "size": [1, 1], "arrival": 0, "duration": 1}]}}`,
			solver.KindInvalid, "/trace/requests/0/app", "trace"},
		{"K too small to cover", `{"resources": ["cpu", "mem"], "cluster": {"node_types": [{"name": "w", "capacity": [8, 1], "count": 1}, {"name": "t", "capacity": [1, 8], "count": 1}]},
			"apps": [{"name": "a", "forecast": [{"size": [8, 1], "rate": 1, "duration": 1}, {"size": [1, 8], "rate": 1, "duration": 1}]}], "xsize": {"k": 1}, "trace": {"horizon": 5}}`,
			solver.KindInfeasible, "/xsize/k", "xsize"},
		{"colocation no node holds", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [6, 6], "rate": 1, "duration": 1}]}, {"name": "b", "forecast": [{"size": [5, 5], "rate": 1, "duration": 1}]}],
			"xselect": {"colocate": [["a", "b"]]}, "trace": {"horizon": 5}}`,
			solver.KindInfeasible, "/xselect/colocate/0", "xselect"},
		{"infeasible packing", `{"resources": ["cpu"], "cluster": {"node_types": [{"name": "n", "capacity": [8], "count": 1}]},
			"apps": [{"name": "a", "mode": "garbo", "forecast": [{"size": [1], "rate": 1, "duration": 1}]}, {"name": "b", "forecast": [{"size": [1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 5}}`,
			solver.KindInfeasible, "/cluster", "xselect"},
		{"colocate names an unknown application or shape", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}],
			"xselect": {"colocate": [["a", "nobody"]]}, "trace": {"horizon": 5}}`,
			solver.KindInvalid, "/xselect/colocate/0/1", "xselect"},
		{"duplicate node", `{"resources": ["cpu"], "cluster": {"node_types": [{"name": "n", "capacity": [8], "count": 2}], "nodes": [{"name": "n-2", "capacity": [4]}]},
			"apps": [{"name": "a", "forecast": [{"size": [1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 5}}`,
			solver.KindInvalid, "/cluster/nodes/0", "cluster"},
		{"trace too long", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1, 1], "rate": 1000, "duration": 1}]}], "trace": {"horizon": 1000000}}`,
			solver.KindInvalid, "/trace/horizon", "trace"},
		{"no horizon", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}], "trace": {}}`,
			solver.KindInvalid, "/trace", "trace"},
		{"unknown baseline", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 5}, "baselines": ["yarn"]}`,
			solver.KindInvalid, "/baselines/0", "xschedule/simulate"},
		{"unknown peer", `{` + base + `, "apps": [{"name": "a", "sharing_bounds": {"b": 1}, "forecast": [{"size": [1, 1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 5}}`,
			solver.KindInvalid, "/apps/0/sharing_bounds/b", "xschedule/simulate"},
		{"vector length", `{` + base + `, "apps": [{"name": "a", "forecast": [{"size": [1], "rate": 1, "duration": 1}]}], "trace": {"horizon": 5}}`,
			solver.KindInvalid, "/apps/0/forecast/0/size", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			xe := solvertest.ExpectError(t, plan.Problem(), []byte(c.body), c.kind)
			if len(xe.Violations) == 0 || xe.Violations[0].Pointer != c.ptr {
				t.Fatalf("violations %+v, want the first at %s", xe.Violations, c.ptr)
			}
			if !strings.HasPrefix(xe.Violations[0].Message, c.stage) {
				t.Fatalf("message %q does not name stage %q", xe.Violations[0].Message, c.stage)
			}
		})
	}
}

// FuzzPlan: any body gets a typed error or an answer, never a panic.
func FuzzPlan(f *testing.F) {
	run := solvertest.FuzzRunner(f, plan.Problem(), filepath.Join("testdata", "given.json"), filepath.Join("testdata", "small.json"))
	f.Fuzz(func(t *testing.T, raw []byte) { run(t, raw) })
}
