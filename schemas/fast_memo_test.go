package schemas_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/schemas"
)

// TestFastNumberMemo: the fast path memoises a composite node's verdict
// per number text (the cmmf attribute scalar, an anyOf tried on millions
// of values); on documents whose numbers repeat, under attributes and
// under predicates (if/then on the operator), including texts the
// library refuses (1e400) and ones of unusual form (-0, 1.0, 1e2,
// 5e-324) and strings with the same texts, every verdict and every list
// of violations is the library's.
func TestFastNumberMemo(t *testing.T) {
	set, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	const name = "cmmf.request.json"
	texts := []string{"1", "-0", "1.0", "1e2", "5e-324", "7", "1e400", "-3.5"}
	rng := rand.New(rand.NewPCG(9, 10))
	value := func() any {
		switch k := rng.IntN(10); {
		case k < 7:
			return json.Number(texts[rng.IntN(len(texts))])
		case k < 9:
			return texts[rng.IntN(len(texts))] // a string with a number's text
		default:
			return k == 9
		}
	}
	ops := []string{"eq", "ne", "lt", "ge", "in"}
	st := newDiffStats()
	refused, valid := 0, 0
	for d := 0; d < 300; d++ {
		var machines, require []any
		for m := 0; m < 1+rng.IntN(6); m++ {
			attrs := map[string]any{}
			for a := 0; a < rng.IntN(5); a++ {
				attrs[fmt.Sprintf("a%d", a)] = value()
			}
			machines = append(machines, map[string]any{"name": fmt.Sprintf("m%d", m), "attributes": attrs})
		}
		for p := 0; p < rng.IntN(4); p++ {
			op := ops[rng.IntN(len(ops))]
			v := value()
			if op == "in" {
				v = []any{value(), value()}
			}
			require = append(require, map[string]any{"attr": "a0", "op": op, "value": v})
		}
		doc := map[string]any{"machines": machines, "users": []any{map[string]any{"name": "u", "require": require}}}
		b, _ := json.Marshal(doc)
		if st.checkDoc(t, set, name, string(b), doc) {
			valid++
		} else {
			refused++
		}
	}
	if valid < 20 || refused < 20 {
		t.Errorf("%d valid and %d refused documents: both kinds are needed", valid, refused)
	}
}
