package fairshare

import (
	"context"
	"errors"
	"fmt"
	"runtime"
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
