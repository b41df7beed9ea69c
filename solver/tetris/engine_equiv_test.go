package tetris

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// equivInstance is a random round input with located inputs: resources are
// (cpu, mem, disk read, net in, net out), members read from random
// machines (some several inputs, some none), some groups are anonymous,
// and machines start partly used so fits and remote reads are tight.
type equivInstance struct {
	ms    []Machine
	order []int
	gs    []*Group
	js    []Job
	cfg   Config
}

func randEquivInstance(rng *rand.Rand) equivInstance {
	return randEquivSized(rng, equivSize{machines: 8, groups: 12, jobs: 5, members: 6, scale: 1, freeLo: 0.2, freeSpan: 0.8})
}

// equivSize bounds a random instance: up to so many machines, groups, jobs
// and members per group; capacities are scaled by scale and machines start
// with a fraction freeLo + freeSpan·U(0,1) of each resource free. shapes >
// 0 draws machine capacities from that many shapes (so machines share
// capacity vectors, as in real clusters).
type equivSize struct {
	machines, groups, jobs, members, shapes int
	scale, freeLo, freeSpan                 float64
	// nearTies perturbs the jobs' allocations so that shares differ by
	// less than ShareTieTol.
	nearTies bool
	// dupByMachine lists some members twice in ByMachine.
	dupByMachine bool
}

func randEquivSized(rng *rand.Rand, sz equivSize) equivInstance {
	const d = 5
	nm := 1 + rng.IntN(sz.machines)
	ng := 1 + rng.IntN(sz.groups)
	nj := 1 + rng.IntN(sz.jobs)
	var in equivInstance
	in.ms = make([]Machine, nm)
	total := make([]float64, d)
	var shapes [][]float64
	for range sz.shapes {
		shapes = append(shapes, []float64{(4 + float64(rng.IntN(8))) * sz.scale, (8 + float64(rng.IntN(16))) * sz.scale, 4 * sz.scale, 4 * sz.scale, 4 * sz.scale})
	}
	for i := range in.ms {
		c := []float64{(4 + float64(rng.IntN(8))) * sz.scale, (8 + float64(rng.IntN(16))) * sz.scale, 4 * sz.scale, 4 * sz.scale, 4 * sz.scale}
		if len(shapes) > 0 {
			c = shapes[rng.IntN(len(shapes))]
		}
		if rng.IntN(6) == 0 {
			c = append([]float64(nil), c...)
			c[1] = 0 // a machine lacking a resource
		}
		f := make([]float64, d)
		for k := range c {
			f[k] = math.Round(c[k]*(sz.freeLo+sz.freeSpan*rng.Float64())*4) / 4
			total[k] += c[k]
		}
		in.ms[i] = Machine{Cap: c, Free: f}
	}
	in.order = rng.Perm(nm)
	in.js = make([]Job, nj)
	for j := range in.js {
		in.js[j] = Job{Alloc: make([]float64, d), Weight: 1 + float64(rng.IntN(2)), Work: float64(rng.IntN(4))}
		for k := range in.js[j].Alloc {
			in.js[j].Alloc[k] = float64(rng.IntN(3))
			if sz.nearTies {
				// Shares a few ulps to ~1e-13 apart: within ShareTieTol
				// without being equal, where shareLess is not transitive.
				in.js[j].Alloc[k] += float64(rng.IntN(4)) * 3e-14
			}
		}
	}
	in.gs = make([]*Group, ng)
	for gi := range in.gs {
		g := &Group{Job: rng.IntN(nj), Promoted: rng.IntN(4) == 0,
			Demand: []float64{float64(1 + rng.IntN(3)), float64(rng.IntN(6)), float64(rng.IntN(2)) / 2, 0, float64(rng.IntN(2)) / 4}}
		n := 1 + rng.IntN(sz.members)
		if rng.IntN(4) == 0 {
			g.Count = n // anonymous
		} else {
			g.Members = make([]Member, n)
			for mi := range g.Members {
				for range rng.IntN(3) {
					g.Members[mi].Inputs = append(g.Members[mi].Inputs,
						Input{Machine: rng.IntN(nm), Rate: float64(1+rng.IntN(4)) / 2})
				}
				if rng.IntN(8) == 0 {
					g.Members[mi].placed = true
				} else {
					g.Count++
				}
			}
		}
		if g.Members != nil && rng.IntN(3) == 0 {
			// The simulator's per-machine index of members by input.
			g.ByMachine = make([][]int32, nm)
			for mi, mem := range g.Members {
				for k, x := range mem.Inputs {
					if !hasInput(mem.Inputs[:k], x.Machine) {
						g.ByMachine[x.Machine] = append(g.ByMachine[x.Machine], int32(mi))
						if sz.dupByMachine && rng.IntN(4) == 0 {
							// A caller's index listing a member twice.
							g.ByMachine[x.Machine] = append(g.ByMachine[x.Machine], int32(mi))
						}
					}
				}
			}
		}
		in.gs[gi] = g
	}
	in.cfg = Config{Fairness: []float64{0, 0.25, 0.5, 1}[rng.IntN(4)], Epsilon: []float64{0, 0.05, 0.3}[rng.IntN(3)],
		RemotePenalty: []float64{0, 0.1}[rng.IntN(2)], Total: total, Roles: Roles{DiskRead: 2, NetIn: 3, NetOut: 4}}
	if rng.IntN(5) == 0 {
		in.cfg.Mask = []bool{true, true, false, false, false}
	}
	return in
}

