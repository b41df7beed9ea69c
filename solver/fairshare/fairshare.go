package fairshare

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// params are the request's options with defaults applied.
type params struct {
	policy    string
	criterion string
	alpha     float64
	integer   bool
	selection string // as requested ("" = the policy's default)
	trials    int
	tie       string
	backend   string
	pfMethod  string
	seed      int64
	// budgetEnd is when the request's budget ends (arrival of the solve
	// plus budget_ms; zero: no budget), for unsolved's choice.
	budgetEnd time.Time
}

// defaultSelection is each progressive-filling policy's server selection
// when the request names none: rrr for DRF and TSF (the Mesos default the
// paper evaluates them under), joint for PS-DSF and rPS-DSF (as [17]
// defines PS-DSF); BF-DRF always uses best fit.
func defaultSelection(policy string) string {
	switch policy {
	case PolicyDRF, PolicyTSF:
		return SelectRRR
	case PolicyPSDSF, PolicyRPSDSF:
		return SelectJoint
	}
	return ""
}

func isFill(policy string) bool {
	switch policy {
	case PolicyDRF, PolicyTSF, PolicyPSDSF, PolicyRPSDSF, PolicyBFDRF:
		return true
	}
	return false
}

// resultReserve is how much earlier than the budget the exact policies
// (mmf, pf, efficiency) stop, as a multiple of the time build took:
// turning their allocation into the wire result walks frameworks × their
// servers, which build also walks (it coalesces them). On 1,000
// frameworks × 10,000 servers the result of a cut pf solve took 3x
// build's time (dense interior points). The filling policies place whole
// tasks on few servers, and their results are small: they get no reserve
// (3x cut DRF's answer at 1 s from 6,749 to 662 tasks under load).
const resultReserve = 3

// solve runs the request's policy (and, with compare, every other) on its
// instance.
func solve(ctx context.Context, b solver.Built[Request, *instance], opts solver.Options) (any, solver.Meta, error) {
	req, in := b.Req, b.In
	reserve := resultReserve * b.BuildTime
	if isFill(req.Policy) {
		reserve = 0
	}
	ctx, cancel := solver.WithReserve(ctx, reserve)
	defer cancel()
	p := params{policy: req.Policy, criterion: req.Criterion, alpha: 1, selection: req.Selection,
		trials: req.Trials, tie: req.TieBreak, backend: req.LPBackend, pfMethod: req.PFMethod, seed: opts.Seed}
	if opts.Budget > 0 {
		p.budgetEnd = opts.Start.Add(opts.Budget)
	}
	if p.criterion == "" {
		p.criterion = CriterionTasks
	}
	if req.Alpha != nil {
		p.alpha = *req.Alpha
	}
	if req.Integer != nil {
		p.integer = *req.Integer
	}
	if p.trials < 1 {
		p.trials = 1
	}
	if p.tie == "" {
		p.tie = TiePaper
	}
	var meta solver.Meta
	res, err := solveOne(ctx, in, p, &meta)
	if errors.Is(err, errNumeric) {
		return nil, solver.Meta{}, &solver.Error{Kind: solver.KindInvalid, Err: err,
			Detail: fmt.Sprintf("policy %s: %v; demands and capacities spanning fewer orders of magnitude (or rescaled nearer 1) avoid it", p.policy, err)}
	}
	if err != nil {
		return nil, solver.Meta{}, err
	}
	if req.Compare {
		pols := comparePolicies(req.Selection)
		own := *res // the request's own answer, before compare entries
		for k, pol := range pols {
			if ctx.Err() != nil {
				// Comparisons are extras: once the budget is gone the
				// answer goes out without the rest.
				meta.Notes = append(meta.Notes, fmt.Sprintf("compare: the budget ran out; %d of %d policies left out", len(pols)-k, len(pols)))
				break
			}
			q := p
			q.policy, q.selection = pol[0], pol[1]
			if sameRun(p, q) {
				// The request's own policy: the same deterministic run,
				// so its answer is reused rather than computed twice.
				res.Compare = append(res.Compare, &own)
				continue
			}
			var sub solver.Meta
			r, err := solveOne(ctx, in, q, &sub)
			if errors.Is(err, errNumeric) {
				meta.Notes = append(meta.Notes, fmt.Sprintf("compare: %s left out: %v", pol[0], err))
				continue
			}
			if err != nil {
				return nil, solver.Meta{}, err
			}
			res.Compare = append(res.Compare, r)
			if sub.Status == solver.StatusTimeout {
				meta.Status = solver.StatusTimeout
			}
		}
	}
	return res, meta, nil
}

