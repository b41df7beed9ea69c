package tetris

import (
	"reflect"
	"testing"

	"github.com/xflex/xflex/solver"
)

func TestNewCluster(t *testing.T) {
	var vs solver.Violations
	c := NewCluster([]MachineReq{
		{Name: "a", Capacity: map[string]float64{"mem": 8, "cpu": 4}, Free: map[string]float64{"cpu": 5, "gpu": 1, "mem": 2}},
		{Name: "b", Capacity: map[string]float64{"cpu": 2, "net_in": 10}},
		{Name: "a", Capacity: map[string]float64{"cpu": 1}},
	}, &vs)
	if want := []string{"cpu", "mem", "net_in"}; !reflect.DeepEqual(c.Resources, want) {
		t.Fatalf("resources %v, want %v", c.Resources, want)
	}
	if want := []float64{7, 8, 10}; !reflect.DeepEqual(c.Total, want) {
		t.Errorf("total %v, want %v", c.Total, want)
	}
	if want := []float64{5, 2, 0}; !reflect.DeepEqual(c.Machines[0].Free, want) {
		t.Errorf("free of a %v, want %v (gpu dropped)", c.Machines[0].Free, want)
	}
	if want := []float64{2, 0, 10}; !reflect.DeepEqual(c.Machines[1].Free, want) {
		t.Errorf("free of b %v, want its capacity %v", c.Machines[1].Free, want)
	}
	if c.ByName["a"] != 0 || c.ByName["b"] != 1 {
		t.Errorf("by name %v, want the first machine of each name", c.ByName)
	}
	// Violations in machine order, each machine's free resources sorted.
	want := []string{"/machines/0/free/cpu", "/machines/0/free/gpu", "/machines/2/name"}
	var got []string
	for _, v := range vs {
		got = append(got, v.Pointer)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations at %v, want %v", got, want)
	}
	v, unknown := c.Vector(map[string]float64{"net_in": 3, "zz": 1, "gpu": 2, "tpu": 0})
	if !reflect.DeepEqual(v, []float64{0, 0, 3}) || !reflect.DeepEqual(unknown, []string{"gpu", "zz"}) {
		t.Errorf("vector %v unknown %v, want [0 0 3] and the positive unknowns [gpu zz]", v, unknown)
	}
	if r := c.IORoles("", "", "mem"); r != (Roles{DiskRead: -1, NetIn: 2, NetOut: 1}) {
		t.Errorf("roles %+v", r)
	}
}

func TestResolveKnobs(t *testing.T) {
	var vs solver.Violations
	r := (*Knobs)(nil).Resolve(&vs)
	if r != (Resolved{Fairness: DefaultFairness, Barrier: DefaultBarrier, RemotePenalty: DefaultRemotePenalty, EpsilonScale: 1, EpsilonAuto: true}) || len(vs) != 0 {
		t.Fatalf("defaults %+v (%v)", r, vs)
	}
	one, half := 1.0, 0.5
	r = (&Knobs{Epsilon: &half, EpsilonScale: &one, Barrier: &half}).Resolve(&vs)
	if r.EpsilonAuto || r.Epsilon != 0.5 || len(vs) != 1 || vs[0].Pointer != "/knobs/epsilon_scale" {
		t.Fatalf("resolved %+v, violations %v; want epsilon 0.5 given and epsilon_scale refused", r, vs)
	}
	if r.EpsilonFor(nil, nil, nil, nil) != 0.5 {
		t.Error("a given epsilon is not used as is")
	}
	for _, c := range []struct {
		finished, tasks int
		want            bool
	}{{1, 2, true}, {0, 2, false}, {0, 0, false}} {
		if got := r.Promoted(c.finished, c.tasks); got != c.want {
			t.Errorf("b = 0.5: %d of %d finished promoted %v, want %v", c.finished, c.tasks, got, c.want)
		}
	}
	r.Barrier = 1
	if r.Promoted(2, 2) {
		t.Error("b = 1 still promotes")
	}
}
