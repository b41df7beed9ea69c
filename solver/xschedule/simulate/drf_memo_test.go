package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/xflex/xflex/solver/xschedule/assign"
)

// TestDRFNoFitMemo: DRF keeping each ask's best-fit node up to date from
// the nodes that changed (drf.remember, bestFitOf) decides exactly as
// scanning the nodes for every ask every time, on random clusters, asks
// (with host and rack constraints) and releases.
func TestDRFNoFitMemo(t *testing.T) {
	for seed := range uint64(40) {
		a, b := drfScript(seed, true), drfScript(seed, false)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: keeping the best fit decided\n%v\nscanning decided\n%v", seed, a, b)
		}
		if len(a) == 0 {
			t.Fatalf("seed %d: no decision", seed)
		}
	}
}

// drfScript runs random rounds of a DRF scheduler and returns every
// round's decisions and the final packing.
func drfScript(seed uint64, remember bool) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	racks := []string{"r0", "r1", "r2"}
	var nodes []assign.NodeInfo
	totals := []float64{0, 0}
	for i := range 2 + rng.IntN(12) {
		c := []float64{float64(1 + rng.IntN(16)), float64(1 + rng.IntN(64))}
		nodes = append(nodes, assign.NodeInfo{Name: fmt.Sprint("n", i), Rack: racks[rng.IntN(3)], Capacity: c})
		totals[0], totals[1] = totals[0]+c[0], totals[1]+c[1]
	}
	d := newDRF(nodes, totals)
	d.remember = remember
	var queue []*pending
	var live []string
	var out []string
	for round := range 60 {
		for range rng.IntN(4) {
			a := ask{id: fmt.Sprint("q", round, "-", len(queue)), app: fmt.Sprint("a", rng.IntN(3)),
				count: 1 + rng.IntN(5), size: []float64{float64(rng.IntN(8)), float64(rng.IntN(24))}, prio: rng.IntN(2)}
			switch rng.IntN(5) {
			case 0:
				a.host = nodes[rng.IntN(len(nodes))].Name
			case 1:
				a.rack = racks[rng.IntN(3)]
			}
			p := &pending{a: a}
			if err := d.prepare(p); err != nil {
				panic(err)
			}
			p.times.add(float64(round), a.count)
			queue = append(queue, p)
		}
		for len(live) > 0 && rng.IntN(3) > 0 {
			i := rng.IntN(len(live))
			d.release(float64(round), live[i])
			live = append(live[:i], live[i+1:]...)
		}
		ds, _ := d.round(context.Background(), float64(round), queue)
		for _, dc := range ds {
			for _, p := range queue {
				if p.a.id == dc.request {
					p.times.pop()
				}
			}
			live = append(live, dc.container)
		}
		out = append(out, fmt.Sprint(ds))
	}
	return append(out, fmt.Sprint(d.packing()))
}

// TestBestFitKept: an ask's kept best fit (drf.bestFitOf) is the node a
// scan of every node finds (bestFit), after any sequence of placements
// and releases on any nodes, including releases on the kept node, which
// the loop's rounds rarely leave it to see.
func TestBestFitKept(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 11))
		var nodes []assign.NodeInfo
		totals := []float64{0, 0}
		for i := range 3 + rng.IntN(8) {
			c := []float64{float64(2 + rng.IntN(8)), float64(2 + rng.IntN(16))}
			nodes = append(nodes, assign.NodeInfo{Name: fmt.Sprint("n", i), Rack: fmt.Sprint("r", i%2), Capacity: c})
			totals[0], totals[1] = totals[0]+c[0], totals[1]+c[1]
		}
		d := newDRF(nodes, totals)
		var asks []*pending
		for i := range 6 {
			a := ask{id: fmt.Sprint("q", i), app: "a", size: []float64{float64(rng.IntN(4)), float64(rng.IntN(8))}}
			if rng.IntN(4) == 0 {
				a.rack = fmt.Sprint("r", rng.IntN(2))
			}
			p := &pending{a: a}
			if err := d.prepare(p); err != nil {
				t.Fatal(err)
			}
			asks = append(asks, p)
		}
		var live []string
		for step := range 300 {
			p := asks[rng.IntN(len(asks))]
			got := d.bestFitOf(p)
			want, _ := d.bestFit(&p.a)
			if got != want {
				t.Fatalf("seed %d step %d: kept best fit %d, scan %d", seed, step, got, want)
			}
			if len(live) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(live))
				d.release(0, live[i])
				live = append(live[:i], live[i+1:]...)
			} else if want >= 0 {
				live = append(live, d.place(p, want))
			}
		}
	}
}
