package cmmf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xflex/xflex/solver"
)

// Problem describes CMMF for the Runner, the HTTP API and the CLI. Build
// runs alongside validation (PreBuild): it took 0.25 s of a 50 ms budget
// for 100,000 users.
func Problem() solver.Problem {
	return solver.Typed[Request, *Instance]{
		Name:           "cmmf",
		RequestSchema:  "cmmf.request.json",
		ResponseSchema: "cmmf.response.json",
		Summary:        "Constrained max-min fair allocation of machines to users with placement constraints (exact; divisible or whole machines; weighted; min-move replans).",
		Generate:       Generate,
		GenParams:      genParamTable,
		Decode:         decode,
		Build:          Build,
		Solve:          solve,
		PreBuild:       true,
		Picture:        picture,
		PictureShared:  pictureShared,
		Memory:         memory,
	}.Problem()
}

// Solve is Problem().Solve: one request body decoded, built and solved.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	return Problem().Solve(ctx, raw, opts)
}

// solve runs the request's method on its instance. The exact method stops
// resultReserve × Build's time before the deadline, keeping that for the
// answer; cut short, it answers with the quick allocation, a proven bound
// and status timeout.
func solve(ctx context.Context, b solver.Built[Request, *Instance], opts solver.Options) (any, solver.Meta, error) {
	in := b.In
	method := b.Req.Method
	if method == "" {
		method = MethodFlow
	}
	exact, cancel := solver.WithReserve(ctx, resultReserve*b.BuildTime)
	defer cancel()
	a, err := SolveAllocation(exact, in, method)
	if err != nil && (exact.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
		// The exact method ran out of budget (or the LP backend hit the
		// time limit derived from it): answer with the quick allocation
		// and a proven bound, status timeout.
		// exact, not ctx: the Choosy baseline would spend the reserve.
		res, meta := timeoutAnswer(exact, in, method, opts)
		return res, meta, nil
	}
	if err != nil {
		return nil, solver.Meta{}, err
	}
	res, meta, err := finish(ctx, in, a, method, opts.Seed)
	return res, meta, err
}

// SolveInstance runs the chosen method on a validated instance and builds
// the wire result, baselines included.
func SolveInstance(ctx context.Context, in *Instance, method string, seed int64) (*Result, solver.Meta, error) {
	a, err := SolveAllocation(ctx, in, method)
	if err != nil {
		return nil, solver.Meta{}, err
	}
	return finish(ctx, in, a, method, seed)
}

// finish certifies an exact allocation and builds its wire result. The
// certificate and the Choosy baseline are skipped, with a note, when ctx
// has run out.
func finish(ctx context.Context, in *Instance, a *Allocation, method string, seed int64) (*Result, solver.Meta, error) {
	var notes []string
	// Independent proof of optimality: no improving exchange along
	// residual paths and no idle machine a user below its demand could
	// reach (certify.go).
	if ctx.Err() != nil {
		notes = append(notes, "budget ran out before the optimality certificate (exchange-path check); the allocation is the exact method's, not re-proved")
	} else if err := Certify(in, a); err != nil {
		return nil, solver.Meta{}, fmt.Errorf("cmmf: optimality certificate failed: %w", err)
	} else {
		notes = append(notes, "certified optimal: no improving exchange and no reachable idle machine (exchange-path check)")
	}
	res, resNotes := buildResult(ctx, in, a, seed)
	meta := solver.Meta{Status: solver.StatusOptimal, Solver: "cmmf/" + method}
	minShare := 0.0
	if len(res.Leximin) > 0 {
		minShare = res.Leximin[0]
	}
	meta.SetObjective(minShare)
	notes = append(notes, fmt.Sprintf("%d users, %d machine types, %d rounds, %d %s solves", len(in.Users), len(in.Types), len(res.Rounds), a.Flows, map[bool]string{true: "LP", false: "max-flow"}[method == MethodLP]))
	meta.Notes = append(notes, resNotes...)
	return res, meta, nil
}

// SolveAllocation computes the exact CMMF allocation (and, with a current
// allocation, the replan closest to it) without the baselines.
func SolveAllocation(ctx context.Context, in *Instance, method string) (*Allocation, error) {
	var (
		a   *Allocation
		err error
	)
	switch {
	case method == MethodLP && in.Divisible:
		a, err = solveDivisibleLP(ctx, in)
	case method == MethodLP:
		a, err = solveIntegerLP(ctx, in)
	case in.Divisible:
		a, err = solveDivisibleFlow(ctx, in)
	default:
		a, err = solveIntegerFlow(ctx, in)
	}
	if err != nil {
		return nil, err
	}
	if in.Current != nil {
		before := append([]float64(nil), a.Total...)
		if err := Replan(ctx, in, a); err != nil {
			return nil, err
		}
		// Whole machines: the replan may trade a machine between users of
		// equal weight whose totals differ by one. Such users keep their
		// round unless the trade moves them onto or off their demand;
		// then they report their own share, like any capped user.
		changed := false
		for i, u := range in.Users {
			if math.Abs(a.Total[i]-before[i]) < 0.5 {
				continue
			}
			if capped := a.Total[i] >= u.Demand; capped || a.Capped[i] {
				a.Capped[i] = capped
				a.Level[i] = a.Total[i] / u.Weight
				changed = true
			}
		}
		if changed {
			a.finishRounds()
		}
	}
	return a, nil
}

