package fairshare

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// TestCompareReusesOwnPolicy: with compare, the entry for the request's
// own policy and selection is the request's answer itself, not a second
// run of it (the full-size comparison ran MMF twice, 1.5 s each under
// load). Reuse shows in elapsed_ms: a second run measures its own time.
// An empty selection on a filling policy means its default one.
func TestCompareReusesOwnPolicy(t *testing.T) {
	for _, c := range []struct{ pol, sel, want string }{
		{PolicyMMF, "", ""}, {PolicyDRF, "", SelectRRR}, {PolicyDRF, SelectJoint, SelectJoint},
		{PolicyPSDSF, "", SelectJoint}, {PolicyBFDRF, "", ""},
	} {
		v, err := Generate(6, map[string]string{"frameworks": "40", "servers": "300", "types": "8", "policy": c.pol})
		if err != nil {
			t.Fatal(err)
		}
		req := v.(*Request)
		req.Compare, req.Selection = true, c.sel
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Solve(context.Background(), raw, solver.Options{Budget: time.Minute, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		res := out.(*Result)
		own := *res
		own.Compare = nil
		want, _ := json.Marshal(own)
		found := 0
		for _, r := range res.Compare {
			if r.Policy != c.pol || r.Selection != c.want {
				continue
			}
			found++
			if got, _ := json.Marshal(r); string(got) != string(want) {
				t.Errorf("%s/%s: compare entry differs from the answer:\n%s\n%s", c.pol, c.sel, got, want)
			}
		}
		if found != 1 {
			t.Errorf("%s/%s: %d compare entries for the request's own policy, want 1", c.pol, c.sel, found)
		}
	}
}
