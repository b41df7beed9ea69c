package cmmf

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/xflex/xflex/flow"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestIntegerMatchesBruteForce: the batched greedy's sorted share vector
// equals the best found by enumerating every machine assignment, compared
// exactly as rationals.
func TestIntegerMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 700
	if testing.Short() {
		n = 150
	}
	for it := 0; it < n; it++ {
		in := randInstance(r, false, 3, 3, 4)
		a := solveFlow(t, in)
		checkValid(t, in, a)
		want, _ := bruteInteger(in)
		got := ratShares(in, intTotals(a))
		if cmpLex(got, want) != 0 {
			t.Fatalf("instance %d: greedy %v, brute force %v\n%+v", it, got, want, in)
		}
	}
}

// TestDivisibleFlowMatchesLP: parametric max-flow and iterative LP
// (Algorithm 1) give the same leximin vector and the same rounds.
func TestDivisibleFlowMatchesLP(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	n := 2000
	if testing.Short() {
		n = 300
	}
	// lpAgree: both methods are exact; CLP's vertex solutions on these
	// small integral instances are accurate to ~1e-12.
	const lpAgree = 1e-9
	for it := 0; it < n; it++ {
		in := randInstance(r, true, 5, 8, 6)
		a := solveFlow(t, in)
		checkValid(t, in, a)
		b, err := solveDivisibleLP(context.Background(), in)
		if err != nil {
			t.Fatalf("instance %d: LP: %v", it, err)
		}
		checkValid(t, in, b)
		la, lb := a.Leximin(in), b.Leximin(in)
		for k := range la {
			if math.Abs(la[k]-lb[k]) > lpAgree*math.Max(1, math.Abs(la[k])) {
				t.Fatalf("instance %d: flow leximin %v, LP %v\n%+v", it, la, lb, in)
			}
		}
		for i := range in.Users {
			if math.Abs(a.Level[i]-b.Level[i]) > lpAgree*math.Max(1, a.Level[i]) || a.Capped[i] != b.Capped[i] {
				t.Fatalf("instance %d user %d: flow level %v capped %v, LP level %v capped %v", it, i, a.Level[i], a.Capped[i], b.Level[i], b.Capped[i])
			}
		}
	}
}

// TestSharingIncentive: users who each bring k_i machines they can use,
// weighted by k_i, get at least k_i (Theorem 2), divisible and integer.
func TestSharingIncentive(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for it := 0; it < 300; it++ {
		nu := 1 + r.IntN(5)
		var caps []int64
		var us []uspec
		for i := 0; i < nu; i++ {
			caps = append(caps, int64(1+r.IntN(5)))
		}
		extra := r.IntN(3)
		for e := 0; e < extra; e++ {
			caps = append(caps, int64(r.IntN(4)))
		}
		for i := 0; i < nu; i++ {
			al := []int{i}
			for tt := range caps {
				if tt != i && r.Float64() < 0.4 {
					al = append(al, tt)
				}
			}
			us = append(us, uspec{w: float64(caps[i]), allowed: al})
		}
		for _, div := range []bool{true, false} {
			in := mk(caps, div, us...)
			a := solveFlow(t, in)
			for i := range us {
				if a.Total[i] < float64(caps[i])-feasTol {
					t.Fatalf("instance %d divisible=%v: user %d brought %d machines but got %v", it, div, i, caps[i], a.Total[i])
				}
			}
		}
	}
}

// TestStrategyProof: a user who misreports the types it can use never
// ends up with more machines it can actually use (Theorem 3), divisible
// and integer.
func TestStrategyProof(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for it := 0; it < 400; it++ {
		div := it%2 == 0
		in := randInstance(r, div, 4, 4, 4)
		truth := solveFlow(t, in)
		liar := r.IntN(len(in.Users))
		var lie []int
		for tt := range in.Types {
			if r.Float64() < 0.5 {
				lie = append(lie, tt)
			}
		}
		lied := mk(nil, div)
		*lied = *in
		lied.Users = append([]UserSpec(nil), in.Users...)
		lied.Users[liar].Allowed = lie
		b := solveFlow(t, lied)
		useful := 0.0
		for k, tt := range lie {
			for _, real := range in.Users[liar].Allowed {
				if real == tt {
					useful += b.Amount[liar][k]
				}
			}
		}
		if useful > truth.Total[liar]+feasTol {
			t.Fatalf("instance %d (divisible=%v): user %d gains by claiming %v instead of %v: %v > %v\n%+v", it, div, liar, lie, in.Users[liar].Allowed, useful, truth.Total[liar], in)
		}
	}
}

