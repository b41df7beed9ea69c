package fairshare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// bestFitStressRequest draws an instance shaped against the best-fit
// lists: many identical copies per type (and types whose capacities are
// multiples of one shape, so different groups score alike), frameworks
// whose demands are multiples of one shape or exact copies of each other
// (equal scores, ties decided by copy index), demands that divide the
// capacities (copies fill to exactly zero and score +Inf), caps, and
// frameworks allowed on single copies (groups of one server).
func bestFitStressRequest(rng *rand.Rand) *Request {
	R := 1 + rng.IntN(3)
	base := make([]float64, R)
	for r := range base {
		base[r] = float64(1 + rng.IntN(3))
	}
	req := &Request{Resources: resourceNames(R), Policy: PolicyBFDRF}
	for t := range 1 + rng.IntN(4) {
		c := make([]float64, R)
		scale := float64(4 * (1 + rng.IntN(3)))
		for r := range c {
			c[r] = scale * base[r]
			if rng.IntN(3) == 0 {
				c[r] = float64(4 + rng.IntN(12))
			}
		}
		for k := range 5 + rng.IntN(40) {
			req.Servers = append(req.Servers, ServerSpec{Name: fmt.Sprintf("t%d-%d", t, k), Capacity: c})
		}
	}
	var fws []FrameworkSpec
	for n := range 2 + rng.IntN(20) {
		fws = append(fws, stressFramework(rng, n, base, req.Servers, fws))
	}
	req.Frameworks = fws
	return req
}

// stressFramework draws framework n: a copy of an earlier one's demand, a
// multiple of base, or small integers; sometimes capped, sometimes allowed
// on a random subset of the servers.
func stressFramework(rng *rand.Rand, n int, base []float64, srv []ServerSpec, earlier []FrameworkSpec) FrameworkSpec {
	d := make([]float64, len(base))
	switch k := rng.IntN(3); {
	case k == 0 && len(earlier) > 0:
		copy(d, earlier[rng.IntN(len(earlier))].Demand)
	case k == 1:
		m := float64(1 + rng.IntN(2))
		for r := range d {
			d[r] = m * base[r]
		}
	default:
		for r := range d {
			d[r] = float64(1 + rng.IntN(4))
		}
	}
	w := float64(1 + rng.IntN(2))
	f := FrameworkSpec{Name: fmt.Sprintf("f%d", n), Demand: d, Weight: &w}
	if rng.IntN(4) == 0 {
		c := float64(rng.IntN(30))
		f.MaxTasks = &c
	}
	if rng.IntN(4) == 0 {
		for _, s := range srv {
			if rng.IntN(3) == 0 {
				f.Servers = append(f.Servers, s.Name)
			}
		}
		if len(f.Servers) == 0 {
			f.Servers = []string{srv[0].Name}
		}
	}
	return f
}

// TestBestFitMatchesReference requires bfdrf's lists to choose as the
// reference's scan of every candidate does, on instances shaped to stress
// them, with the default list length and with lists of 1 to 3 keys (a
// rescan after nearly every placement, and lists that overflow and run
// empty all the time).
func TestBestFitMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	trials := 150
	if testing.Short() {
		trials = 40
	}
	for trial := range trials {
		in, err := build(bestFitStressRequest(rng))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, tie := range []string{TiePaper, TieLowest} {
			o := fillOpts{policy: PolicyBFDRF, selection: SelectJoint, tie: tie}
			r, err := newRefFiller(in, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			for _, keep := range []int{1, 2, 3, bfKeep} {
				f, err := newFiller(in, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := newBestFill(f, keep).run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(f.xs, r.xs) {
					t.Fatalf("trial %d tie %s keep %d: allocation\n%v\nreference\n%v", trial, tie, keep, f.xs, r.xs)
				}
			}
		}
	}
}

// TestResiftIsInsertionSort: after one element's key changes, resift must
// leave the order exactly as a full insertion sort pass does, also when
// keys within tieRel make ties intransitive (a ~ b, b ~ c, a < c).
func TestResiftIsInsertionSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 2000 {
		N := 1 + rng.IntN(12)
		key := make([]float64, N)
		for n := range key {
			key[n] = 1 + float64(rng.IntN(6))*0.6e-12
		}
		lowest := rng.IntN(2) == 0
		less := func(a, b int) bool {
			if !tied(key[a], key[b]) {
				return key[a] < key[b]
			}
			return (a < b) == lowest
		}
		a := make([]int, N)
		for n := range a {
			a[n] = n
		}
		sortBy(a, less)
		for range 20 {
			at := rng.IntN(N)
			key[a[at]] += float64(rng.IntN(5)-1) * 0.6e-12
			want := append([]int(nil), a...)
			sortBy(want, less)
			resift(a, at, less)
			if !reflect.DeepEqual(a, want) {
				t.Fatalf("trial %d: resift %v, insertion sort %v (keys %v)", trial, a, want, key)
			}
		}
	}
}
