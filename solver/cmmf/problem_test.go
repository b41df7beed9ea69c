package cmmf

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestExamples runs every request in testdata through the Runner twice
// (schema-valid response, byte-identical runs).
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, Problem(), raw)
			meta := out["meta"].(map[string]any)
			if meta["status"] != string(solver.StatusOptimal) {
				t.Fatalf("status %v", meta["status"])
			}
			got, err := json.MarshalIndent(out["result"], "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestExamples -update to create it)", err)
			}
			if string(want) != string(got)+"\n" {
				t.Fatalf("result differs from %s (rerun with -update after checking):\n%s", golden, got)
			}
		})
	}
}

// update rewrites the golden results in testdata.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestReplanKeepsMachines: in Figure 1 with whole machines both
// (u1={m1,m4}, u2={m3}) and (u1={m1}, u2={m3,m4}) are CMMF; with u2 holding
// m4 now, the replan keeps it there and also keeps u3's and u4's machines,
// so nothing moves. (Had u4 held m7, one move would be forced: u3 needs
// m2, m6 and m7 in every CMMF allocation.)
func TestReplanKeepsMachines(t *testing.T) {
	raw, err := os.ReadFile("testdata/figure1_replan.json")
	if err != nil {
		t.Fatal(err)
	}
	out := solvertest.Check(t, Problem(), raw)
	res := out["result"].(map[string]any)
	if res["moved"].(float64) != 0 {
		t.Fatalf("moved %v, want 0", res["moved"])
	}
	as := res["assignment"].(map[string]any)
	for m, u := range map[string]string{"m4": "u2", "m6": "u3", "m2": "u3", "m8": "u4", "m5": "u4", "m1": "u1", "m3": "u2"} {
		if as[m] != u {
			t.Fatalf("assignment %v: %s should stay with %s", as, m, u)
		}
	}
}

// TestIndividualMachinesCoalesce: the same cluster given machine by machine
// and as types yields the same leximin vector, and whole-machine results
// assign every allocated machine exactly once.
func TestIndividualMachinesCoalesce(t *testing.T) {
	for seed := int64(0); seed < 6; seed++ {
		for _, div := range []bool{true, false} {
			p := GenParams{Users: 25, Types: 6, Machines: 120, Divisible: div, Weighted: seed%2 == 0, CappedFrac: 0.2}
			typesReq := GenerateRequest(seed, p)
			p.Individual = true
			machReq := GenerateRequest(seed, p)
			a, _, err := solveRequest(t, typesReq)
			if err != nil {
				t.Fatal(err)
			}
			b, in, err := solveRequest(t, machReq)
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Types) > 6 {
				t.Fatalf("seed %d: %d machines coalesced into %d types, want at most 6", seed, len(machReq.Machines), len(in.Types))
			}
			for k := range a.Leximin {
				if d := a.Leximin[k] - b.Leximin[k]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("seed %d divisible=%v: types leximin %v, machines %v", seed, div, a.Leximin, b.Leximin)
				}
			}
			if !div {
				per := map[string]float64{}
				for m, user := range b.Assignment {
					per[user]++
					if !slices.ContainsFunc(b.Users[userPos(b, user)].Allocation, func(e Amount) bool { return e.Name == m }) {
						t.Fatalf("machine %s assigned to %s but not in its allocation", m, user)
					}
				}
				for _, ur := range b.Users {
					if per[ur.Name] != ur.Total {
						t.Fatalf("user %s: total %v, %v machines assigned", ur.Name, ur.Total, per[ur.Name])
					}
				}
			}
		}
	}
}

func userPos(r *Result, name string) int {
	for k, u := range r.Users {
		if u.Name == name {
			return k
		}
	}
	return -1
}

func solveRequest(t *testing.T, req *Request) (*Result, *Instance, error) {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		return nil, nil, err
	}
	res, _, err := SolveInstance(context.Background(), in, MethodFlow, 1)
	return res, in, err
}

// TestHugeCounts: a billion machines per type solve exactly (the flow
// solvers work on types), while Choosy, which frees machines one at a
// time, is skipped with a reason.
func TestHugeCounts(t *testing.T) {
	body := []byte(`{"machine_types":[{"name":"a","count":1000000000},{"name":"b","count":999999999}],
	  "users":[{"name":"x","allowed":["a"]},{"name":"y","weight":3},{"name":"z","demand":5.5}],"divisible":false}`)
	out := solvertest.Check(t, Problem(), body)
	res := out["result"].(map[string]any)
	ch := res["choosy"].(map[string]any)
	if ch["skipped"] == nil || len(ch["users"].([]any)) != 0 {
		t.Fatalf("choosy not skipped: %v", ch)
	}
	// x alone on a: shares x = 1e9 - ... ; z capped at 5; y gets the rest of b.
	users := res["users"].([]any)
	z := users[2].(map[string]any)
	if z["total"].(float64) != 5 {
		t.Fatalf("z total %v, want its demand 5", z["total"])
	}
	x, y := users[0].(map[string]any)["total"].(float64), users[1].(map[string]any)["total"].(float64)
	if x+y+5 != 1999999999 {
		t.Fatalf("totals %v + %v + 5 do not use all machines", x, y)
	}
}

// TestBudgetTimeout: when the budget runs out the answer is the quick
// allocation with status timeout and a bound, never a partial exact one.
func TestBudgetTimeout(t *testing.T) {
	req := GenerateRequest(3, GenParams{Users: 3000, Types: 60, Machines: 60000, Divisible: true})
	req.Method = MethodLP
	one := int64(1)
	req.BudgetMS = &one
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, xe := solvertest.Run(t, Problem(), body)
	if xe != nil {
		t.Fatalf("error instead of a timeout answer: %v", xe)
	}
	var resp struct {
		Result Result      `json:"result"`
		Meta   solver.Meta `json:"meta"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	t.Logf("elapsed %v ms", resp.Meta.ElapsedMS)
	if resp.Meta.Status != solver.StatusTimeout || len(resp.Result.Users) != 3000 || resp.Meta.Bound == nil || *resp.Meta.Objective > *resp.Meta.Bound {
		t.Fatalf("status %v, %d users, objective %v, bound %v", resp.Meta.Status, len(resp.Result.Users), resp.Meta.Objective, resp.Meta.Bound)
	}
}

// TestTinyBudgetIsNeverInternal: with budget_ms 1 the LP backend's time
// limit (derived from the deadline) can stop CLP a moment before the
// context reports the deadline; that status used to surface as an internal
// error (robustness sweep, testdata/lp_machines_current.json). It is a race,
// so the request runs many times: each run must end optimal, as a timeout
// with the quick allocation, or as budget_exhausted, never internal.
func TestTinyBudgetIsNeverInternal(t *testing.T) {
	raw, err := os.ReadFile("testdata/lp_machines_current.json")
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	req["budget_ms"] = 1
	body, _ := json.Marshal(req)
	for i := 0; i < 60; i++ {
		if _, xe := solvertest.Run(t, Problem(), body); xe != nil && xe.Kind != solver.KindBudget {
			t.Fatalf("run %d: %v", i, xe)
		}
	}
}
