package vecpack

import (
	"context"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomInstance builds a small random instance with allowed masks and
// conflicts.
func randomInstance(rng *rand.Rand) *Instance {
	d := 1 + rng.IntN(3)
	nb := 1 + rng.IntN(8)
	in := &Instance{}
	for range nb {
		c := make([]float64, d)
		for r := range c {
			c[r] = float64(4 + rng.IntN(12))
		}
		in.Caps = append(in.Caps, c)
	}
	nt := 1 + rng.IntN(5)
	for t := range nt {
		it := ItemType{Count: rng.IntN(10), Size: make([]float64, d), Classes: []int{t}}
		for r := range it.Size {
			it.Size[r] = float64(rng.IntN(6))
		}
		it.Size[rng.IntN(d)] += 1
		if rng.IntN(3) == 0 {
			it.Allowed = make([]bool, nb)
			for b := range it.Allowed {
				it.Allowed[b] = rng.IntN(3) > 0
			}
		}
		in.Types = append(in.Types, it)
	}
	for range rng.IntN(3) {
		in.Conflicts = append(in.Conflicts, [2]int{rng.IntN(nt), rng.IntN(nt)})
	}
	return in
}

func TestGreedyAndImproveKeepPackingsValid(t *testing.T) {
	ctx := context.Background()
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		in := randomInstance(rng)
		for _, rule := range Rules() {
			p, err := Greedy(ctx, in, rule, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("seed %d rule %s greedy: %v", seed, rule.Name, err)
			}
			q, err := GreedyGuided(ctx, in, rule, nil, func(b int, q []float64) {
				for t := range q {
					q[t] = float64(in.Types[t].Count) / float64(len(in.Caps))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Verify(); err != nil {
				t.Fatalf("seed %d rule %s guided: %v", seed, rule.Name, err)
			}
			w0 := p.UnplacedWeight()
			if _, err := p.Improve(ctx, ImproveOptions{Rand: rand.New(rand.NewPCG(uint64(seed), 2))}); err != nil {
				t.Fatal(err)
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("seed %d rule %s improve: %v", seed, rule.Name, err)
			}
			if p.UnplacedWeight() > w0+improveEps {
				t.Fatalf("seed %d: local search raised unplaced weight %g -> %g", seed, w0, p.UnplacedWeight())
			}
		}
	}
}

// TestReplicationMatchesBinByBin checks that replicating a fill pattern
// across a class gives exactly the packing of filling bin by bin.
func TestReplicationMatchesBinByBin(t *testing.T) {
	ctx := context.Background()
	for seed := range 200 {
		rng := rand.New(rand.NewPCG(uint64(seed), 3))
		in := randomInstance(rng)
		// Many identical bins so replication triggers.
		for range 20 {
			in.Caps = append(in.Caps, slices.Clone(in.Caps[0]))
		}
		for t := range in.Types {
			in.Types[t].Allowed = nil
			in.Types[t].Count *= 4
		}
		for _, rule := range Rules() {
			in.prepared = false
			p, err := Greedy(ctx, in, rule, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := NewPacking(in)
			for _, b := range in.BinOrder() {
				ref.fillBin(b, rule, nil)
			}
			for b := range p.Bins {
				if !slices.Equal(p.Bins[b], ref.Bins[b]) {
					t.Fatalf("seed %d rule %s bin %d: replicated %v, bin by bin %v", seed, rule.Name, b, p.Bins[b], ref.Bins[b])
				}
			}
		}
	}
}

func TestMaxLambdaFindsThreshold(t *testing.T) {
	ctx := context.Background()
	for seed := range 500 {
		rng := rand.New(rand.NewPCG(uint64(seed), 4))
		c := make([]int64, 1+rng.IntN(4))
		for g := range c {
			c[g] = int64(1 + rng.IntN(30))
		}
		g := rng.IntN(len(c))
		star := Lambda{int64(rng.IntN(200)), c[g]}
		limit := star.Counts(c)
		feasible := func(_ context.Context, n []int64) (bool, []int64, error) {
			for g := range n {
				if n[g] > limit[g] {
					// A partial answer: what fits under the limit.
					part := make([]int64, len(n))
					for h := range n {
						part[h] = min(n[h], limit[h])
					}
					if seed%2 == 0 {
						part = nil
					}
					return false, part, nil
				}
			}
			return true, nil, nil
		}
		ub := star.Float() * (1 + rng.Float64())
		if rng.IntN(4) == 0 {
			ub = star.Float()
		}
		res, err := MaxLambda(ctx, c, Lambda{}, nil, ub, feasible)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete || res.Best.rat().Cmp(star.rat()) != 0 {
			t.Fatalf("seed %d: c=%v λ*=%s ub=%g: got %s (complete %v)", seed, c, star, ub, res.Best, res.Complete)
		}
		// Every count the search reports meets ⌈λ·c⌉.
		want := res.Best.Counts(c)
		for g := range c {
			if res.Counts[g] < want[g] {
				t.Fatalf("seed %d: counts %v below %v", seed, res.Counts, want)
			}
		}
		// Starting from a feasible point gives the same answer.
		if star.Num > 0 {
			lo := Lambda{star.Num / 2, star.Den}
			res2, err := MaxLambda(ctx, c, lo, lo.Counts(c), ub, feasible)
			if err != nil || res2.Best.rat().Cmp(star.rat()) != 0 {
				t.Fatalf("seed %d: from %s got %s (%v)", seed, lo, res2.Best, err)
			}
		}
	}
}

func TestLambdaBreakpoints(t *testing.T) {
	c := []int64{3, 4}
	if got := snapUp(0.5, c); got.rat().Cmp(big.NewRat(2, 3)) != 0 && got.rat().Cmp(big.NewRat(1, 2)) != 0 {
		t.Fatalf("snapUp(0.5) = %s", got)
	}
	if got := next(Lambda{1, 2}, c); got.rat().Cmp(big.NewRat(2, 3)) != 0 {
		t.Fatalf("next(1/2) = %s, want 2/3", got)
	}
	if got := BreakpointAtMost(0.7, c); got.rat().Cmp(big.NewRat(2, 3)) != 0 {
		t.Fatalf("BreakpointAtMost(0.7) = %s, want 2/3", got)
	}
	if got := (Lambda{6, 4}).String(); got != "3/2" {
		t.Fatalf("String = %q", got)
	}
	if got := (Lambda{2, 3}).Counts(c); !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("Counts(2/3) = %v, want [2 3]", got)
	}
}

func TestRuleByName(t *testing.T) {
	for _, r := range Rules() {
		got, err := RuleByName(r.Name)
		if err != nil || got.Name != r.Name {
			t.Fatalf("RuleByName(%q) = %v, %v", r.Name, got.Name, err)
		}
	}
	if _, err := RuleByName("nope"); err == nil {
		t.Fatal("unknown rule accepted")
	}
}
