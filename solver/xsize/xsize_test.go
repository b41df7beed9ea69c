package xsize

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/ptas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// relTol is the slack of recomputed costs (sums of a few hundred products
// of doubles, far below 1e-9 relative round-off).
const relTol = 1e-9

type wireResult struct {
	Result struct {
		Shapes []struct {
			Size      []float64 `json:"size"`
			Weight    float64   `json:"weight"`
			Waste     float64   `json:"waste"`
			NodeTypes []string  `json:"node_types"`
		} `json:"shapes"`
		Assignment    []int    `json:"assignment"`
		Cost          float64  `json:"cost"`
		LowerBound    float64  `json:"lower_bound"`
		Epsilon       float64  `json:"epsilon"`
		Rho           *float64 `json:"rho"`
		EpsilonTarget *float64 `json:"epsilon_target"`
		Reached       bool     `json:"reached"`
		Fit           string   `json:"fit"`
	} `json:"result"`
	Meta solver.Meta `json:"meta"`
}

// checkResponse verifies the answer against the request independently of
// the solver: every request fits its shape, shapes fit node types, the
// cost, weights and wastes recompute, and bound, gap and ε are consistent.
func checkResponse(t *testing.T, raw []byte, out map[string]any) wireResult {
	t.Helper()
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	var w wireResult
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	r := w.Result
	if len(r.Shapes) > req.K {
		t.Fatalf("%d shapes for k = %d", len(r.Shapes), req.K)
	}
	if len(r.Assignment) != len(req.Requests) {
		t.Fatalf("assignment has %d entries for %d requests", len(r.Assignment), len(req.Requests))
	}
	norm := func(s []float64) float64 {
		c := 0.0
		for i, x := range s {
			if r.Fit == "max" {
				c = math.Max(c, x/req.Totals[i])
			} else {
				c += x / req.Totals[i]
			}
		}
		return c
	}
	cost := 0.0
	wt := make([]float64, len(r.Shapes))
	waste := make([]float64, len(r.Shapes))
	for j, it := range req.Requests {
		s := r.Shapes[r.Assignment[j]].Size
		if !ptas.Fits(it.Size, s) {
			t.Fatalf("request %d %v does not fit its shape %v", j, it.Size, s)
		}
		w := 1.0
		if it.Weight != nil {
			w = *it.Weight
		}
		cost += w * norm(s)
		wt[r.Assignment[j]] += w
		waste[r.Assignment[j]] += w * (norm(s) - norm(it.Size))
	}
	if math.Abs(cost-r.Cost) > relTol*math.Max(cost, 1) {
		t.Fatalf("cost %v, recomputed %v", r.Cost, cost)
	}
	for s, sh := range r.Shapes {
		if math.Abs(sh.Weight-wt[s]) > relTol*math.Max(wt[s], 1) || math.Abs(sh.Waste-waste[s]/wt[s]) > relTol {
			t.Fatalf("shape %d weight/waste %v/%v, recomputed %v/%v", s, sh.Weight, sh.Waste, wt[s], waste[s]/wt[s])
		}
		if len(req.NodeTypes) > 0 {
			ok := false
			for _, nt := range req.NodeTypes {
				ok = ok || ptas.Fits(sh.Size, nt.Capacity)
			}
			if !ok || len(sh.NodeTypes) == 0 {
				t.Fatalf("shape %v fits no node type", sh.Size)
			}
		}
	}
	if r.LowerBound > r.Cost*(1+relTol) {
		t.Fatalf("lower bound %v above cost %v", r.LowerBound, r.Cost)
	}
	if r.LowerBound > 0 && math.Abs(r.Epsilon-(r.Cost/r.LowerBound-1)) > 1e-9 {
		t.Fatalf("epsilon %v but cost/bound − 1 = %v", r.Epsilon, r.Cost/r.LowerBound-1)
	}
	if r.Rho != nil && r.Epsilon > *r.Rho-1+1e-9 {
		t.Fatalf("epsilon %v above ρ − 1 = %v of a level solved exactly", r.Epsilon, *r.Rho-1)
	}
	if r.EpsilonTarget != nil && r.Reached != (r.Epsilon <= *r.EpsilonTarget) {
		t.Fatalf("reached %v with ε %v, target %v", r.Reached, r.Epsilon, *r.EpsilonTarget)
	}
	if w.Meta.Bound == nil || w.Meta.Gap == nil || math.Abs(*w.Meta.Bound-r.LowerBound) > 0 {
		t.Fatalf("meta bound/gap missing or different from lower_bound")
	}
	return w
}

func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 5 {
		t.Fatalf("only %d testdata files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, Problem(), raw)
			w := checkResponse(t, raw, out)
			if w.Result.EpsilonTarget != nil && !w.Result.Reached {
				t.Errorf("ε %v not reached (target %v)", w.Result.Epsilon, *w.Result.EpsilonTarget)
			}
		})
	}
}

