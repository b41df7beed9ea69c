package lp

import (
	"math"
)

// presolveTol is the slack with which presolve treats a column as fixed and
// checks rows that lost all their entries: the engines' own primal
// tolerance (1e-7 in CLP/CBC) would accept those points anyway.
const presolveTol = 1e-9

// mipPresolve is the result of presolveMIP: a reduced model and what is
// needed to map its solutions back.
type mipPresolve struct {
	reduced    *Model
	cols       []int     // model index of each reduced column
	fixed      []float64 // value of each model column removed as fixed
	infeasible bool
}

// presolveMIP applies the classic safe reductions to a MIP before it goes to
// CBC: integer bounds rounded inward, fixed columns substituted into the rows
// and the objective offset, rows with a single entry turned into column
// bounds, rows left without entries checked and dropped, duplicate entries
// summed. It repeats until nothing changes. The reduced model has the same
// optimal value (its ObjOffset absorbs the fixed columns) and every
// solution of it maps back to one of the original model (postsolve).
//
// It exists because CBC 2.10.8 runs with its own preprocessing switched off
// (that preprocessing returns wrong optima, see solveMIP), and without it CBC
// aborts the whole process on an assertion (OsiClpSolverInterface::crunch)
// on models with rows that have a single entry or lose all their entries to
// fixed columns; the 5-column model with rows {−4·x0 = −8, 4·x0 + 3·x2 = 2}
// is one. With these reductions done first no abort was seen in the
// randomized cross-checks (tens of thousands of small MIPs). Duals are not
// needed for MIPs, so nothing here tracks them.
func presolveMIP(m *Model) *mipPresolve {
	ps := newPresolve(m)
	for changed := true; changed; {
		var ok bool
		if changed, ok = ps.fixColumns(); !ok {
			ps.p.infeasible = true
			return ps.p
		}
		rowsChanged, ok := ps.reduceRows()
		if !ok {
			ps.p.infeasible = true
			return ps.p
		}
		changed = changed || rowsChanged
	}
	ps.p.reduced = ps.reduced()
	return ps.p
}

// presolveEntry is one (summed) entry of a row.
type presolveEntry struct {
	col  int
	coef float64
}

// presolve is presolveMIP's working copy of the model: column and row
// bounds, rows with duplicate entries summed, the fixed columns and the
// objective offset they add.
type presolve struct {
	m        *Model
	p        *mipPresolve
	lo, up   []float64
	rows     [][]presolveEntry
	rlo, rup []float64
	fixed    []bool
	rowAlive []bool
	offset   float64
}

func newPresolve(m *Model) *presolve {
	n := len(m.Vars)
	ps := &presolve{m: m, p: &mipPresolve{fixed: make([]float64, n)}, lo: make([]float64, n), up: make([]float64, n),
		rows: make([][]presolveEntry, len(m.Rows)), rlo: make([]float64, len(m.Rows)), rup: make([]float64, len(m.Rows)),
		fixed: make([]bool, n), rowAlive: make([]bool, len(m.Rows)), offset: m.ObjOffset}
	for j, v := range m.Vars {
		ps.lo[j], ps.up[j] = v.Lower, v.Upper
	}
	for i, r := range m.Rows {
		pos := map[int]int{}
		for k, j := range r.Index {
			if p, ok := pos[j]; ok {
				ps.rows[i][p].coef += r.Coef[k]
				continue
			}
			pos[j] = len(ps.rows[i])
			ps.rows[i] = append(ps.rows[i], presolveEntry{j, r.Coef[k]})
		}
		ps.rlo[i], ps.rup[i] = r.Lower, r.Upper
		ps.rowAlive[i] = true
	}
	return ps
}

// fixColumns rounds integer bounds inward and fixes the columns whose
// bounds meet. It reports whether it fixed any, and false when some
// column's bounds cross (infeasible).
func (ps *presolve) fixColumns() (changed, ok bool) {
	lo, up := ps.lo, ps.up
	for j, v := range ps.m.Vars {
		if ps.fixed[j] {
			continue
		}
		if v.Integer {
			lo[j], up[j] = math.Ceil(lo[j]-intTol), math.Floor(up[j]+intTol)
		}
		if lo[j] > up[j]+presolveTol {
			return changed, false
		}
		if up[j]-lo[j] <= presolveTol {
			val := lo[j]
			ps.fixed[j], ps.p.fixed[j] = true, val
			ps.offset += v.Cost * val
			changed = true
		}
	}
	return changed, true
}

// reduceRows substitutes the fixed columns into the live rows and drops
// zero entries; a row left empty is checked and dropped, a row with one
// entry becomes that column's bounds. It reports whether a row went, and
// false when an empty row is violated (infeasible).
func (ps *presolve) reduceRows() (changed, ok bool) {
	for i := range ps.rows {
		if !ps.rowAlive[i] {
			continue
		}
		kept := ps.substitute(i)
		switch len(kept) {
		case 0:
			rlo, rup := ps.rlo[i], ps.rup[i]
			if rlo > presolveTol*(1+math.Abs(rlo)) || rup < -presolveTol*(1+math.Abs(rup)) {
				return changed, false
			}
			ps.rowAlive[i] = false
			changed = true
		case 1:
			e := kept[0]
			l, u := ps.rlo[i]/e.coef, ps.rup[i]/e.coef
			if e.coef < 0 {
				l, u = u, l
			}
			ps.lo[e.col] = math.Max(ps.lo[e.col], l)
			ps.up[e.col] = math.Min(ps.up[e.col], u)
			ps.rowAlive[i] = false
			changed = true
		}
	}
	return changed, true
}

// substitute moves row i's fixed columns into its bounds and drops its
// zero entries; it returns the entries left.
func (ps *presolve) substitute(i int) []presolveEntry {
	kept := ps.rows[i][:0]
	for _, e := range ps.rows[i] {
		switch {
		case e.coef == 0:
		case ps.fixed[e.col]:
			ps.rlo[i] -= e.coef * ps.p.fixed[e.col]
			ps.rup[i] -= e.coef * ps.p.fixed[e.col]
		default:
			kept = append(kept, e)
		}
	}
	ps.rows[i] = kept
	return kept
}

// reduced is the model of the columns not fixed and the rows left.
func (ps *presolve) reduced() *Model {
	m := ps.m
	r := &Model{Maximize: m.Maximize, ObjOffset: ps.offset}
	newCol := make([]int, len(m.Vars))
	for j, v := range m.Vars {
		newCol[j] = -1
		if ps.fixed[j] {
			continue
		}
		newCol[j] = len(r.Vars)
		ps.p.cols = append(ps.p.cols, j)
		r.Vars = append(r.Vars, Var{Name: v.Name, Lower: ps.lo[j], Upper: ps.up[j], Cost: v.Cost, Integer: v.Integer})
	}
	for i, es := range ps.rows {
		if !ps.rowAlive[i] {
			continue
		}
		row := Row{Name: m.Rows[i].Name, Lower: ps.rlo[i], Upper: ps.rup[i]}
		for _, e := range es {
			row.Index = append(row.Index, newCol[e.col])
			row.Coef = append(row.Coef, e.coef)
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// postsolve maps values of the reduced columns back to all model columns.
func (p *mipPresolve) postsolve(xr []float64) []float64 {
	x := make([]float64, len(p.fixed))
	copy(x, p.fixed)
	for k, j := range p.cols {
		x[j] = xr[k]
	}
	return x
}
