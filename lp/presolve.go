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
	n := len(m.Vars)
	lo := make([]float64, n)
	up := make([]float64, n)
	for j, v := range m.Vars {
		lo[j], up[j] = v.Lower, v.Upper
	}
	type entry struct {
		col  int
		coef float64
	}
	rows := make([][]entry, len(m.Rows))
	rlo := make([]float64, len(m.Rows))
	rup := make([]float64, len(m.Rows))
	for i, r := range m.Rows {
		pos := map[int]int{}
		for k, j := range r.Index {
			if p, ok := pos[j]; ok {
				rows[i][p].coef += r.Coef[k]
				continue
			}
			pos[j] = len(rows[i])
			rows[i] = append(rows[i], entry{j, r.Coef[k]})
		}
		rlo[i], rup[i] = r.Lower, r.Upper
	}
	fixed := make([]bool, n)
	rowAlive := make([]bool, len(m.Rows))
	for i := range rowAlive {
		rowAlive[i] = true
	}
	p := &mipPresolve{fixed: make([]float64, n)}
	offset := m.ObjOffset
	for changed := true; changed; {
		changed = false
		for j, v := range m.Vars {
			if fixed[j] {
				continue
			}
			if v.Integer {
				lo[j], up[j] = math.Ceil(lo[j]-intTol), math.Floor(up[j]+intTol)
			}
			if lo[j] > up[j]+presolveTol {
				p.infeasible = true
				return p
			}
			if up[j]-lo[j] <= presolveTol {
				val := lo[j]
				fixed[j], p.fixed[j] = true, val
				offset += v.Cost * val
				changed = true
			}
		}
		for i := range rows {
			if !rowAlive[i] {
				continue
			}
			// Substitute fixed columns and drop zero entries.
			kept := rows[i][:0]
			for _, e := range rows[i] {
				switch {
				case e.coef == 0:
				case fixed[e.col]:
					rlo[i] -= e.coef * p.fixed[e.col]
					rup[i] -= e.coef * p.fixed[e.col]
				default:
					kept = append(kept, e)
				}
			}
			rows[i] = kept
			switch len(kept) {
			case 0:
				if rlo[i] > presolveTol*(1+math.Abs(rlo[i])) || rup[i] < -presolveTol*(1+math.Abs(rup[i])) {
					p.infeasible = true
					return p
				}
				rowAlive[i] = false
				changed = true
			case 1:
				e := kept[0]
				l, u := rlo[i]/e.coef, rup[i]/e.coef
				if e.coef < 0 {
					l, u = u, l
				}
				lo[e.col] = math.Max(lo[e.col], l)
				up[e.col] = math.Min(up[e.col], u)
				rowAlive[i] = false
				changed = true
			}
		}
	}
	r := &Model{Maximize: m.Maximize, ObjOffset: offset}
	newCol := make([]int, n)
	for j, v := range m.Vars {
		newCol[j] = -1
		if fixed[j] {
			continue
		}
		newCol[j] = len(r.Vars)
		p.cols = append(p.cols, j)
		r.Vars = append(r.Vars, Var{Name: v.Name, Lower: lo[j], Upper: up[j], Cost: v.Cost, Integer: v.Integer})
	}
	for i, es := range rows {
		if !rowAlive[i] {
			continue
		}
		row := Row{Name: m.Rows[i].Name, Lower: rlo[i], Upper: rup[i]}
		for _, e := range es {
			row.Index = append(row.Index, newCol[e.col])
			row.Coef = append(row.Coef, e.coef)
		}
		r.Rows = append(r.Rows, row)
	}
	p.reduced = r
	return p
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
