package assign

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/xflex/xflex/solver"
)

// checkPredecode: Problem.Decode returns on any bytes (the Runner runs it
// before the body is validated) and, on a body the Runner would accept
// (valid JSON, one value), gives what solver.Decode gives.
func checkPredecode(t *testing.T, body string) {
	t.Helper()
	v, err := decode([]byte(body))
	if _, anyErr := solver.DecodeAny([]byte(body)); anyErr != nil {
		return // the Runner refuses the body and never looks at v
	}
	var want Request
	wantErr := solver.Decode([]byte(body), &want)
	if wantErr != nil {
		return // Solve decodes again and reports its own error
	}
	if err != nil {
		t.Fatalf("%q: Decode failed (%v) where solver.Decode succeeds", body, err)
	}
	got, ok := v.(*Request)
	if pb, built := v.(*prebuilt); built {
		got, ok = pb.req, true
		in, err := Build(&want)
		if err != nil || !reflect.DeepEqual(pb.in, in) {
			t.Fatalf("%q: decode built an instance that Build does not (%v)", body, err)
		}
	} else if _, err := Build(&want); ok && err == nil {
		t.Fatalf("%q: decode did not build an instance that builds", body)
	}
	if !ok || !reflect.DeepEqual(*got, want) {
		t.Fatalf("%q:\ngot  %#v\nwant %#v", body, got, want)
	}
}

func TestPredecodeMatchesDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 3000; it++ {
		body := randRequest(rng)
		checkPredecode(t, body)
		// Truncated and padded bodies: not JSON, or JSON with trailing data.
		checkPredecode(t, body[:rng.IntN(len(body)+1)])
		checkPredecode(t, body+" x")
		checkPredecode(t, "  \n"+body+"\t")
	}
	for _, body := range []string{"", "{", "}", "null", "[]", `{"tasks":[{"id":"a"`, `{"tasks":[{]}`, `{"machines":"`, "\xff"} {
		checkPredecode(t, body)
	}
}

// FuzzPredecode: the same on any bytes (no panic, no hang, same value).
func FuzzPredecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(10, 10))
	for range 20 {
		body := randRequest(rng)
		f.Add(body)
		f.Add(body[:len(body)/2])
	}
	f.Fuzz(func(t *testing.T, body string) { checkPredecode(t, body) })
}

// Solve uses Options.Decoded when it holds a request, and decodes the
// body itself otherwise: same answer either way.
func TestSolveUsesDecoded(t *testing.T) {
	req := GenerateRequest(rand.New(rand.NewPCG(11, 11)), 4, 40, 3, 0.3, 0.5)
	raw, _ := json.Marshal(req)
	v, err := decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := Solve(context.Background(), raw, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Solve(context.Background(), raw, solver.Options{Decoded: v})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the pre-decoded request gave another result")
	}
	// A decoded value is used as given: an empty request places nothing,
	// and so does the instance of an empty request.
	empty, err := Build(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []any{&Request{}, &prebuilt{req: &Request{}, in: empty}} {
		c, _, err := Solve(context.Background(), raw, solver.Options{Decoded: d})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(c.(*Result).Assignments); n != 0 {
			t.Fatalf("Solve decoded the body although Options.Decoded was %T (%d placements)", d, n)
		}
	}
	if _, ok := v.(*prebuilt); !ok {
		t.Fatalf("decode gave %T for a request that builds, want the built instance", v)
	}
}
