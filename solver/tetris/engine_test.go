package tetris

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xflex/xflex/vecpack"
)

// relTol compares sums of a few hundred products of numbers in [0, 10]:
// round-off is ~1e-13 relative.
const relTol = 1e-9

func randInstance(rng *rand.Rand, nm, ng, nj, d int) ([]Machine, []*Group, []Job) {
	ms := make([]Machine, nm)
	for i := range ms {
		c := make([]float64, d)
		f := make([]float64, d)
		for k := range c {
			c[k] = 1 + float64(rng.IntN(10))
			f[k] = math.Round(c[k]*rng.Float64()*10) / 10
		}
		ms[i] = Machine{Cap: c, Free: f}
	}
	gs := make([]*Group, ng)
	for i := range gs {
		dem := make([]float64, d)
		for k := range dem {
			dem[k] = float64(rng.IntN(4))
		}
		gs[i] = &Group{Job: rng.IntN(nj), Demand: dem, Count: 1 + rng.IntN(3), Promoted: rng.IntN(4) == 0}
	}
	js := make([]Job, nj)
	for j := range js {
		js[j] = Job{Alloc: make([]float64, d), Weight: 1, Work: rng.Float64() * 5}
	}
	return ms, gs, js
}

// AutoEpsilon's closed form of ā against the average over every (task,
// machine) pair computed pair by pair.
func TestAutoEpsilonMatchesPairAverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for it := 0; it < 200; it++ {
		ms, gs, js := randInstance(rng, 1+rng.IntN(5), 1+rng.IntN(6), 1+rng.IntN(3), 1+rng.IntN(4))
		sum, n := 0.0, 0
		pend := map[int]bool{}
		for _, g := range gs {
			pend[g.Job] = true
			for c := 0; c < g.Count; c++ {
				for _, m := range ms {
					nd := make([]float64, len(g.Demand))
					nf := make([]float64, len(g.Demand))
					for k := range nd {
						nd[k], nf[k] = g.Demand[k]/m.Cap[k], m.Free[k]/m.Cap[k]
					}
					s := 0.0
					for k := range nd {
						s += nd[k] * nf[k]
					}
					sum += s
					n++
				}
			}
		}
		pbar, nj := 0.0, 0
		for j := range pend {
			pbar += js[j].Work
			nj++
		}
		pbar /= float64(nj)
		want := sum / float64(n) / pbar
		got := AutoEpsilon(ms, gs, js, nil)
		if math.Abs(got-want) > relTol*math.Max(1, want) {
			t.Fatalf("AutoEpsilon %v, pair average gives %v", got, want)
		}
	}
}