// TestSelectKeyMatchesHeap: the bisection-plus-exact selection of the R-th
// unit agrees with the plain k-way merge, on few members and on hundreds
// (where many units tie on share and the answer is picked by position).
func TestSelectKeyMatchesHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	mixed := []float64{1, 2, 3, 0.1, 0.7, 1.0 / 3, 1e-3, 5e4, 1.25}
	for it := 0; it < 600; it++ {
		nu, weights := 1+r.IntN(6), mixed
		if it%3 == 0 {
			nu = 50 + r.IntN(300)
		}
		if it%6 == 0 {
			weights = []float64{1, 2}
		}
		in := &Instance{}
		s := &intSolver{in: in}
		var members []int
		var total int64
		for i := 0; i < nu; i++ {
			in.Users = append(in.Users, UserSpec{Weight: weights[r.IntN(len(weights))]})
			s.lim = append(s.lim, int64(r.IntN(40)))
			members = append(members, i)
			total += s.lim[i]
		}
		if total == 0 {
			continue
		}
		R := 1 + r.Int64N(total)
		got, want := s.selectKey(members, R), s.selectByHeap(members, R)
		if got != want {
			t.Fatalf("instance %d: R=%d select %+v, heap %+v", it, R, got, want)
		}
	}
}

// TestCmpFracExact compares cmpFrac with big.Rat arithmetic, including
// near-ties that defeat float64 products.
func TestCmpFracExact(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	ws := []float64{1, 2, 3, 0.1, 0.3, 1.0 / 3, 1e-9, 1e15, 0.7, 1 + 1e-15}
	for it := 0; it < 20000; it++ {
		k1, k2 := r.Int64N(1<<40), r.Int64N(1<<40)
		w1, w2 := ws[r.IntN(len(ws))], ws[r.IntN(len(ws))]
		if it%3 == 0 {
			k2 = k1 + r.Int64N(3) - 1
		}
		x := new(big.Rat).Quo(new(big.Rat).SetInt64(k1), new(big.Rat).SetFloat64(w1))
		y := new(big.Rat).Quo(new(big.Rat).SetInt64(k2), new(big.Rat).SetFloat64(w2))
		if got, want := cmpFrac(k1, w1, k2, w2), x.Cmp(y); got != want {
			t.Fatalf("cmpFrac(%d/%v, %d/%v) = %d, want %d", k1, w1, k2, w2, got, want)
		}
	}
}

// unitGreedy is the unbatched greedy the batched solver implements:
// process units in key order, accept a unit iff one more augmenting path
// exists. It is slow (one max-flow step per machine) and shares no code
// with the rounds, Newton search or selection of solveIntegerFlow.
func unitGreedy(in *Instance) []int64 {
	n := len(in.Users)
	g := flow.NewNetwork[int64](2 + n + len(in.Types))
	src := make([]int, n)
	for i, u := range in.Users {
		src[i] = g.AddEdge(0, 2+i, 0)
		for _, tt := range u.Allowed {
			g.AddEdge(2+i, 2+n+tt, 1<<40)
		}
	}
	for tt, ty := range in.Types {
		g.AddEdge(2+n+tt, 1, ty.Cap)
	}
	s := &intSolver{in: in}
	h := &keyHeap{s: s}
	x := make([]int64, n)
	for i, u := range in.Users {
		if u.Demand >= 1 {
			h.keys = append(h.keys, unitKey{k: 0, u: i})
		}
	}
	heap.Init(h)
	var total int64
	for h.Len() > 0 {
		k := heap.Pop(h).(unitKey)
		i := k.u
		// Try one more unit for i: raise its source arc and augment.
		g.SetCap(src[i], x[i]+1)
		g.ClearFlow()
		if g.MaxFlow(0, 1) == total+1 {
			x[i]++
			total++
			if float64(x[i]+1) <= in.Users[i].Demand {
				heap.Push(h, unitKey{k: x[i], u: i})
			}
		} else {
			g.SetCap(src[i], x[i])
		}
	}
	return x
}

// TestIntegerMatchesUnitGreedy checks the batched integer solver against
// the unit-at-a-time greedy on instances too large for enumeration, with
// arbitrary float weights and demands.
func TestIntegerMatchesUnitGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	n := 300
	if testing.Short() {
		n = 50
	}
	for it := 0; it < n; it++ {
		in := &Instance{}
		nt, nu := 1+r.IntN(6), 1+r.IntN(20)
		for k := 0; k < nt; k++ {
			in.Types = append(in.Types, Type{Name: "t", Cap: int64(r.IntN(80))})
		}
		for i := 0; i < nu; i++ {
			var al []int
			for k := 0; k < nt; k++ {
				if r.Float64() < 0.5 {
					al = append(al, k)
				}
			}
			d := math.Inf(1)
			if r.Float64() < 0.3 {
				d = float64(r.IntN(30))
			}
			w := []float64{1, 2, 0.1 + 3*r.Float64(), 0.5}[r.IntN(4)]
			in.Users = append(in.Users, UserSpec{Name: "u", Weight: w, Demand: d, Allowed: al})
		}
		a := solveFlow(t, in)
		checkValid(t, in, a)
		want := ratShares(in, unitGreedy(in))
		if got := ratShares(in, intTotals(a)); cmpLex(got, want) != 0 {
			t.Fatalf("instance %d: batched %v, unit greedy %v", it, got, want)
		}
	}
}

