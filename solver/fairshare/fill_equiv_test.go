package fairshare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// equivRequest draws a small random instance for the reference test: up to
// 12 frameworks on up to 40 copies of up to 6 types, 1–3 resources, some
// frameworks restricted and some capped, and in half the instances small
// integer demands and equal weights so that criteria tie exactly.
func equivRequest(t *testing.T, rng *rand.Rand) *Request {
	t.Helper()
	params := map[string]string{
		"frameworks": strconv.Itoa(1 + rng.IntN(12)),
		"servers":    strconv.Itoa(1 + rng.IntN(40)),
		"types":      strconv.Itoa(1 + rng.IntN(6)),
		"resources":  strconv.Itoa(1 + rng.IntN(3)),
		"restricted": fmt.Sprint(rng.Float64() / 2),
		"expand":     strconv.FormatBool(rng.IntN(2) == 0),
	}
	v, err := Generate(rng.Int64(), params)
	if err != nil {
		t.Fatal(err)
	}
	req := v.(*Request)
	ties := rng.IntN(2) == 0
	for n := range req.Frameworks {
		fw := &req.Frameworks[n]
		if ties {
			for r := range fw.Demand {
				fw.Demand[r] = float64(1 + rng.IntN(4))
			}
			one := 1.0
			fw.Weight = &one
		}
		if rng.IntN(4) == 0 {
			c := float64(rng.IntN(20))
			fw.MaxTasks = &c
		}
	}
	return req
}

// TestFillMatchesReference runs the optimised filler and the reference
// (fill_ref_test.go) on random instances under every policy, server
// selection and tie-break, with the same seeds, and requires identical
// allocations: the optimised structures change the cost, not one decision
// nor one random draw.
func TestFillMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	trials := 200
	if testing.Short() {
		trials = 50
	}
	for trial := 0; trial < trials; trial++ {
		req := equivRequest(t, rng)
		in, err := build(req)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		matchReference(t, trial, in, rng.Uint64())
	}
}

// fillBoth runs the filler and the reference with the same options and
// random stream and returns their allocations.
func fillBoth(t *testing.T, in *instance, o fillOpts, seed uint64) (got, want []map[int]float64) {
	t.Helper()
	f, err := newFiller(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.run(context.Background(), rand.New(rand.NewPCG(seed, 0))); err != nil {
		t.Fatal(err)
	}
	r, err := newRefFiller(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(context.Background(), rand.New(rand.NewPCG(seed, 0))); err != nil {
		t.Fatal(err)
	}
	return f.xs, r.xs
}

// TestTSFUnfitFrameworkStarvesNone: a TSF framework no whole task of which
// fits anywhere has weight +Inf; its criterion 0·Inf was NaN, the
// criterion order could not sort past it and the frameworks behind it
// got nothing. Each of the others must get its fair turn.
func TestTSFUnfitFrameworkStarvesNone(t *testing.T) {
	req := &Request{Resources: []string{"cpu"}, Policy: PolicyTSF,
		Servers: []ServerSpec{{Name: "s", Capacity: []float64{12}}},
		Frameworks: []FrameworkSpec{
			{Name: "a", Demand: []float64{1}}, {Name: "huge", Demand: []float64{100}}, {Name: "b", Demand: []float64{1}},
		}}
	in, err := build(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{SelectRRR, SelectJoint} {
		f, err := newFiller(in, fillOpts{policy: PolicyTSF, selection: sel, tie: TiePaper})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.run(context.Background(), rand.New(rand.NewPCG(1, 0))); err != nil {
			t.Fatal(err)
		}
		if f.x[0] != 6 || f.x[2] != 6 {
			t.Errorf("%s: tasks %v, want 6 each for a and b", sel, f.x)
		}
	}
}

// crowdedRequest draws an instance shaped against the rPS-DSF search
// structures: a few server types with many identical copies each (listed
// as counts or one entry per copy, types interleaved), small integer
// capacities and demands so that residuals run tight and criteria tie
// exactly, equal or integer weights, and δ restricting none, some or all
// frameworks (the shared tree empty or the per-group trees absent).
func crowdedRequest(rng *rand.Rand) *Request {
	R := 1 + rng.IntN(3)
	req := &Request{Resources: resourceNames(R), Policy: PolicyRPSDSF}
	types := 1 + rng.IntN(3)
	expand := rng.IntN(2) == 0
	var names [][]string
	for ty := range types {
		c := make([]float64, R)
		for r := range c {
			c[r] = float64(2 + rng.IntN(7))
		}
		count := 1 + rng.IntN(12)
		names = append(names, nil)
		for k := range count {
			name := fmt.Sprintf("t%d-%d", ty, k)
			if !expand {
				name = fmt.Sprintf("t%d", ty)
			}
			names[ty] = append(names[ty], name)
			if !expand {
				req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: c, Count: &count})
				break
			}
			req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: c})
		}
	}
	if expand {
		rng.Shuffle(len(req.Servers), func(a, b int) { req.Servers[a], req.Servers[b] = req.Servers[b], req.Servers[a] })
	}
	restricted := []float64{0, 0.5, 1}[rng.IntN(3)]
	equal := rng.IntN(2) == 0
	for n := range 1 + rng.IntN(10) {
		fw := FrameworkSpec{Name: fmt.Sprintf("f%d", n), Demand: make([]float64, R)}
		for r := range fw.Demand {
			fw.Demand[r] = float64(1 + rng.IntN(3))
		}
		w := 1.0
		if !equal {
			w = float64(1 + rng.IntN(3))
		}
		fw.Weight = &w
		if rng.Float64() < restricted {
			for _, ns := range names[:1+rng.IntN(types)] {
				fw.Servers = append(fw.Servers, ns...)
			}
		}
		if rng.IntN(4) == 0 {
			c := float64(rng.IntN(6))
			fw.MaxTasks = &c
		}
		req.Frameworks = append(req.Frameworks, fw)
	}
	return req
}

// TestFillMatchesReferenceCrowded is TestFillMatchesReference on
// crowdedRequest's instances, for every policy.
func TestFillMatchesReferenceCrowded(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	for trial := range 300 {
		req := crowdedRequest(rng)
		in, err := build(req)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		matchReference(t, trial, in, rng.Uint64())
	}
}

// matchReference fills in under every policy, server selection and
// tie-break with the optimised filler and the reference, rrr's draws from
// seed, and fails unless the allocations are identical.
func matchReference(t *testing.T, trial int, in *instance, seed uint64) {
	t.Helper()
	for _, pol := range []string{PolicyDRF, PolicyTSF, PolicyPSDSF, PolicyRPSDSF, PolicyBFDRF} {
		for _, sel := range []string{SelectRRR, SelectJoint} {
			for _, tie := range []string{TiePaper, TieLowest} {
				o := fillOpts{policy: pol, selection: sel, tie: tie}
				got, want := fillBoth(t, in, o, seed)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("trial %d %+v: allocation\n%v\nreference\n%v", trial, o, got, want)
				}
			}
		}
	}
}