// sameRun says whether p and q run the same policy the same way: q differs
// from p only in policy and selection, and a filling policy's empty
// selection means its default one (BF-DRF and the exact optima have none).
func sameRun(p, q params) bool {
	if p.policy != q.policy {
		return false
	}
	if !isFill(p.policy) || p.policy == PolicyBFDRF {
		return true
	}
	sel := func(x params) string {
		if x.selection == "" {
			return defaultSelection(x.policy)
		}
		return x.selection
	}
	return sel(p) == sel(q)
}

// comparePolicies lists what compare runs: the three exact optima, every
// progressive-filling policy under both server selections (or only the
// requested one), and BF-DRF.
func comparePolicies(sel string) [][2]string {
	out := [][2]string{{PolicyMMF, ""}, {PolicyPF, ""}, {PolicyEfficiency, ""}}
	for _, pol := range []string{PolicyDRF, PolicyTSF, PolicyPSDSF, PolicyRPSDSF} {
		for _, s := range []string{SelectRRR, SelectJoint} {
			if sel == "" || sel == s {
				out = append(out, [2]string{pol, s})
			}
		}
	}
	return append(out, [2]string{PolicyBFDRF, ""})
}

// solveOne runs one policy and fills meta.
func solveOne(ctx context.Context, in *instance, p params, meta *solver.Meta) (*Result, error) {
	start := time.Now()
	var res *Result
	var err error
	if isFill(p.policy) {
		res, err = runFill(ctx, in, p, meta)
	} else {
		res, err = runExact(ctx, in, p, meta)
	}
	if err != nil {
		return nil, err
	}
	res.Status = string(meta.Status)
	res.Objective, res.Bound, res.Gap = meta.Objective, meta.Bound, meta.Gap
	// Per-policy wall time, for side-by-side comparison; like meta's
	// elapsed_ms it is the one field allowed to differ between runs.
	ms := float64(time.Since(start).Microseconds()) / 1000
	res.ElapsedMS = &ms
	return res, nil
}

// alloc is an allocation: per framework, tasks per server (request index).
type alloc []map[int]float64

func (in *instance) result(p params, a alloc) *Result {
	R := len(in.resources)
	// Sized up front: growing 100,000 frameworks and servers one by one
	// was a third of the 48 ms result of an empty allocation, all of it
	// after a 50 ms budget (issue 28).
	res := &Result{Policy: p.policy, Criterion: p.criterion, Integer: p.integer || isFill(p.policy),
		Unused: make(map[string][]float64, len(in.servers))}
	if len(in.fws) > 0 { // none stay nil: "frameworks": null on the wire
		res.Frameworks = make([]FrameworkResult, 0, len(in.fws))
	}
	if isFill(p.policy) {
		res.Criterion = ""
		if p.policy != PolicyBFDRF {
			res.Selection = p.selection
		}
	}
	used := make([]float64, len(in.servers)*R)
	coef := make([]float64, len(in.fws))
	for n := range in.fws {
		if p.criterion != CriterionGeneric {
			coef[n] = in.criterionCoef(p.criterion, n, 0)
		}
	}
	pf := 0.0
	pfFinite := true
	for n, f := range in.fws {
		fr := FrameworkResult{Name: f.name, ByServer: map[string]float64{}}
		for _, j := range sortedInts(a[n]) {
			v := a[n][j]
			if v <= 0 {
				continue
			}
			fr.ByServer[in.servers[j].name] = v
			fr.Total += v
			if p.criterion == CriterionGeneric {
				fr.Share += in.criterionCoef(p.criterion, n, j) * v
			}
			for r, d := range f.d {
				used[j*R+r] += d * v
			}
		}
		if p.criterion != CriterionGeneric {
			fr.Share = coef[n] * fr.Total
		}
		res.TotalTasks += fr.Total
		res.Efficiency += f.phi * fr.Total
		if fr.Total > 0 {
			g, _ := gAlpha(p.alpha, fr.Total)
			pf += f.phi * g
		} else if p.alpha >= 1 {
			pfFinite = false
		}
		res.Frameworks = append(res.Frameworks, fr)
	}
	if pfFinite {
		res.PFObjective = &pf
	}
	unused := make([]float64, len(in.servers)*R)
	for j, s := range in.servers {
		u := unused[j*R : (j+1)*R : (j+1)*R]
		for r := range u {
			u[r] = float64(s.count)*s.cap[r] - used[j*R+r]
			// Round-off (≤ vecpack.FitTol relative) reads as fully booked.
			if u[r] < vecpack.FitTol*math.Max(1, float64(s.count)*s.cap[r]) {
				u[r] = 0
			}
		}
		res.Unused[s.name] = u
	}
	return res
}

