package tetris

import (
	"context"
	"math"
	"testing"
)

// A member short by an infinite relative amount on every machine (a
// capacity far below MinCapacity, possible only when Round's types are
// built directly) is explained at the first machine without its input.
// Before, no machine beat the initial +Inf metric and the explanation
// indexed machine -1.
func TestExplainInfiniteMetric(t *testing.T) {
	// Resources: 0 cpu, 1 disk_read, 2 net_in, 3 net_out.
	ms := []Machine{
		{Cap: []float64{1e-300, 1, 1, 1}, Free: []float64{1e-300, 1, 1, 1}},
		{Cap: []float64{1e-300, 1, 1, 1}, Free: []float64{1e-300, 1, 1, 1}},
	}
	g := &Group{Job: 0, Demand: []float64{1e15, 0, 0, 0}, Count: 1,
		Members: []Member{{Inputs: []Input{{Machine: 1, Rate: 0.5}}}}}
	cfg := Config{Total: []float64{2e-300, 2, 2, 2}, Roles: Roles{DiskRead: 1, NetIn: 2, NetOut: 3}}
	r := Explain(ms, []*Group{g}, cfg)[0][0]
	if r == nil || r.Machine != 0 || len(r.Short) == 0 || r.Short[0].Resource != 0 {
		t.Fatalf("reason %+v", r)
	}
	if v := (g.Demand[0] - ms[0].Free[0]) / ms[0].Cap[0]; !math.IsInf(v, 1) {
		t.Fatalf("the case needs an infinite metric, got %v", v)
	}
}

// ExplainOn ranges over the offered machines only: a group that fits the
// unoffered machine is explained at the offered one, and blocked counts
// only offered machines.
func TestExplainOnOffered(t *testing.T) {
	ms := []Machine{
		{Cap: []float64{4}, Free: []float64{4}},
		{Cap: []float64{4}, Free: []float64{1}},
	}
	g := &Group{Job: 0, Demand: []float64{2}, Count: 1}
	cfg := Config{Total: []float64{8}, Roles: Roles{DiskRead: -1, NetIn: -1, NetOut: -1}}
	all := Explain(ms, []*Group{g}, cfg)[0][0]
	if all.Machine != 0 || len(all.Short) != 0 || all.Blocked[0] != 1 {
		t.Fatalf("every machine offered: %+v", all)
	}
	one := ExplainOn(context.Background(), ms, []int{1}, []*Group{g}, cfg)[0][0]
	if one.Machine != 1 || len(one.Short) != 1 || one.Short[0].Free != 1 || one.Blocked[0] != 1 {
		t.Fatalf("machine 1 offered: %+v", one)
	}
	none := ExplainOn(context.Background(), ms, []int{}, []*Group{g}, cfg)[0][0]
	if none.Machine != -1 {
		t.Fatalf("no machine offered: %+v", none)
	}
}