// Known optima: identity (k ≥ distinct requests) and fit "max" are exact.
func TestKnownOptima(t *testing.T) {
	raw, _ := os.ReadFile("testdata/identity.json")
	w := checkResponse(t, raw, solvertest.Check(t, Problem(), raw))
	// 1·0.1 + 2·0.2 + 3·0.1 = 0.8, each request its own size
	if math.Abs(w.Result.Cost-0.8) > relTol || w.Meta.Status != solver.StatusOptimal {
		t.Fatalf("identity: cost %v status %s", w.Result.Cost, w.Meta.Status)
	}
	raw, _ = os.ReadFile("testdata/maxfit.json")
	w = checkResponse(t, raw, solvertest.Check(t, Problem(), raw))
	// keys (max normalized): .01×5, .02×3, .03×2, .06×1, .005×9; two levels:
	// splits: {≤.005}: .045+.66, {≤.01}: .14+.36 = 0.50, {≤.02}: .34+.18,
	// {≤.03}: .57+.06; the optimum is 0.50.
	if math.Abs(w.Result.Cost-0.50) > relTol || w.Meta.Status != solver.StatusOptimal {
		t.Fatalf("max fit: cost %v status %s", w.Result.Cost, w.Meta.Status)
	}
}

func TestBadInput(t *testing.T) {
	p := Problem()
	base := `{"resources": ["cpu", "mem"], "totals": [10, 10], "k": 2, "requests": [{"size": [1, 1]}, {"size": [2, 3], "weight": 2}]`
	cases := []struct {
		name, body string
		kind       solver.Kind
		pointer    string
	}{
		{"k zero", strings.Replace(base, `"k": 2`, `"k": 0`, 1) + "}", solver.KindSchema, "/k"},
		{"zero total", strings.Replace(base, `[10, 10]`, `[10, 0]`, 1) + "}", solver.KindSchema, "/totals/1"},
		{"zero weight", strings.Replace(base, `"weight": 2`, `"weight": 0`, 1) + "}", solver.KindSchema, "/requests/1/weight"},
		{"negative size", strings.Replace(base, `[1, 1]`, `[1, -1]`, 1) + "}", solver.KindSchema, "/requests/0/size/1"},
		{"size length", strings.Replace(base, `[1, 1]`, `[1]`, 1) + "}", solver.KindInvalid, "/requests/0/size"},
		{"totals length", strings.Replace(base, `[10, 10]`, `[10]`, 1) + "}", solver.KindInvalid, "/totals"},
		{"unknown field", base + `, "colour": 1}`, solver.KindSchema, ""},
		{"bad fit", base + `, "fit": "min"}`, solver.KindSchema, "/fit"},
		{"too large for nodes", base + `, "node_types": [{"name": "a", "capacity": [2, 2]}]}`, solver.KindInfeasible, "/requests/1/size"},
		{"duplicate node", base + `, "node_types": [{"name": "a", "capacity": [5, 5]}, {"name": "a", "capacity": [6, 6]}]}`, solver.KindInvalid, "/node_types/1/name"},
		{"capacity length", base + `, "node_types": [{"name": "a", "capacity": [5]}]}`, solver.KindInvalid, "/node_types/0/capacity"},
		{"k too small for node types (semantic)", `{"resources": ["cpu", "mem"], "totals": [10, 10], "k": 1, "node_types": [{"name": "a", "capacity": [1, 9]}, {"name": "b", "capacity": [9, 1]}], "requests": [{"size": [1, 5]}, {"size": [5, 1]}]}`, solver.KindInfeasible, "/k"},
		{"not json", `{"resources": [`, solver.KindMalformed, ""},
		// Robustness sweep: a total of 5e-324 normalized a size of 1 to
		// +Inf (ptas refused it: internal error); the schema now refuses
		// a subnormal where it demands > 0 (schemas/float.go). A total
		// of 1e-300 with weight 1e15 made the cost +Inf (response not
		// encodable).
		{"size over a subnormal total", `{"resources": ["cpu", "mem"], "totals": [100, 5e-324], "k": 1, "requests": [{"size": [1, 2]}]}`, solver.KindSchema, "/totals/1"},
		{"weighted cost overflows", `{"resources": ["cpu", "mem"], "totals": [1e-300, 1], "k": 1, "requests": [{"size": [1, 1], "weight": 1e15}]}`, solver.KindInvalid, "/requests/0/size/0"},
		{"capacity over a tiny total", `{"resources": ["cpu", "mem"], "totals": [1e-300, 1], "k": 1, "requests": [{"size": [0, 1]}], "node_types": [{"name": "a", "capacity": [1, 1]}]}`, solver.KindInvalid, "/node_types/0/capacity/0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xe := solvertest.ExpectError(t, p, []byte(c.body), c.kind)
			if c.pointer == "" {
				return
			}
			for _, v := range xe.Violations {
				if v.Pointer == c.pointer {
					return
				}
			}
			t.Fatalf("no violation at %s: %v", c.pointer, xe)
		})
	}
}