// sortedInts returns m's keys in increasing order. (Not sortBy: that
// insertion sort is for the nearly sorted orders of progressive filling;
// map keys come in random order, and a framework spread over 10,000
// servers made it quadratic: 20 s of a 16 s PF solve's profile.)
func sortedInts(m map[int]float64) []int {
	return slices.Sorted(maps.Keys(m))
}

// runFill runs a progressive-filling policy, trials times for rrr.
func runFill(ctx context.Context, in *instance, p params, meta *solver.Meta) (*Result, error) {
	if p.selection == "" {
		p.selection = defaultSelection(p.policy)
	}
	o := fillOpts{policy: p.policy, selection: p.selection, tie: p.tie}
	randomized := p.policy != PolicyBFDRF && p.selection == SelectRRR
	trials := p.trials
	if !randomized {
		trials = 1
	}
	meta.Solver = "fairshare/" + p.policy
	if p.policy != PolicyBFDRF {
		meta.Solver += "+" + p.selection
	}
	meta.Status = solver.StatusFeasible
	var first *Result
	var runs []alloc
	for t := 0; t < trials; t++ {
		// A trial on a small instance ends before the filler's periodic
		// deadline check, so the budget is checked between trials too:
		// 100000 trials (with compare, for every policy) ran 5 s on a
		// 200 ms budget. The trials done so far are summarized.
		if t > 0 && ctx.Err() != nil {
			meta.Status = solver.StatusTimeout
			meta.Notes = append(meta.Notes, fmt.Sprintf("budget ran out after %d of %d trials; the statistics cover those", t, trials))
			break
		}
		f, err := newFiller(in, o)
		if err != nil {
			return nil, &solver.Error{Kind: solver.KindInvalid, Detail: err.Error(),
				Violations: []solver.Violation{{Pointer: "/servers", Message: err.Error()}}}
		}
		// Trial t draws from PCG(seed, t): independent, reproducible streams.
		rng := rand.New(rand.NewPCG(uint64(p.seed), uint64(t)))
		if err := f.run(ctx, rng); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				return nil, err
			}
			meta.Status = solver.StatusTimeout
			meta.Notes = append(meta.Notes, fmt.Sprintf("budget ran out in trial %d; the allocation so far is returned", t+1))
		}
		a := alloc(f.xs)
		runs = append(runs, a)
		if t == 0 {
			first = in.result(p, a)
		}
		if meta.Status == solver.StatusTimeout {
			break
		}
	}
	res := first
	if randomized {
		res.Trials = len(runs)
	}
	if p.trials > 1 {
		summarize(in, res, runs)
	}
	meta.SetObjective(res.Efficiency)
	meta.Notes = append(meta.Notes, "objective is the efficiency (eq. 10) of the first trial's allocation")
	return res, nil
}

// summarize sets mean and sample standard deviation of x_{n,i} and x_n
// over the trials (a deterministic policy repeats its single run, sd 0).
func summarize(in *instance, res *Result, runs []alloc) {
	k := float64(len(runs))
	totals := make([]float64, len(runs))
	for n := range in.fws {
		fr := &res.Frameworks[n]
		fr.MeanByServer, fr.SDByServer = map[string]float64{}, map[string]float64{}
		var ts []float64
		for j := range in.servers {
			var sum, sq float64
			for t, a := range runs {
				v := a[n][j]
				sum += v
				sq += v * v
				totals[t] += v
			}
			if sum == 0 {
				continue
			}
			m := sum / k
			fr.MeanByServer[in.servers[j].name] = m
			fr.SDByServer[in.servers[j].name] = sampleSD(sq, m, k)
		}
		for _, a := range runs {
			s := 0.0
			for _, v := range a[n] {
				s += v
			}
			ts = append(ts, s)
		}
		m, sd := meanSD(ts)
		fr.MeanTotal, fr.SDTotal = &m, &sd
	}
	m, sd := meanSD(totals)
	res.MeanTotalTasks, res.SDTotalTasks = &m, &sd
}