// With f = 0, ε = 0 and no promoted stage, every pick on a machine is the
// task with the highest alignment among those that fit, ties to the lower
// group: checked by recomputing all alignments before each pick.
func TestRoundPicksBestAlignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for it := 0; it < 300; it++ {
		ms, gs, js := randInstance(rng, 1+rng.IntN(3), 1+rng.IntN(6), 1+rng.IntN(3), 1+rng.IntN(4))
		for _, g := range gs {
			g.Promoted = false
		}
		counts := make([]int, len(gs))
		for i, g := range gs {
			counts[i] = g.Count
		}
		free := make([][]float64, len(ms))
		for i, m := range ms {
			free[i] = append([]float64(nil), m.Free...)
		}
		order := rng.Perm(len(ms))
		total := make([]float64, len(ms[0].Cap))
		ps, err := Round(context.Background(), ms, order, gs, js, Config{Total: total, Roles: Roles{-1, -1, -1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			m := p.Machine
			best, bestG := math.Inf(-1), -1
			for gi, g := range gs {
				if counts[gi] == 0 {
					continue
				}
				nd := make([]float64, len(g.Demand))
				nf := make([]float64, len(g.Demand))
				for k := range nd {
					nd[k], nf[k] = g.Demand[k]/ms[m].Cap[k], free[m][k]/ms[m].Cap[k]
				}
				if !fits(g.Demand, free[m], ms[m].Cap) {
					continue
				}
				if a := vecpack.Alignment(nd, nf); a > best+relTol {
					best, bestG = a, gi
				}
			}
			if bestG < 0 || math.Abs(p.Alignment-best) > relTol {
				t.Fatalf("picked group %d (alignment %v) on machine %d; best is group %d with %v", p.Group, p.Alignment, m, bestG, best)
			}
			counts[p.Group]--
			for k, x := range gs[p.Group].Demand {
				free[m][k] -= x
			}
		}
		// Afterwards nothing fits anywhere.
		for gi, g := range gs {
			if counts[gi] == 0 {
				continue
			}
			for m := range ms {
				if fits(g.Demand, free[m], ms[m].Cap) {
					t.Fatalf("group %d still fits machine %d after the round", gi, m)
				}
			}
		}
	}
}

// bestMachines is the prefix of a stable sort of the machines by metric,
// ties (frequent here) by index.
func TestBestMachinesIsStableSortPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for it := 0; it < 2000; it++ {
		metric := make([]float64, 1+rng.IntN(30))
		for m := range metric {
			metric[m] = float64(rng.IntN(5))
			if rng.IntN(10) == 0 {
				metric[m] = absentMetric
			}
		}
		order := make([]int, len(metric))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return metric[order[a]] < metric[order[b]] })
		k := 1 + rng.IntN(len(metric))
		if got := bestMachines(metric, k); !slices.Equal(got, order[:k]) {
			t.Fatalf("metric %v, k %d: got %v, want %v", metric, k, got, order[:k])
		}
	}
}

// fits reports whether demand ≤ fitLimit(free, capacity) componentwise, in
// raw units: the engine's test on normalised amounts, made independently.
func fits(demand, free, capacity []float64) bool {
	for k, d := range demand {
		if d > fitLimit(free[k], capacity[k]) {
			return false
		}
	}
	return true
}

// TestRoundRefusesOversize: the round keeps counts in 32 bits, so a round
// of 2³¹ tasks is refused instead of wrapping.
func TestRoundRefusesOversize(t *testing.T) {
	ms := []Machine{{Cap: []float64{1}, Free: []float64{1}}}
	js := []Job{{Alloc: []float64{0}, Weight: 1}}
	cfg := Config{Total: []float64{1}, Roles: Roles{-1, -1, -1}}
	for _, n := range []int{maxRoundSize - 1, maxRoundSize, math.MaxInt} {
		// Never fits; a second group would wrap a sum taken before the check.
		gs := []*Group{{Job: 0, Demand: []float64{2}, Count: n}, {Job: 0, Demand: []float64{2}, Count: math.MaxInt}}
		if n < maxRoundSize {
			gs = gs[:1]
		}
		_, err := Round(context.Background(), ms, []int{0}, gs, js, cfg)
		if (err != nil) != (n >= maxRoundSize) {
			t.Fatalf("Count %d: err = %v", n, err)
		}
	}
}

// TestRoundMethodSet keeps the round a chain of small steps: round itself
// has at most 15 methods (it has no embedded fields, so that is its whole
// method set); the steps' work lives on their own types.
func TestRoundMethodSet(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, f := range pkgs["tetris"].Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			typ := fd.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "round" {
				methods = append(methods, fd.Name.Name)
			}
		}
	}
	if len(methods) == 0 || len(methods) > 15 {
		t.Errorf("round has %d methods, want 1 to 15: %v", len(methods), methods)
	}
	var embedded []string
	for _, f := range pkgs["tetris"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "round" {
				return true
			}
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				if len(fld.Names) == 0 {
					embedded = append(embedded, fmt.Sprint(fld.Type))
				}
			}
			return false
		})
	}
	if len(embedded) > 0 {
		t.Errorf("round embeds %v: their methods would join its method set", embedded)
	}
}