// clone deep-copies the mutable parts.
func (in equivInstance) clone() equivInstance {
	out := in
	out.ms = make([]Machine, len(in.ms))
	for i, m := range in.ms {
		out.ms[i] = Machine{Cap: m.Cap, Free: append([]float64(nil), m.Free...)}
	}
	out.js = make([]Job, len(in.js))
	for j, x := range in.js {
		x.Alloc = append([]float64(nil), x.Alloc...)
		out.js[j] = x
	}
	out.gs = make([]*Group, len(in.gs))
	for gi, g := range in.gs {
		c := *g
		if g.Members != nil {
			c.Members = append([]Member(nil), g.Members...)
		}
		out.gs[gi] = &c
	}
	return out
}

// The optimised Round makes exactly the placements of the straightforward
// reference round (engine_ref_test.go), in the same order, with the same
// scores, shares and ranks, and leaves the same state, over several rounds
// per instance (state carried across rounds as the simulator does).
func TestRoundMatchesReference(t *testing.T) {
	placed, remote := matchReference(t, rand.New(rand.NewPCG(7, 7)), 600, randEquivInstance)
	if placed < 2000 || remote < 300 {
		t.Fatalf("only %d placements (%d remote) over all instances: the test exercises too little", placed, remote)
	}
	t.Logf("%d placements, %d remote", placed, remote)
}

// The same on instances large enough for fills with many live candidates
// (recheck's walk of the sorted lists rather than its one-by-one test),
// many jobs (the fairness cut and parked heap nodes), machines sharing
// capacity vectors (the per-class demand cache), idle machines (many
// placements per fill) and ByMachine lists that repeat a member.
func TestRoundMatchesReferenceLarge(t *testing.T) {
	gen := func(rng *rand.Rand) equivInstance {
		return randEquivSized(rng, equivSize{machines: 12, groups: 120, jobs: 40, members: 12, shapes: 1 + rng.IntN(3), scale: 6, freeLo: 0.7, freeSpan: 0.3, dupByMachine: true})
	}
	placed, remote := matchReference(t, rand.New(rand.NewPCG(8, 8)), 200, gen)
	if placed < 20000 || remote < 3000 {
		t.Fatalf("only %d placements (%d remote) over all instances: the test exercises too little", placed, remote)
	}
	t.Logf("%d placements, %d remote", placed, remote)
}

// The same with job shares that differ by less than ShareTieTol without
// being equal (the share order then depends on job indices and need not be
// transitive).
func TestRoundMatchesReferenceNearTies(t *testing.T) {
	gen := func(rng *rand.Rand) equivInstance {
		return randEquivSized(rng, equivSize{machines: 6, groups: 40, jobs: 20, members: 6, shapes: 2, scale: 3, freeLo: 0.5, freeSpan: 0.5, nearTies: true})
	}
	placed, remote := matchReference(t, rand.New(rand.NewPCG(9, 9)), 300, gen)
	if placed < 8000 || remote < 1000 {
		t.Fatalf("only %d placements (%d remote) over all instances: the test exercises too little", placed, remote)
	}
	t.Logf("%d placements, %d remote", placed, remote)
}