// TestCertificateExact: on small instances the exchange certificate
// accepts exactly the leximin-optimal allocations among all feasible ones
// (every assignment of machines is enumerated), and it accepts every
// allocation the solver returns.
func TestCertificateExact(t *testing.T) {
	r := rand.New(rand.NewPCG(111, 112))
	for it := 0; it < 300; it++ {
		in := randInstance(r, false, 3, 2, 3)
		best, _ := bruteInteger(in)
		if err := Certify(in, solveFlow(t, in)); err != nil {
			t.Fatalf("instance %d: solver allocation rejected: %v", it, err)
		}
		var machines []int
		for tt, ty := range in.Types {
			for k := int64(0); k < ty.Cap; k++ {
				machines = append(machines, tt)
			}
		}
		assign := make([]int, len(machines))
		var rec func(m int)
		rec = func(m int) {
			if m == len(machines) {
				a := newAllocation(in)
				tot := make([]int64, len(in.Users))
				for k, who := range assign {
					if who < 0 {
						continue
					}
					tot[who]++
					a.Amount[who][sortSearch(in.Users[who].Allowed, machines[k])]++
				}
				for i := range tot {
					if float64(tot[i]) > in.Users[i].Demand {
						return
					}
					a.Total[i] = float64(tot[i])
				}
				optimal := cmpLex(ratShares(in, tot), best) == 0
				if err := Certify(in, a); (err == nil) != optimal {
					t.Fatalf("instance %d: totals %v optimal=%v but certificate says %v\n%+v", it, tot, optimal, err, in)
				}
				return
			}
			assign[m] = -1
			rec(m + 1)
			for i, u := range in.Users {
				if contains(u.Allowed, machines[m]) {
					assign[m] = i
					rec(m + 1)
				}
			}
		}
		rec(0)
	}
}

func sortSearch(a []int, v int) int {
	for k, x := range a {
		if x == v {
			return k
		}
	}
	return -1
}

// TestDivisibleCertificate: the certificate accepts every divisible
// answer of both methods and rejects a perturbed one (moving a little of a
// machine between two users changes totals, and divisible optima have
// unique totals).
func TestDivisibleCertificate(t *testing.T) {
	r := rand.New(rand.NewPCG(121, 122))
	rejected := 0
	for it := 0; it < 300; it++ {
		in := randInstance(r, true, 4, 6, 5)
		a := solveFlow(t, in)
		if err := Certify(in, a); err != nil {
			t.Fatalf("instance %d: flow answer rejected: %v", it, err)
		}
		b, err := solveDivisibleLP(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if err := Certify(in, b); err != nil {
			t.Fatalf("instance %d: LP answer rejected: %v", it, err)
		}
		// Move 0.25 of a type from one user to another that can use it.
		moved := false
		for i := range in.Users {
			for k, tt := range in.Users[i].Allowed {
				if a.Amount[i][k] < 0.25 || moved {
					continue
				}
				for j := range in.Users {
					if j == i || moved || a.Total[j]+0.25 > in.Users[j].Demand {
						continue
					}
					if kj := sortSearch(in.Users[j].Allowed, tt); kj >= 0 {
						a.Amount[i][k] -= 0.25
						a.Amount[j][kj] += 0.25
						a.Total[i] -= 0.25
						a.Total[j] += 0.25
						moved = true
					}
				}
			}
		}
		if moved {
			if Certify(in, a) == nil {
				t.Fatalf("instance %d: perturbed allocation accepted", it)
			}
			rejected++
		}
	}
	if rejected < 100 {
		t.Fatalf("only %d perturbations tried", rejected)
	}
}

// TestIntegerLPMatchesBruteForce: the LP-driven whole-machine method gives
// the brute-force optimum too (and so agrees with the flow method).
func TestIntegerLPMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(131, 132))
	n := 250
	if testing.Short() {
		n = 60
	}
	for it := 0; it < n; it++ {
		in := randInstance(r, false, 3, 3, 4)
		a, err := solveIntegerLP(context.Background(), in)
		if err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		checkValid(t, in, a)
		if err := Certify(in, a); err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		want, _ := bruteInteger(in)
		if got := ratShares(in, intTotals(a)); cmpLex(got, want) != 0 {
			t.Fatalf("instance %d: LP %v, brute force %v", it, got, want)
		}
		b := solveFlow(t, in)
		for i := range in.Users {
			if a.Level[i] != b.Level[i] || a.Capped[i] != b.Capped[i] {
				t.Fatalf("instance %d user %d: LP level %v capped %v, flow %v %v", it, i, a.Level[i], a.Capped[i], b.Level[i], b.Capped[i])
			}
		}
	}
}

