package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// warmObjTol: a warm and a cold optimum of the same LP agree to the
// backends' tolerances (≈1e-9 on O(10) data), far inside this.
const warmObjTol = 1e-7

// randomGrowingLP builds a random LP with some columns and returns it
// with a generator for further batches of columns. Row bounds bracket the
// activity of a point with the initial columns inside their bounds and every
// added column at 0, so every model in the sequence is feasible; some
// columns are unbounded above, so some models are unbounded.
func randomGrowingLP(rng *rand.Rand) (*Model, func() (lo, up, cost float64, rows []int, coef []float64)) {
	m := NewModel()
	m.Maximize = rng.IntN(2) == 0
	nRows := 1 + rng.IntN(8)
	nCols := rng.IntN(6)
	x0 := make([]float64, nCols)
	col := func() (lo, up, cost float64, rows []int, coef []float64) {
		up = math.Round(rng.Float64()*10) + 1
		if rng.IntN(8) == 0 {
			up = Inf
		}
		cost = math.Round(rng.NormFloat64()*50) / 10
		for i := 0; i < nRows; i++ {
			if rng.IntN(3) > 0 {
				rows = append(rows, i)
				coef = append(coef, math.Round(rng.NormFloat64()*30)/10)
			}
		}
		if len(rows) > 0 && rng.IntN(5) == 0 {
			// A duplicate entry (AddCol sums them).
			rows = append(rows, rows[0])
			coef = append(coef, 1)
		}
		return 0, up, cost, rows, coef
	}
	type entry struct {
		rows []int
		coef []float64
	}
	var cols []entry
	for j := 0; j < nCols; j++ {
		lo, up, cost, rows, coef := col()
		m.AddVar("", lo, up, cost, false)
		x0[j] = rng.Float64() * math.Min(up, 10)
		cols = append(cols, entry{rows, coef})
	}
	act := make([]float64, nRows)
	idx := make([][]int, nRows)
	val := make([][]float64, nRows)
	for j, c := range cols {
		for k, i := range c.rows {
			act[i] += c.coef[k] * x0[j]
			idx[i] = append(idx[i], j)
			val[i] = append(val[i], c.coef[k])
		}
	}
	for i := 0; i < nRows; i++ {
		lo, up := act[i]-rng.Float64()*3, act[i]+rng.Float64()*3
		switch rng.IntN(4) {
		case 0:
			lo = -Inf
		case 1:
			up = Inf
		}
		m.AddRow("", idx[i], val[i], lo, up)
	}
	return m, col
}

// TestIncrementalMatchesCold re-solves random LPs warm after each batch of
// added columns and compares every answer with a cold Solve of a copy of
// the same model.
func TestIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	for _, backend := range Backends() {
		rng := rand.New(rand.NewPCG(7, 11))
		optimal, warmAnswers := 0, 0
		for inst := 0; inst < 200; inst++ {
			m, col := randomGrowingLP(rng)
			inc, err := NewIncremental(m, Options{Backend: backend})
			if err != nil {
				t.Fatal(err)
			}
			for batch := 0; batch < 5; batch++ {
				if batch > 0 {
					for k := 1 + rng.IntN(4); k > 0; k-- {
						lo, up, cost, rows, coef := col()
						inc.AddCol("", lo, up, cost, rows, coef)
					}
				}
				if batch == 3 && inst%2 == 0 {
					// Every other instance drops its basis once: the
					// next solve starts from scratch and must agree too.
					inc.Reset()
				}
				warm, err := inc.Solve(ctx)
				if err != nil {
					t.Fatal(err)
				}
				cold, err := Solve(ctx, copyModel(inc.Model()), Options{Backend: backend})
				if err != nil {
					t.Fatal(err)
				}
				if warm.Status != cold.Status {
					t.Fatalf("%s instance %d batch %d: warm %v, cold %v", backend, inst, batch, warm.Status, cold.Status)
				}
				if warm.Status != Optimal {
					continue
				}
				optimal++
				if d := math.Abs(warm.Objective - cold.Objective); d > warmObjTol*math.Max(1, math.Abs(cold.Objective)) {
					t.Fatalf("%s instance %d batch %d: warm objective %.12g, cold %.12g", backend, inst, batch, warm.Objective, cold.Objective)
				}
				if err := Verify(inc.Model(), warm, VerifyTol); err != nil {
					t.Fatalf("%s instance %d batch %d: warm answer fails Verify: %v", backend, inst, batch, err)
				}
			}
			warmAnswers += inc.warmAnswers
			inc.Close()
		}
		// With coin most optimal answers must come from the kept CLP
		// model, or the warm path would be dead code.
		if backend == BackendCoin && warmAnswers < optimal/2 {
			t.Fatalf("coin: only %d of %d optimal answers warm", warmAnswers, optimal)
		}
		t.Logf("%s: %d optimal, %d answered warm", backend, optimal, warmAnswers)
		// The generator must mostly produce bounded LPs, or the
		// comparison of objectives would be vacuous.
		if optimal < 500 {
			t.Fatalf("%s: only %d of 1000 solves optimal", backend, optimal)
		}
	}
}

// TestIncrementalErrors covers the handle's error paths.
func TestIncrementalErrors(t *testing.T) {
	if _, err := NewIncremental(nil, Options{}); err == nil {
		t.Fatal("nil model accepted")
	}
	mip := NewModel()
	mip.AddVar("", 0, 1, 1, true)
	if _, err := NewIncremental(mip, Options{}); err == nil {
		t.Fatal("MIP accepted")
	}
	m := NewModel()
	m.AddVar("", 0, 1, 1, false)
	m.AddRow("", []int{0}, []float64{1}, 0, 1)
	inc, err := NewIncremental(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inc.AddCol("", 0, 1, 1, []int{3}, []float64{1})
	if _, err := inc.Solve(context.Background()); err == nil {
		t.Fatal("out-of-range row accepted")
	}
	inc.Close()
	if _, err := inc.Solve(context.Background()); err == nil {
		t.Fatal("solve after Close accepted")
	}
}

func copyModel(m *Model) *Model {
	c := &Model{Maximize: m.Maximize, ObjOffset: m.ObjOffset, Vars: append([]Var(nil), m.Vars...)}
	for _, r := range m.Rows {
		c.AddRow(r.Name, r.Index, r.Coef, r.Lower, r.Upper)
	}
	return c
}