// buildResult writes allocation a as the wire result with its baselines.
// The Choosy baseline stops when ctx runs out; it is then reported as
// skipped and the returned notes say so.
func buildResult(ctx context.Context, in *Instance, a *Allocation, seed int64) (*Result, []string) {
	res := &Result{Divisible: in.Divisible}
	var perMachine map[int]map[int]float64
	if in.Individual {
		perMachine = machineAmounts(in, a)
	}
	var byUser []Amounts
	if in.Individual {
		names := machineNames(in)
		byUser = machineAllocations(in, perMachine, names)
		res.Assignment = assignment(in, perMachine, names)
	} else {
		byUser = typeAllocations(in, a)
	}
	total := machineCount(in)
	for i, u := range in.Users {
		res.Users = append(res.Users, UserResult{Name: u.Name, Total: clean(a.Total[i]), Share: clean(a.Total[i] / u.Weight), Allocation: byUser[i]})
	}
	for _, r := range a.Rounds {
		ro := RoundOut{Level: clean(r.Level), Frozen: roundNames(in, r.Users)}
		if len(r.Capped) > 0 {
			ro.Capped = roundNames(in, r.Capped)
		}
		res.Rounds = append(res.Rounds, ro)
	}
	for _, v := range a.Leximin(in) {
		res.Leximin = append(res.Leximin, clean(v))
	}
	res.Moved = clean(movedAmount(in, a, perMachine))

	ind := Independent(in)
	for i, u := range in.Users {
		res.Independent.Users = append(res.Independent.Users, Total{u.Name, clean(ind[i])})
	}
	res.Independent.RMSE = RMSE(ind, a.Total, total)
	res.Choosy.Users = []Total{}
	if total > ChoosyMaxMachines {
		res.Choosy.Skipped = fmt.Sprintf("Choosy simulates one machine at a time and runs on clusters of up to %d machines; this one has %.0f", ChoosyMaxMachines, total)
		return res, nil
	}
	ch, err := Choosy(ctx, in, seed)
	if err != nil {
		res.Choosy.Skipped = "the budget ran out before the Choosy simulation finished"
		return res, []string{"Choosy baseline skipped: the budget ran out"}
	}
	for i, u := range in.Users {
		res.Choosy.Users = append(res.Choosy.Users, Total{u.Name, ch[i]})
	}
	res.Choosy.RMSE = RMSE(ch, a.Total, total)
	return res, nil
}

// machineCount is the number of machines of every type together.
func machineCount(in *Instance) float64 {
	total := 0.0
	for _, ty := range in.Types {
		total += float64(ty.Cap)
	}
	return total
}

// typeAllocations is each user's positive amounts by machine type, in
// byte-wise order of type name, all in one backing array: the type
// indices are sorted by name once, then each user's few types by that
// rank.
func typeAllocations(in *Instance, a *Allocation) []Amounts {
	byName := make([]int, len(in.Types))
	for t := range byName {
		byName[t] = t
	}
	slices.SortFunc(byName, func(x, y int) int { return strings.Compare(in.Types[x].Name, in.Types[y].Name) })
	rank := make([]int, len(in.Types))
	for r, t := range byName {
		rank[t] = r
	}
	// keys[end[i-1]:end[i]] are user i's rank<<32 | position in Allowed.
	var keys []uint64
	end := make([]int, len(in.Users))
	for i, u := range in.Users {
		from := len(keys)
		for k, t := range u.Allowed {
			if v := a.Amount[i][k]; v > 0 && clean(v) > 0 {
				keys = append(keys, uint64(rank[t])<<32|uint64(k))
			}
		}
		slices.Sort(keys[from:])
		end[i] = len(keys)
	}
	all := make(Amounts, len(keys)) // not nil: a user without machines has {}
	out := make([]Amounts, len(in.Users))
	from := 0
	for i, u := range in.Users {
		for x := from; x < end[i]; x++ {
			k := int(keys[x] & (1<<32 - 1))
			all[x] = Amount{in.Types[u.Allowed[k]].Name, clean(a.Amount[i][k])}
		}
		out[i] = all[from:end[i]:end[i]]
		from = end[i]
	}
	return out
}

// machineAllocations is each user's positive amounts by machine (a
// machines request), in byte-wise order of machine name.
func machineAllocations(in *Instance, perMachine map[int]map[int]float64, names map[int]string) []Amounts {
	out := make([]Amounts, len(in.Users))
	for i := range out {
		out[i] = Amounts{}
	}
	for m, holders := range perMachine {
		for i, v := range holders {
			if v = clean(v); v > 0 {
				out[i] = append(out[i], Amount{names[m], v})
			}
		}
	}
	for _, am := range out {
		slices.SortFunc(am, func(x, y Amount) int { return strings.Compare(x.Name, y.Name) })
	}
	return out
}

// assignment maps each machine a user holds whole (integer allocations
// of a machines request) to that user; nil when there is none.
func assignment(in *Instance, perMachine map[int]map[int]float64, names map[int]string) map[string]string {
	if in.Divisible {
		return nil
	}
	var out map[string]string
	for m, holders := range perMachine {
		for i, v := range holders {
			if clean(v) == 1 {
				if out == nil {
					out = map[string]string{}
				}
				out[names[m]] = in.Users[i].Name
			}
		}
	}
	return out
}

func machineNames(in *Instance) map[int]string {
	names := map[int]string{}
	for _, ty := range in.Types {
		for k, m := range ty.Machines {
			names[m] = ty.MachineNames[k]
		}
	}
	return names
}