// TestExtremeWeightsOnHugeCounts: with 1e9 machines and weights 1e6 and
// 1e-6 the whole-machine selection's share level times a weight reached
// 1e21, past int64; the conversion wrapped a unit index to −2^63 and the
// candidate loop ran out of memory (robustness sweep, method lp). Both
// methods must give the leximin allocation: the light user every machine
// but one (share 999.999999 < 1e6 = the heavy user's share of one).
func TestExtremeWeightsOnHugeCounts(t *testing.T) {
	for _, method := range []string{"lp", "flow"} {
		t.Run(method, func(t *testing.T) {
			body := `{"divisible": false, "method": "` + method + `", "machine_types": [{"count": 1000000000, "name": "node"}],
				"users": [{"name": "light", "weight": 1e6}, {"name": "heavy", "weight": 1e-6}]}`
			out := solvertest.Check(t, Problem(), []byte(body))
			users := out["result"].(map[string]any)["users"].([]any)
			got := []float64{users[0].(map[string]any)["total"].(float64), users[1].(map[string]any)["total"].(float64)}
			if got[0] != 999999999 || got[1] != 1 {
				t.Fatalf("totals %v, want [999999999 1]", got)
			}
		})
	}
}

// TestIssue15LPAtSchemaMaxCounts: the example with every count at the
// schema's maximum (1e9), method lp, divisible, answered 500 "LP ended
// infeasible": the level read off one LP, fed back as a bound, lay two
// ulps above what the machines supported, beyond CLP's absolute
// tolerance. Every method and mode must now certify it.
func TestIssue15LPAtSchemaMaxCounts(t *testing.T) {
	raw, err := os.ReadFile("../../examples/cmmf.json")
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	for _, mt := range req["machine_types"].([]any) {
		mt.(map[string]any)["count"] = 1000000000
	}
	for _, method := range []string{MethodLP, MethodFlow} {
		for _, divisible := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/divisible=%v", method, divisible), func(t *testing.T) {
				req["method"], req["divisible"] = method, divisible
				body, err := json.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				solvertest.Check(t, Problem(), body)
			})
		}
	}
}

// TestLargeCountsAllMethods: random instances with counts up to the
// schema's 1e9, small types beside them and weights across the schema's
// range (1e-6 to 1e6), whole and divisible machines, by flow and by LP.
// Every answer must pass the optimality certificate (SolveInstance checks
// it), and the two methods' totals must agree within the accuracy they
// claim in machines. Before the fixes a quarter of the divisible ones
// failed: LP infeasible or "froze nobody", the flow's level of a light
// user 14 machines short (cancellation in solveLevel), "made no progress".
func TestLargeCountsAllMethods(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	weights := []float64{1e-6, 1e-3, 0.3, 1, 2, 3, 1e3, 1e6}
	n := 300
	if testing.Short() {
		n = 80
	}
	for it := 0; it < n; it++ {
		nt := 1 + r.IntN(5)
		caps := make([]int64, nt)
		for k := range caps {
			switch r.IntN(4) {
			case 0:
				caps[k] = 1e9
			case 1:
				caps[k] = r.Int64N(1e9 + 1)
			case 2:
				caps[k] = r.Int64N(10)
			default:
				caps[k] = 1e9 - r.Int64N(3)
			}
		}
		var us []uspec
		for i := 0; i < 1+r.IntN(6); i++ {
			var al []int
			for k := 0; k < nt; k++ {
				if r.Float64() < 0.6 {
					al = append(al, k)
				}
			}
			x := uspec{w: weights[r.IntN(len(weights))], allowed: al}
			if r.Float64() < 0.3 {
				x.capped, x.d = true, math.Floor(r.Float64()*2e9)
			}
			us = append(us, x)
		}
		in := mk(caps, it%2 == 0, us...)
		var got []*Allocation
		for _, method := range []string{MethodFlow, MethodLP} {
			a, err := SolveAllocation(context.Background(), in, method)
			if err == nil {
				err = Certify(in, a)
			}
			if err != nil {
				t.Fatalf("instance %d, %s: %v\n%+v", it, method, err, in)
			}
			got = append(got, a)
		}
		slack := 2 * max(got[0].Slack, got[1].Slack, certTol*float64(1e9), 1e-6)
		for i := range in.Users {
			if d := math.Abs(got[0].Total[i] - got[1].Total[i]); d > slack {
				t.Fatalf("instance %d user %d: flow total %v, LP %v (slack %v)\n%+v", it, i, got[0].Total[i], got[1].Total[i], slack, in)
			}
		}
	}
}
