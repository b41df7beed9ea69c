package cmmf

import (
	"math"
	"sort"
)

// Result is the wire format of a CMMF answer (schemas/cmmf.response.json).
type Result struct {
	Divisible bool         `json:"divisible"`
	Users     []UserResult `json:"users"`
	Rounds    []RoundOut   `json:"rounds"`
	// Moved counts machines (or fractions) that change user relative to
	// the request's current allocation.
	Moved float64 `json:"moved"`
	// Assignment maps each allocated individual machine to its user
	// (integer allocations of machines requests only).
	Assignment  map[string]string `json:"assignment,omitempty"`
	Leximin     []float64         `json:"leximin"`
	Choosy      ChoosyOut         `json:"choosy"`
	Independent IndependentOut    `json:"independent"`
}

// UserResult is one user's CMMF allocation.
type UserResult struct {
	Name       string  `json:"name"`
	Total      float64 `json:"total"`
	Share      float64 `json:"share"`
	Allocation Amounts `json:"allocation"`
}

// Amounts is a user's allocation, amount per machine type (or machine),
// in byte-wise order of name: the order in which json.Marshal writes a
// map's keys, so it encodes as the JSON object {"name": amount, ...}
// (null when nil, as a nil map). It was a map[string]float64 until
// 50,000 users split over 1,000 types made filling the maps and sorting
// their keys at encoding time a quarter of the request.
type Amounts []Amount

// Amount is the amount of one machine type (or machine) a user holds.
type Amount struct {
	Name   string
	Amount float64
}

// RoundOut is one progressive-filling round.
type RoundOut struct {
	Level  float64  `json:"level"`
	Frozen []string `json:"frozen"`
	Capped []string `json:"capped,omitempty"`
}

// Total is a user's total under a baseline.
type Total struct {
	Name  string  `json:"name"`
	Total float64 `json:"total"`
}

// ChoosyOut is the Choosy baseline and its distance from CMMF.
type ChoosyOut struct {
	Users []Total `json:"users"`
	RMSE  float64 `json:"rmse"`
	// Skipped says why Choosy was not run (clusters above
	// ChoosyMaxMachines); Users is then empty.
	Skipped string `json:"skipped,omitempty"`
}

// ChoosyMaxMachines bounds the clusters Choosy is simulated on: it frees
// machines one at a time, so its cost and memory grow with the machine
// count, not the type count like the exact solvers'.
const ChoosyMaxMachines = 5_000_000

// IndependentOut is the independent-allocation baseline.
type IndependentOut struct {
	Users []Total `json:"users"`
	RMSE  float64 `json:"rmse"`
}

// machineAmounts maps a per-type allocation back to individual machines:
// perMachine[m] is user → amount of machine index m. Amounts a user keeps
// from the current allocation are placed on the machines it holds now;
// the rest fill the remaining room machine by machine in request order.
func machineAmounts(in *Instance, a *Allocation) map[int]map[int]float64 {
	out := map[int]map[int]float64{}
	for t, ty := range in.Types {
		// Users with an amount of type t, in index order.
		type need struct {
			i   int
			amt float64
		}
		var needs []need
		for i, u := range in.Users {
			k := sort.SearchInts(u.Allowed, t)
			if k < len(u.Allowed) && u.Allowed[k] == t && a.Amount[i][k] > 0 {
				needs = append(needs, need{i, a.Amount[i][k]})
			}
		}
		if len(needs) == 0 {
			continue
		}
		room := make([]float64, len(ty.Machines))
		for k := range room {
			room[k] = 1
		}
		put := func(mk, i int, v float64) {
			m := ty.Machines[mk]
			if out[m] == nil {
				out[m] = map[int]float64{}
			}
			out[m][i] += v
			room[mk] -= v
		}
		// Keep current holdings first.
		if in.CurrentMachine != nil {
			at := map[int]int{}
			for n, nd := range needs {
				at[nd.i] = n
			}
			for mk, m := range ty.Machines {
				holders := make([]int, 0, len(in.CurrentMachine[m]))
				for i := range in.CurrentMachine[m] {
					holders = append(holders, i)
				}
				sort.Ints(holders)
				for _, i := range holders {
					n, ok := at[i]
					if !ok {
						continue
					}
					v := math.Min(math.Min(in.CurrentMachine[m][i], needs[n].amt), room[mk])
					if v > 0 {
						put(mk, i, v)
						needs[n].amt -= v
					}
				}
			}
		}
		mk := 0
		for n := range needs {
			for needs[n].amt > reportTol && mk < len(room) {
				v := math.Min(needs[n].amt, room[mk])
				if v > reportTol {
					put(mk, needs[n].i, v)
					needs[n].amt -= v
				}
				if room[mk] <= reportTol {
					mk++
				}
			}
		}
	}
	return out
}

// movedAmount is Σ max(0, current − new) over users and types, or over
// users and machines when per-machine amounts are given.
func movedAmount(in *Instance, a *Allocation, perMachine map[int]map[int]float64) float64 {
	moved := 0.0
	if in.Current == nil {
		return 0
	}
	if in.Individual && perMachine != nil {
		for m, holders := range in.CurrentMachine {
			// Sum in user order so the float total is reproducible.
			users := make([]int, 0, len(holders))
			for i := range holders {
				users = append(users, i)
			}
			sort.Ints(users)
			for _, i := range users {
				moved += math.Max(0, holders[i]-perMachine[m][i])
			}
		}
		return moved
	}
	for i, row := range in.Current {
		if row == nil {
			continue
		}
		for t, cur := range row {
			if cur <= 0 {
				continue
			}
			nw := 0.0
			k := sort.SearchInts(in.Users[i].Allowed, t)
			if k < len(in.Users[i].Allowed) && in.Users[i].Allowed[k] == t {
				nw = a.Amount[i][k]
			}
			moved += math.Max(0, cur-nw)
		}
	}
	return moved
}
