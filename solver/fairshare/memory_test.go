package fairshare

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
)

// squareBody is a drf request of n frameworks × n servers of one
// resource; every other framework lists one server by name and gives it
// a utility, so both the listed δ rows and the utility rows are exercised.
func squareBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"resources":["cpu"],"servers":[`)
	for j := range n {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"s%d","capacity":[%d]}`, j, 1+j%7)
	}
	b.WriteString(`],"frameworks":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"name":"f%d","demand":[1]}`, i)
		} else {
			fmt.Fprintf(&b, `{"name":"f%d","demand":[1],"servers":["s%d"],"utility":{"s%d":2}}`, i, i, i)
		}
	}
	b.WriteString(`],"policy":"mmf","criterion":"generic"}`)
	return []byte(b.String())
}

// A request refused by the memory gate allocates no more than a small
// multiple of its body: the framework × server product is not built
// before the estimate is asked (docs/MEMORY.md, item 1). Before the δ and
// utility rows were sparse, 5,000 × 5,000 allocated 225 MB in build
// (9 bytes a pair) from a body of about 400 kB.
func TestRefusedRequestDoesNotBuildProduct(t *testing.T) {
	const n = 5000
	body := squareBody(n)
	r, err := solver.NewRunner([]solver.Problem{Problem()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var asked []int64
	refuse := errors.New("no memory")
	ctx := solver.WithMemoryGate(context.Background(), func(_ context.Context, total int64) error {
		asked = append(asked, total)
		return refuse
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = r.Run(ctx, "fairshare", body)
	runtime.ReadMemStats(&after)

	var xe *solver.Error
	if !errors.As(err, &xe) || xe.Kind != solver.KindOverloaded || !errors.Is(err, refuse) {
		t.Fatalf("Run = %v, want the gate's refusal as %s", err, solver.KindOverloaded)
	}
	if len(asked) != 1 || asked[0] < n*n*memPerPair {
		t.Fatalf("gate asked %v, want once for at least %d bytes", asked, n*n*memPerPair)
	}
	// Decoding and validating the body take about 40 bytes a body byte;
	// the product of 25 million pairs would add at least 225 MB.
	limit := uint64(100 * len(body))
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("refused request of %d body bytes allocated %d kB", len(body), grew>>10)
	if grew > limit {
		t.Fatalf("refused request of %d body bytes allocated %d MB, want at most %d MB", len(body), grew>>20, limit>>20)
	}
}

// coalesce, keyed on sparse columns, groups servers exactly as keys on
// the dense δ and utility columns do (the form it had before the rows
// were sparse): random instances with restricted frameworks and
// utilities, some given as 1, the default, which must not set a server
// apart.
func TestCoalesceMatchesDenseColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	for trial := range 300 {
		req := equivRequest(t, rng)
		generic := trial%2 == 0
		if generic {
			req.Criterion = CriterionGeneric
			for n := range req.Frameworks {
				util := map[string]float64{}
				for _, s := range req.Servers {
					if rng.IntN(3) == 0 {
						util[s.Name] = []float64{1, 2, 0.5}[rng.IntN(3)]
					}
				}
				req.Frameworks[n].Utility = util
			}
		}
		in, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		if want := denseGroupOf(in, generic); !slices.Equal(in.groupOf, want) {
			t.Fatalf("trial %d: groupOf %v, dense columns give %v", trial, in.groupOf, want)
		}
	}
}

// denseGroupOf numbers servers by first appearance of their capacities,
// whole δ column and (generic) whole utility column.
func denseGroupOf(in *instance, generic bool) []int {
	keyOf := map[string]int{}
	out := make([]int, len(in.servers))
	for j, s := range in.servers {
		k := fmt.Sprint(s.cap)
		for n := range in.fws {
			k += fmt.Sprint(" ", in.fws[n].allows(j))
			if generic {
				k += fmt.Sprint(" ", in.fws[n].utility(j))
			}
		}
		g, ok := keyOf[k]
		if !ok {
			g = len(keyOf)
			keyOf[k] = g
		}
		out[j] = g
	}
	return out
}