func meanSD(v []float64) (float64, float64) {
	var sum, sq float64
	for _, x := range v {
		sum += x
		sq += x * x
	}
	k := float64(len(v))
	m := sum / k
	return m, sampleSD(sq, m, k)
}

// sampleSD is the (k−1)-denominator standard deviation; 0 for one sample.
func sampleSD(sq, mean, k float64) float64 {
	if k < 2 {
		return 0
	}
	v := (sq - k*mean*mean) / (k - 1)
	if v < 0 {
		v = 0 // round-off when all samples are equal
	}
	return math.Sqrt(v)
}

// runExact solves mmf, pf or efficiency on the divisible problem and, when
// integer is set, rounds the optimum to whole tasks.
func runExact(ctx context.Context, in *instance, p params, meta *solver.Meta) (*Result, error) {
	if why := in.tooLarge(ctx, p); why != "" {
		return in.unsolved(p, meta, why), nil
	}
	m := newModelCtx(ctx, in, p.criterion)
	if m == nil {
		return in.unsolved(p, meta, fmt.Sprintf("the budget ran out before the model (%d frameworks × %d coalesced server groups) was built", len(in.fws), len(in.groups))), nil
	}
	var er *exactResult
	var err error
	switch p.policy {
	case PolicyMMF:
		er, err = solveMMF(ctx, m, p.backend)
	case PolicyPF:
		er, err = solvePF(ctx, m, p.alpha, p.pfMethod, p.backend)
	default:
		er, err = solveEfficiency(ctx, m, p.backend)
	}
	if errors.Is(err, errNumeric) {
		return nil, err // Solve reports it (422, or a note for a compare entry)
	}
	if err != nil {
		return nil, &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err}
	}
	meta.Solver = fmt.Sprintf("fairshare/%s+lp(%s)", p.policy, er.backend)
	meta.Status = solver.StatusOptimal
	if er.timeout {
		meta.Status = solver.StatusTimeout
	}
	if er.steps > 0 {
		meta.Notes = append(meta.Notes, fmt.Sprintf("%d interior-point steps on %d coalesced server groups (%d servers)", er.steps, len(in.groups), len(in.servers)))
	}
	if er.lps > 0 || er.steps == 0 {
		meta.Notes = append(meta.Notes, fmt.Sprintf("%d LP solves on %d coalesced server groups (%d servers)", er.lps, len(in.groups), len(in.servers)))
	}
	if p.policy == PolicyMMF {
		meta.Notes = append(meta.Notes, fmt.Sprintf("%d distinct max-min levels; objective is the smallest criterion value U_n", er.levels))
	}
	a := m.split(er.x)
	obj, bound := er.objective, er.bound
	if p.integer {
		a = m.round(a, p)
		obj = m.objectiveOf(p, a)
		if meta.Status == solver.StatusOptimal {
			meta.Status = solver.StatusFeasible
		}
		meta.Notes = append(meta.Notes, "integer: the divisible optimum rounded to whole tasks and completed greedily; bound is the divisible optimum")
	}
	if meta.Status == solver.StatusTimeout {
		a, obj = in.orQuick(p, a, obj, meta)
	}
	if math.IsInf(obj, 0) {
		meta.Notes = append(meta.Notes, "objective is -Inf: some framework gets no tasks")
	} else {
		meta.SetObjective(obj)
	}
	if !math.IsInf(bound, 0) {
		meta.SetBound(bound)
		if meta.Status == solver.StatusTimeout && meta.Gap != nil && *meta.Gap == 0 {
			meta.ObjectiveProven = true
			meta.Notes = append(meta.Notes, "the objective equals its bound, so it is optimal; the allocation above it is not")
		}
	}
	if p.policy == PolicyPF && meta.Status == solver.StatusOptimal && (!er.certified || (meta.Gap != nil && *meta.Gap > pfPromisedGap)) {
		meta.Status = solver.StatusFeasible
		meta.Notes = append(meta.Notes, "pf: the certified gap target was not reached; objective and bound are the best found")
	}
	if p.policy == PolicyPF && er.certified && (obj == 0 || math.IsInf(obj, 0)) && !math.IsInf(er.objective, -1) {
		meta.Notes = append(meta.Notes, "pf: the α-fair objective is outside float64 range in eq. 8's units; the gap was certified in scaled units (Σ w_n g_α(V_n/v0_n))")
	}
	return in.result(p, a), nil
}