// The same on a few machines of one capacity vector with many members
// reading from each: fills with more candidates than the class cache leaves
// room for after its demands (classFillRoom), so the fill's demand array is
// copied mid-fill and the class cache adopts the copy.
func TestRoundMatchesReferenceManyLocal(t *testing.T) {
	gen := func(rng *rand.Rand) equivInstance {
		return randEquivSized(rng, equivSize{machines: 3, groups: 80, jobs: 30, members: 16, shapes: 1, scale: 20, freeLo: 0.8, freeSpan: 0.2})
	}
	placed, remote := matchReference(t, rand.New(rand.NewPCG(10, 10)), 100, gen)
	if placed < 10000 || remote < 1000 {
		t.Fatalf("only %d placements (%d remote) over all instances: the test exercises too little", placed, remote)
	}
	t.Logf("%d placements, %d remote", placed, remote)
}

// matchReference runs Round and the reference round on n instances from
// gen, two rounds each, and fails on the first difference. It returns the
// placements made and how many read remotely.
func matchReference(t *testing.T, rng *rand.Rand, n int, gen func(*rand.Rand) equivInstance) (placed, remote int) {
	t.Helper()
	for it := 0; it < n; it++ {
		a := gen(rng)
		b := a.clone()
		for rd := 0; rd < 2; rd++ {
			got, err := Round(context.Background(), a.ms, a.order, a.gs, a.js, a.cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refRoundRun(context.Background(), b.ms, b.order, b.gs, b.js, b.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				i := 0
				for i < min(len(got), len(want)) && reflect.DeepEqual(got[i], want[i]) {
					i++
				}
				t.Fatalf("instance %d round %d: %d and %d placements, the first %d equal\n got  %+v\n want %+v",
					it, rd, len(got), len(want), i, got[i:min(len(got), i+3)], want[i:min(len(want), i+3)])
			}
			placed += len(got)
			for _, p := range got {
				if p.Remote {
					remote++
				}
			}
			for i := range a.ms {
				if !reflect.DeepEqual(a.ms[i].Free, b.ms[i].Free) {
					t.Fatalf("instance %d: free of machine %d differs", it, i)
				}
			}
			for j := range a.js {
				if !reflect.DeepEqual(a.js[j].Alloc, b.js[j].Alloc) {
					t.Fatalf("instance %d: allocation of job %d differs", it, j)
				}
			}
			for gi := range a.gs {
				if a.gs[gi].Count != b.gs[gi].Count {
					t.Fatalf("instance %d: count of group %d differs", it, gi)
				}
				for mi := range a.gs[gi].Members {
					if a.gs[gi].Members[mi].placed != b.gs[gi].Members[mi].placed {
						t.Fatalf("instance %d: member %d/%d placed differs", it, gi, mi)
					}
				}
			}
			// Free some capacity for the next round.
			for i := range a.ms {
				for k := range a.ms[i].Free {
					x := math.Round(a.ms[i].Cap[k]*rng.Float64()*2) / 4
					a.ms[i].Free[k] += x
					b.ms[i].Free[k] += x
				}
			}
		}
	}
	return placed, remote
}

// The same with some negative demands (which the schemas rule out but
// Round accepts): free capacity can then grow during a fill, snapshots are
// no upper bounds, and Round re-evaluates every candidate at each pick.
func TestRoundMatchesReferenceNegativeDemand(t *testing.T) {
	gen := func(rng *rand.Rand) equivInstance {
		in := randEquivSized(rng, equivSize{machines: 6, groups: 30, jobs: 8, members: 6, shapes: 2, scale: 3, freeLo: 0.5, freeSpan: 0.5})
		for _, g := range in.gs {
			if rng.IntN(4) == 0 {
				g.Demand[1] = -0.5
			}
		}
		return in
	}
	placed, _ := matchReference(t, rand.New(rand.NewPCG(10, 10)), 200, gen)
	if placed < 3000 {
		t.Fatalf("only %d placements over all instances: the test exercises too little", placed)
	}
	t.Logf("%d placements", placed)
}