func TestGenerate(t *testing.T) {
	for _, dims := range []string{"1", "2", "3", "4"} {
		params := map[string]string{"requests": "400", "distinct": "40", "dims": dims, "k": "4", "epsilon": "0.3"}
		a, err := Generate(7, params)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(7, params)
		ra, _ := json.Marshal(a)
		rb, _ := json.Marshal(b)
		if string(ra) != string(rb) {
			t.Fatal("Generate is not deterministic")
		}
		out := solvertest.Check(t, Problem(), ra)
		w := checkResponse(t, ra, out)
		if !w.Result.Reached {
			t.Errorf("dims %s: ε %v not reached", dims, w.Result.Epsilon)
		}
	}
	if _, err := Generate(1, map[string]string{"dims": "9"}); err == nil {
		t.Error("dims 9 accepted")
	}
}

// The acceptance case at test size: 2D, K = 8, ε = 0.05 must be reached.
func TestEpsilonTarget2D(t *testing.T) {
	req, err := Generate(3, map[string]string{"requests": "2000", "distinct": "150", "k": "8", "epsilon": "0.05", "budget_ms": "20000"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(req)
	out, xe := solvertest.Run(t, Problem(), raw)
	if xe != nil {
		t.Fatal(xe)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	w := checkResponse(t, raw, m)
	if !w.Result.Reached || w.Result.Epsilon > 0.05 {
		t.Fatalf("ε %v not ≤ 0.05", w.Result.Epsilon)
	}
	if w.Meta.Status == solver.StatusTimeout {
		t.Fatalf("status timeout with the target reached")
	}
}

// Without ε the anytime loop runs until its schedule is exhausted, it
// proves optimality, or the budget ends; with a tiny budget it must still
// answer validly with status timeout.
func TestBudgetTimeout(t *testing.T) {
	req, _ := Generate(5, map[string]string{"requests": "3000", "distinct": "300", "dims": "3", "k": "8", "budget_ms": "30"})
	raw, _ := json.Marshal(req)
	out, xe := solvertest.Run(t, Problem(), raw)
	if xe != nil {
		t.Fatal(xe)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	w := checkResponse(t, raw, m)
	if w.Meta.Status != solver.StatusTimeout {
		t.Fatalf("status %s, want timeout", w.Meta.Status)
	}
}

func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		f.Add(b)
	}
	f.Add([]byte(`{"resources": ["a"], "totals": [1], "k": 1, "requests": [{"size": [1e308]}]}`))
	f.Add([]byte(`{"resources": ["a", "b"], "totals": [1, 1e-300], "k": 3, "requests": [{"size": [0, 0]}]}`))
	r, err := solver.NewRunner([]solver.Problem{Problem()}, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			doc["budget_ms"] = 50
			doc["baselines"] = false
			body, _ = json.Marshal(doc)
		}
		resp, err := r.Run(context.Background(), "xsize", body)
		if err != nil {
			if _, ok := err.(*solver.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("response does not marshal: %v", err)
		}
	})
}

// A 4D profile's grid joins cover far more than joinMaxCover pairs; the
// join level (exact, ρ = 1) still runs on them and its bound enters the
// answer's lower bound. (How far it lifts the bound depends on the CPU the
// budget gets; benchmarks/xsize measures it.)
func TestLargeGridJoinLevel(t *testing.T) {
	in, opts := profile4D(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := ptas.Solve(ctx, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	var joins *ptas.LevelStat
	for i, l := range res.Levels {
		if l.Family == ptas.FamilyJoins {
			joins = &res.Levels[i]
		}
	}
	if joins == nil {
		t.Fatalf("no grid-join level among %+v", res.Levels)
	}
	if res.LowerBound < joins.RayBound || res.LowerBound > res.Cost || res.Cost > joins.Cost {
		t.Fatalf("join level %+v, lower bound %v, cost %v", *joins, res.LowerBound, res.Cost)
	}
}

// profile4D is a generated 4D profile of 10,000 requests, K = 8.
func profile4D(t *testing.T) (*ptas.Instance, ptas.Options) {
	t.Helper()
	req, err := Generate(1, map[string]string{"requests": "10000", "distinct": "300", "dims": "4", "k": "8"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	in, opts, err := Instance(raw)
	if err != nil {
		t.Fatal(err)
	}
	return in, opts
}

// With ε = 0.05 asked in 4D no lattice with ρ ≤ 1.045 fits; Solve runs the
// coarse first level (ρ = 1.5) and the grid joins, whose bound certifies
// the target, instead of laying out the finest lattice that fits (~20,000
// rays, seconds).
func TestEpsilonTarget4D(t *testing.T) {
	in, opts := profile4D(t)
	opts.Epsilon = 0.05
	res, err := ptas.Solve(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Levels) != 2 || res.Levels[0].Rho != 1.5 || res.Levels[1].Family != ptas.FamilyJoins {
		t.Fatalf("levels %+v", res.Levels)
	}
	if res.Epsilon > opts.Epsilon || res.LowerBound > res.Cost {
		t.Fatalf("ε %v (cost %v, bound %v), want ≤ %v", res.Epsilon, res.Cost, res.LowerBound, opts.Epsilon)
	}
}