// unsolved answers a request whose exact model was not solved (why says
// why: the budget ran out before it was built, or tooLarge's reason):
// quickShare's allocation (divisible requests, when the budget has room
// for it) or the empty one, status timeout, and for mmf the bound of the
// frameworks checked alone (min_n U_n ≤ U_k ≤ alone_k for every
// framework k).
func (in *instance) unsolved(p params, meta *solver.Meta, why string) *Result {
	meta.Solver = fmt.Sprintf("fairshare/%s", p.policy)
	meta.Status = solver.StatusTimeout
	var a alloc
	var inert []bool
	ok := false
	roomy := p.budgetEnd.IsZero() || time.Until(p.budgetEnd) >= time.Duration(len(in.fws))*quickPerFramework
	if roomy {
		a, inert, ok = in.quickShare(p)
	}
	if ok {
		meta.Notes = append(meta.Notes, why+"; the allocation is a quick feasible one: "+quickNote)
		obj := (&model{in: in, inert: inert}).objectiveOf(p, a)
		if math.IsInf(obj, 0) {
			meta.Notes = append(meta.Notes, "objective is -Inf: some framework gets no tasks")
		} else {
			meta.SetObjective(obj)
		}
	} else {
		a = make(alloc, len(in.fws))
		meta.Notes = append(meta.Notes, why+"; the allocation is empty"+quickWhyNot(p, roomy))
		switch p.policy {
		case PolicyPF:
			meta.Notes = append(meta.Notes, "objective is -Inf: some framework gets no tasks")
		default:
			meta.SetObjective(0)
		}
	}
	if p.policy == PolicyMMF {
		if b, ok := in.aloneBound(p.criterion); ok {
			meta.SetBound(b)
			meta.Notes = append(meta.Notes, fmt.Sprintf("bound: the smallest value alone of the first %d frameworks that can run", aloneBoundFrameworks))
		}
	}
	res := in.result(p, a)
	res.Status = string(meta.Status)
	return res
}

// quickPerFramework is what quickShare's answer costs per framework more
// than the empty one: 0.9 µs of CPU at 100,000 frameworks (46 ms to build
// the allocation's result and 42 ms to encode the larger answer: 10.9 MB
// against 5.3), but about 2 µs of wall time on the 2-core benchmark
// machine under load (the 200 ms cell went from 677 to 787 ms, 19 over
// its limit, at 1 µs). unsolved gives it only when this much of the budget
// is left, and the empty allocation otherwise: at 100,000 frameworks, at
// a 1 s budget and not at 200 ms.
const quickPerFramework = 3 * time.Microsecond

// quickScan is how many servers quickShare tries per framework, from the
// framework's index on (round robin), before looking for a usable server
// group at all: it keeps the answer O(frameworks × resources) when most
// servers are usable, and gives up (ok false) on a framework that can use
// some server but none of the ones tried.
const quickScan = 64

// quickShare is a feasible divisible allocation in O(frameworks ×
// resources) for an answer when the budget is gone before the model is
// built (5·10⁶ columns for 100,000 frameworks on 50 server types): each
// framework goes to one server it can use and each server's pooled
// capacity (count_j·c_{j,r}) is split evenly among the k_j frameworks
// there, framework n getting min(cap_n, min_r count_j·c_{j,r}/(k_j·d_{n,r}))
// tasks, so Σ_n d_{n,r}·x_n ≤ count_j·c_{j,r}. Whole tasks do not split
// over a server's copies that way, so integer requests get none (ok
// false), nor does a framework with no demand and no cap. inert marks the
// frameworks that can get nothing (the model's inert).
func (in *instance) quickShare(p params) (a alloc, inert []bool, ok bool) {
	if p.integer || len(in.servers) == 0 {
		return nil, nil, false
	}
	S := len(in.servers)
	at := make([]int, len(in.fws))
	inert = make([]bool, len(in.fws))
	k := make([]int, S)
	for n := range in.fws {
		at[n] = -1
		if in.fws[n].cap <= 0 {
			inert[n] = true
			continue
		}
		for t := 0; t < min(S, quickScan); t++ {
			if j := (n + t) % S; in.usable(n, j) {
				at[n] = j
				break
			}
		}
		if at[n] < 0 {
			if in.canRun(n) {
				return nil, nil, false
			}
			inert[n] = true
			continue
		}
		k[at[n]]++
	}
	a = make(alloc, len(in.fws))
	for n, j := range at {
		if j < 0 {
			continue
		}
		f, sv := &in.fws[n], &in.servers[j]
		x := f.cap
		for r, d := range f.d {
			if d > 0 {
				x = math.Min(x, float64(sv.count)*sv.cap[r]/(float64(k[j])*d))
			}
		}
		if math.IsInf(x, 0) {
			return nil, nil, false
		}
		a[n] = map[int]float64{j: x}
	}
	return a, inert, true
}

// canRun reports whether framework n can use some server group.
func (in *instance) canRun(n int) bool {
	for _, g := range in.groups {
		if in.usable(n, g.members[0]) {
			return true
		}
	}
	return false
}

// aloneBoundFrameworks caps aloneBound's work, which must stay small
// next to a budget already spent.
const aloneBoundFrameworks = 100

// aloneBound is the smallest value alone (see model.alone) of the first
// aloneBoundFrameworks frameworks that can run: each bounds the max-min
// value. ok is false when no framework can run.
func (in *instance) aloneBound(crit string) (float64, bool) {
	best, seen := math.Inf(1), 0
	for n := range in.fws {
		if seen == aloneBoundFrameworks {
			break
		}
		f := &in.fws[n]
		if f.cap <= 0 {
			continue
		}
		v, any := 0.0, false
		for _, g := range in.groups {
			j := g.members[0]
			if !in.usable(n, j) {
				continue
			}
			any = true
			t := math.Inf(1)
			for r, d := range f.d {
				if d > 0 {
					t = math.Min(t, float64(g.count)*g.cap[r]/d)
				}
			}
			v += in.criterionCoef(crit, n, j) * t
		}
		if any {
			best = math.Min(best, v)
			seen++
		}
	}
	return best, seen > 0
}

// split spreads group columns over the group's member servers in
// proportion to their counts.
func (m *model) split(x []float64) alloc {
	in := m.in
	a := make(alloc, len(in.fws))
	for n := range a {
		a[n] = map[int]float64{}
	}
	for k, c := range m.cols {
		if x[k] <= 0 {
			continue
		}
		g := &in.groups[c.g]
		for _, j := range g.members {
			a[c.n][j] += x[k] * float64(in.servers[j].count) / float64(g.count)
		}
	}
	return a
}

// objectiveOf evaluates the exact policy's objective on an allocation.
func (m *model) objectiveOf(p params, a alloc) float64 {
	in := m.in
	switch p.policy {
	case PolicyMMF:
		lo := math.Inf(1)
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			u := 0.0
			for j, v := range a[n] {
				u += in.criterionCoef(p.criterion, n, j) * v
			}
			lo = math.Min(lo, u)
		}
		if math.IsInf(lo, 1) {
			return 0
		}
		return lo
	case PolicyPF:
		s := 0.0
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			v := 0.0
			for j, t := range a[n] {
				v += in.criterionCoef(p.criterion, n, j) * in.fws[n].phi * t
			}
			if v <= 0 {
				if p.alpha >= 1 {
					return math.Inf(-1)
				}
				continue
			}
			g, _ := gAlpha(p.alpha, v)
			s += in.fws[n].phi * g
		}
		return s
	default:
		s := 0.0
		for n := range in.fws {
			for _, t := range a[n] {
				s += in.fws[n].phi * t
			}
		}
		return s
	}
}
