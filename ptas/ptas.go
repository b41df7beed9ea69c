package ptas

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/xflex/xflex/internal/progress"
)

// Fit selects the notion of fit cost.
type Fit string

const (
	// FitSum prices a shape by the sum of its normalized coordinates.
	FitSum Fit = "sum"
	// FitMax prices a shape by its largest normalized coordinate (as in DRF).
	FitMax Fit = "max"
)

// Options tune Solve.
type Options struct {
	// Family of directions (FamilyAuto by default).
	Family Family
	// Epsilon > 0 asks for a guarantee: the first direction set has
	// ρ ≤ 1+Epsilon and refinement stops as soon as cost ≤ (1+Epsilon)·bound.
	// Zero refines through DefaultSchedule until the budget ends.
	Epsilon float64
	Fit     Fit
	// NoMIP disables the CBC p-median, NoDP the level DP (tests of the
	// other exact paths).
	NoMIP bool
	NoDP  bool
	// NoJoins skips the grid-join level (tests of the ray levels).
	NoJoins bool
	// MaxCandidates skips (and stops at) levels whose chains × requests
	// exceed it; 0 means DefaultMaxCandidates.
	MaxCandidates int
	// MaxIter caps subgradient iterations per level; 0 means 300.
	MaxIter int
	// ExactLimit: instances with at most this many distinct requests are
	// solved exactly by Exact instead (0 means DefaultExactLimit, negative
	// disables it).
	ExactLimit int
	// OnStep, when set, is called after each step of the anytime loop
	// (the cover, each level, the grid joins) with the result so far,
	// from Solve's goroutine, so a caller can offer it as the incumbent of
	// a running job. It must not keep res or its slices: Solve goes on
	// changing them.
	OnStep func(res *Result)
}

// step hands the result so far to OnStep.
func (o Options) step(res *Result) {
	if o.OnStep != nil {
		o.OnStep(res)
	}
}

// DefaultExactLimit is the size up to which Solve answers with Exact: its
// O(K·3^n) DP takes about a millisecond at n = 10.
const DefaultExactLimit = 10

// DefaultSchedule is the ε sequence of the anytime loop without a target:
// coarse first so a usable answer exists early, then finer sets, which are
// not nested, so the best answer so far is kept across them.
var DefaultSchedule = []float64{0.5, 0.25, 0.15, 0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.001}

// DefaultMaxCandidates bounds rays × node types × distinct requests of one
// level: the work of laying out its chains (a level computation and a sort
// per entry, about 0.5 s of one core at the bound). Memory grows only with
// the chains that contribute candidates.
const DefaultMaxCandidates = 20_000_000

// mipMaxCover bounds the nonzeros of the p-median MIP (after Lagrangian
// reduction) that Solve hands to CBC; past it only the Lagrangian bound is
// used. CBC solves p-medians of this size in well under a second.
const mipMaxCover = 10000

// mipCoarsest: without an ε target, levels with ρ − 1 above it skip the
// MIP, because the lower bound of a finer level (bound/ρ) soon dominates
// anything a coarse level can prove and the budget is better spent there.
const mipCoarsest = 0.05

// lagEnough: the subgradient search (and the MIP after it) stops once the
// ray bound is within lagEnough·(ρ−1) of the incumbent; 2 % of the level's
// own rounding loss is invisible in the guarantee it yields.
const lagEnough = 0.02

// targetShare: with an ε target the first level has ρ ≤ 1 + 0.9·ε, so a
// ray bound within 10 % of ε of the level's optimum already certifies the
// target.
const targetShare = 0.9

// joinMaxCover: a grid-join level whose joins cover more than this many
// (join, request) pairs (4D profiles: ~7,000 joins, ~800,000 pairs) takes
// the whole remaining budget instead of joinShare of it: its subgradient
// bound converges slowly there, but within 2–4 % of the optimum in a few
// hundred milliseconds, where the ray levels' bound stays ≥ 10 % off.
const joinMaxCover = 300_000

// joinLagShare is the part of the remaining budget the Lagrangian search
// of a grid-join level above joinMaxCover may use: its bound is exact, so
// it is worth nearly all of it (the rest is for recording the answer).
const joinLagShare = 0.95

// joinShare is the part of the remaining budget the grid-join level may
// use, so ray levels still run when the grid is large.
const joinShare = 0.5

// lagShare is the part of the remaining budget one level's subgradient
// search may use.
const lagShare = 0.3

// mipShare is the part of the remaining budget one level's MIP may use, so
// an expensive proof at a coarse level cannot starve the finer levels.
const mipShare = 0.4

// LevelStat describes one refinement level.
type LevelStat struct {
	Family     Family  `json:"family"`
	Param      int     `json:"param"`
	Rays       int     `json:"rays"`
	Rho        float64 `json:"rho"`
	Candidates int     `json:"candidates"`
	// RayValue is the best ray-restricted solution's cost, RayBound a proven
	// lower bound on the ray-restricted optimum, Exact whether they meet.
	RayValue float64 `json:"ray_value"`
	RayBound float64 `json:"ray_bound"`
	Exact    bool    `json:"exact"`
	Method   string  `json:"method"`
	// Cost is the true cost of the level's shapes after tightening.
	Cost float64 `json:"cost"`
}

// Result is Solve's answer in normalized units.
type Result struct {
	Shapes [][]float64
	// Assign maps each (distinct) request to its shape.
	Assign []int
	Cost   float64
	// LowerBound is a proven lower bound on the optimum.
	LowerBound float64
	// Epsilon is the proven guarantee cost/LowerBound − 1 (≤ ρ − 1 of any
	// level solved exactly).
	Epsilon float64
	// Rho is the factor of the finest level whose ray problem was solved
	// exactly (0 when none was).
	Rho      float64
	Levels   []LevelStat
	TimedOut bool
	Optimal  bool
	Method   string
	// Notes are remarks for meta.notes (e.g. a MIP backend failure).
	Notes []string
}

// ErrTooFewShapes is wrapped by Solve when no K shapes that fit the node
// types can serve every request.
var ErrTooFewShapes = errors.New("ptas: too few shapes for the node types")

// MinShapes is the least number of shapes that can serve every request
// when each must fit a node type: a set cover of the requests by node types
// (a shape per chosen node, the join of the requests it holds). It returns
// the chosen node types. Exact by enumeration in increasing size up to
// limit; beyond that the greedy cover.
func MinShapes(in *Instance, limit int) []int {
	if len(in.Caps) == 0 {
		return []int{0}
	}
	masks := map[string][]bool{}
	var keys []string
	for _, u := range in.U {
		m := make([]bool, len(in.Caps))
		b := make([]byte, len(in.Caps))
		for n, c := range in.Caps {
			if Fits(u, c) {
				m[n], b[n] = true, 1
			}
		}
		k := string(b)
		if _, ok := masks[k]; !ok {
			keys = append(keys, k)
		}
		masks[k] = m
	}
	coversAll := func(set []int) bool {
		for _, k := range keys {
			hit := false
			for _, n := range set {
				if masks[k][n] {
					hit = true
					break
				}
			}
			if !hit {
				return false
			}
		}
		return true
	}
	T := len(in.Caps)
	budget := 1 << 20
	for size := 1; size <= min(limit, T); size++ {
		set := make([]int, size)
		var rec func(i, from int) bool
		rec = func(i, from int) bool {
			if budget--; budget < 0 {
				return false
			}
			if i == size {
				return coversAll(set)
			}
			for n := from; n < T; n++ {
				set[i] = n
				if rec(i+1, n+1) {
					return true
				}
			}
			return false
		}
		if rec(0, 0) {
			return set
		}
	}
	// greedy: the node holding the most uncovered distinct masks, ties by index
	covered := map[string]bool{}
	var set []int
	for len(covered) < len(keys) {
		best, bc := -1, 0
		for n := 0; n < T; n++ {
			c := 0
			for _, k := range keys {
				if !covered[k] && masks[k][n] {
					c++
				}
			}
			if c > bc {
				best, bc = n, c
			}
		}
		set = append(set, best)
		for _, k := range keys {
			if masks[k][best] {
				covered[k] = true
			}
		}
	}
	return set
}

// Solve runs the anytime PTAS (fit "sum") or the exact max-fit DP (fit
// "max") on a validated instance. It returns the best shapes found, a
// proven lower bound and the guarantee reached. When ctx ends it returns
// the best so far with TimedOut set; only a bad instance or an lp failure
// is an error.
func Solve(ctx context.Context, in *Instance, opts Options) (*Result, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	cost := Cost
	if opts.Fit == FitMax {
		cost = MaxCost
	}
	cover := MinShapes(in, in.K)
	if len(cover) > in.K {
		return nil, fmt.Errorf("%w: %d are needed, K = %d", ErrTooFewShapes, len(cover), in.K)
	}
	trivial := TrivialBound(in, cost)
	res := &Result{Cost: math.Inf(1), LowerBound: trivial}
	// K ≥ distinct requests: every request gets its own shape, optimal.
	if in.K >= len(in.U) {
		shapes := make([][]float64, len(in.U))
		for j, u := range in.U {
			shapes[j] = append([]float64(nil), u...)
		}
		res.Shapes, res.Assign, res.Cost = Tighten(in, shapes, cost)
		res.Optimal, res.Method, res.Epsilon = true, "identity", 0
		res.LowerBound = math.Min(trivial, res.Cost)
		return res, nil
	}
	res.Shapes, res.Assign, res.Cost = Tighten(in, coverShapes(in, cover), cost)
	res.Method = "cover"
	report(ctx, res, "cover", 0)
	opts.step(res)
	if solveExact(ctx, in, cost, opts, res) {
		return res, nil
	}
	if opts.Fit == FitMax {
		return solveMaxFit(ctx, in, cost, cover, opts, res)
	}
	s := &refinement{ctx: ctx, in: in, cost: cost, cover: cover, opts: opts, res: res, joinTried: opts.NoJoins}
	if err := s.run(); err != nil {
		return nil, err
	}
	finish(res, ctx)
	return res, nil
}

// coverShapes is a valid answer before any search: one shape per node
// type of the cover, the join of the requests it takes (first cover node
// that fits).
func coverShapes(in *Instance, cover []int) [][]float64 {
	groups := make([][]int, len(cover))
	for j, u := range in.U {
		for g, n := range cover {
			if len(in.Caps) == 0 || Fits(u, in.Caps[n]) {
				groups[g] = append(groups[g], j)
				break
			}
		}
	}
	var first [][]float64
	for _, g := range groups {
		if len(g) > 0 {
			first = append(first, Join(in.U, g))
		}
	}
	return first
}

// solveExact solves a small instance (up to the exact limit) exactly into
// res and reports whether it did.
func solveExact(ctx context.Context, in *Instance, cost func([]float64) float64, opts Options, res *Result) bool {
	exactLimit := opts.ExactLimit
	if exactLimit == 0 {
		exactLimit = DefaultExactLimit
	}
	if len(in.U) > min(exactLimit, ExactMaxRequests) {
		return false
	}
	shapes, _, v, err := Exact(in, cost)
	if err != nil {
		return false
	}
	res.Shapes, res.Assign, res.Cost = Tighten(in, shapes, cost)
	res.LowerBound = math.Min(v, res.Cost)
	res.Method = "exact"
	finish(res, ctx)
	res.TimedOut = false
	return true
}

// solveMaxFit solves fit "max": by the max-fit DP, or, where node types
// split the requests, by the ray machinery on one "ray" (1, …, 1) with
// chains per node type, exact (ρ = 1).
func solveMaxFit(ctx context.Context, in *Instance, cost func([]float64) float64, cover []int, opts Options, res *Result) (*Result, error) {
	if shapes, asg, v, ok := MaxFitDP(in); ok {
		res.Shapes, res.Assign, res.Cost = shapes, asg, v
		res.LowerBound, res.Optimal, res.Method = v, true, "maxfit-dp"
		return res, nil
	}
	ones := make([]float64, in.Dim())
	for i := range ones {
		ones[i] = 1
	}
	dirs := &Directions{Family: "max", Dim: in.Dim(), Param: 1, Vecs: [][]float64{ones}, Rho: 1}
	if err := solveLevel(ctx, in, dirs, cost, cover, opts, res); err != nil {
		return nil, err
	}
	finish(res, ctx)
	return res, nil
}

// refinement is the anytime PTAS for fit "sum": ray levels of finer ε
// (the schedule), and once the grid joins, until the answer is proven
// within the target or the budget ends.
type refinement struct {
	ctx       context.Context
	in        *Instance
	cost      func([]float64) float64
	cover     []int
	opts      Options
	res       *Result
	joinTried bool
}

// run runs the levels of the schedule.
func (s *refinement) run() error {
	schedule := s.schedule()
	maxCand := s.opts.MaxCandidates
	if maxCand <= 0 {
		maxCand = DefaultMaxCandidates
	}
	for li, eps := range schedule {
		spent := s.ctx.Err() != nil
		if spent && li > 0 {
			break
		}
		dirs, err := dirsFor(s.opts.Family, s.in, eps, maxCand)
		if err != nil {
			return err
		}
		if dirs == nil && li == 0 {
			// Many dimensions: even the first ε needs too many directions.
			// A coarse level and the grid joins first, then the finest
			// lattice that fits (ρ = 1 + (d−1)/N).
			if err := s.coarseFirst(maxCand, spent); err != nil || s.done() || (spent && len(s.res.Levels) > 0) {
				return err
			}
			dirs = coarsestLattice(s.in, maxCand)
		}
		if dirs == nil {
			break // finer levels only grow
		}
		if err := s.level(dirs, spent); err != nil {
			return err
		}
		fraction := float64(li+1) / float64(len(schedule))
		report(s.ctx, s.res, fmt.Sprintf("level ε=%g", eps), fraction)
		s.opts.step(s.res)
		if s.done() {
			break
		}
		if stop, err := s.tryJoins(fraction); stop || err != nil {
			return err
		}
		if s.in.Dim() == 1 {
			break // one direction, ρ = 1: nothing finer exists
		}
	}
	return nil
}

// coarseFirst runs, when the asked ε needs more directions than fit, the
// first level of DefaultSchedule and then the grid joins: a cheap answer
// early, and on grids the joins' exact bound, which can certify the
// target long before the finest lattice that fits has been laid out (in
// 4D that lattice alone takes seconds).
func (s *refinement) coarseFirst(maxCand int, spent bool) error {
	dirs, err := dirsFor(s.opts.Family, s.in, DefaultSchedule[0], maxCand)
	if err != nil || dirs == nil {
		return err
	}
	if err := s.level(dirs, spent); err != nil || spent {
		return err // a spent budget allows the one level of minimum effort
	}
	report(s.ctx, s.res, fmt.Sprintf("level ε=%g", DefaultSchedule[0]), 0)
	s.opts.step(s.res)
	if s.done() {
		return nil
	}
	_, err = s.tryJoins(0)
	return err
}

// schedule is the ε of each level: DefaultSchedule, or, with a target ε,
// ρ ≤ 1 + targetShare·ε (which leaves the bound room to certify the target
// without proving the level optimal) and then halvings.
func (s *refinement) schedule() []float64 {
	if s.opts.Epsilon <= 0 {
		return DefaultSchedule
	}
	schedule := []float64{s.opts.Epsilon * targetShare}
	for e := s.opts.Epsilon / 2; e >= finestEpsilon; e /= 2 {
		schedule = append(schedule, e)
	}
	return schedule
}

// level solves one ray level. Minimum effort: when the caller's budget
// was already spent before the level (e.g. on decoding a huge request),
// the coarsest level runs for at most minEffort so the answer is not just
// the cover.
func (s *refinement) level(dirs *Directions, spent bool) error {
	lctx := s.ctx
	if spent {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(context.WithoutCancel(s.ctx), minEffort)
		defer cancel()
	}
	return solveLevel(lctx, s.in, dirs, s.cost, s.cover, s.opts, s.res)
}

// done reports whether the answer is proven optimal or within the target.
func (s *refinement) done() bool {
	res, eps := s.res, s.opts.Epsilon
	return res.LowerBound >= res.Cost*(1-optTol) || (eps > 0 && res.Cost <= (1+eps)*res.LowerBound)
}

// tryJoins runs the grid joins once, after the first level, while budget
// is left, and reports whether the answer is then done.
func (s *refinement) tryJoins(fraction float64) (bool, error) {
	if s.joinTried || s.ctx.Err() != nil {
		return false, nil
	}
	if err := s.joinLevel(); err != nil {
		return true, err
	}
	report(s.ctx, s.res, "grid joins", fraction)
	s.opts.step(s.res)
	return s.done(), nil
}

// joinLevel runs once, after the first ray level (so a cheap answer and
// bound exist first) with at most joinShare of the remaining budget: small
// grids of request coordinates make the p-median over the grid joins the
// exact problem (ρ = 1), whose bound needs no division by ρ.
func (s *refinement) joinLevel() error {
	s.joinTried = true
	jctx, cancel := shareOf(s.ctx, joinShare)
	defer cancel()
	joins, covers := GridJoins(jctx, s.in)
	if joins == nil {
		return nil
	}
	nz := 0
	for _, c := range covers {
		nz += len(c)
	}
	rp := buildJoinProblem(s.in, joins, covers, s.cost)
	if nz <= joinMaxCover {
		return solveProblem(jctx, s.in, rp, s.cost, s.cover, s.opts, s.res)
	}
	// A large grid (4D profiles): no ray level the budget allows comes
	// near its exact bound (ray bounds lose their ρ ≥ 1.1), so it gets the
	// whole remaining budget, and its Lagrangian search most of it.
	rp.lagShare = joinLagShare
	return solveProblem(s.ctx, s.in, rp, s.cost, s.cover, s.opts, s.res)
}

// shareOf is ctx cut to the given share of its remaining time (ctx itself
// when it has no deadline).
func shareOf(ctx context.Context, share float64) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, time.Duration(float64(time.Until(dl))*share))
}

// report tells an asynchronous job (package progress) the best cost and
// bound so far after a level; fraction is the share of the level schedule
// done. It runs once per level, so its cost is nothing next to the level's.
// The bound is clamped to the cost as finish does (only round-off of the
// bounds can put it above).
func report(ctx context.Context, res *Result, phase string, fraction float64) {
	progress.Report(ctx, progress.Progress{Phase: phase, Fraction: progress.F(fraction),
		Objective: progress.F(res.Cost), Bound: progress.F(math.Min(res.LowerBound, res.Cost))})
}

func finish(res *Result, ctx context.Context) {
	res.TimedOut = ctx.Err() != nil
	if res.LowerBound > res.Cost {
		res.LowerBound = res.Cost // only round-off of the bounds can cause it
	}
	res.Epsilon = res.Cost/math.Max(res.LowerBound, GapFloor) - 1
	if res.Epsilon < 0 {
		res.Epsilon = 0
	}
	res.Optimal = res.LowerBound >= res.Cost*(1-optTol)
	report(ctx, res, "levels done", 1)
}

// minEffort bounds the coarsest level when Solve starts with its budget
// already spent: 50 ms is ample for two rays on 10^5 distinct requests and
// small against any budget a caller would set for such an instance.
const minEffort = 50 * time.Millisecond

// OptTol is the relative gap at which an answer counts as proven optimal.
const OptTol = optTol

// GapFloor keeps cost/bound finite when every request is zero.
const GapFloor = 1e-300

// dirsFor builds the level's directions, or nil when it would exceed
// maxCand chains × requests.
func dirsFor(family Family, in *Instance, eps float64, maxCand int) (*Directions, error) {
	d := in.Dim()
	nodes := max(len(in.Caps), 1)
	if d >= 3 && (family == FamilyAuto || family == "" || family == FamilyLattice) {
		N := ceilTol(float64(d-1) / eps)
		if LatticeCount(d, N)*nodes*len(in.U) > maxCand {
			return nil, nil
		}
	}
	dirs, err := ForEpsilon(family, d, eps)
	if err != nil {
		return nil, err
	}
	if dirs.Len()*nodes*len(in.U) > maxCand {
		return nil, nil
	}
	return dirs, nil
}

// coarsestLattice is the lattice with the largest N whose rays × node
// types × requests stay within maxCand, or nil when not even N = 1 does.
func coarsestLattice(in *Instance, maxCand int) *Directions {
	d, nodes := in.Dim(), max(len(in.Caps), 1)
	N := 0
	for LatticeCount(d, N+1)*nodes*len(in.U) <= maxCand && N < 1<<20 {
		N++
	}
	if N == 0 {
		return nil
	}
	return LatticeRays(d, N)
}

// solveLevel solves one ray-restricted problem as far as ctx allows and
// folds its shapes and bound into res.
func solveLevel(ctx context.Context, in *Instance, dirs *Directions, cost func([]float64) float64, cover []int, opts Options, res *Result) error {
	rp := buildRayProblem(ctx, in, dirs, cost)
	if rp == nil {
		return nil
	}
	return solveProblem(ctx, in, rp, cost, cover, opts, res)
}

// solveProblem solves one candidate problem (a ray level, or the grid
// joins with ρ = 1) and folds its answer and bound into res.
func solveProblem(ctx context.Context, in *Instance, rp *rayProblem, cost func([]float64) float64, cover []int, opts Options, res *Result) error {
	init, err := coverCandidates(rp, cover)
	if err != nil {
		return err
	}
	st := localSearch(ctx, rp, init, in.K, lsPool(rp, init))
	// Costs are non-negative, so 0 bounds OPT_rays.
	ls := &levelSolve{ctx: ctx, in: in, rp: rp, opts: opts, res: res, sel: st.sel, value: st.total, method: "ls"}
	if !opts.NoDP && rp.dpStates(in.K) <= dpMaxStates {
		ls.dp()
	}
	if !ls.exact && ctx.Err() == nil {
		ls.lagrange(st)
	}
	if ls.exact && ls.method != "ls+lagrange" {
		ls.bound = ls.value // the DP or the MIP proved value optimal
	}
	ls.record(cost)
	return nil
}

// coverCandidates is the local search's start: the candidate covering all
// the requests of each node type of the cover.
func coverCandidates(rp *rayProblem, cover []int) ([]int, error) {
	init := make([]int, 0, len(cover))
	seen := map[int]bool{}
	for _, n := range cover {
		c := rp.full[n]
		if c < 0 {
			return nil, fmt.Errorf("ptas: internal: no candidate covers node type %d's requests", n)
		}
		if !seen[c] {
			seen[c] = true
			init = append(init, c)
		}
	}
	return init, nil
}

// levelSolve is one level's search for the best K candidates: the
// incumbent selection and value, the proven bound on OPT_rays, the methods
// used and whether the value is proven optimal.
type levelSolve struct {
	ctx    context.Context
	in     *Instance
	rp     *rayProblem
	opts   Options
	res    *Result
	sel    []int
	value  float64
	bound  float64
	method string
	exact  bool
}

// dp solves the level exactly by dynamic programming when it finishes.
func (ls *levelSolve) dp() {
	dsel, dv, ok := levelDP(ls.ctx, ls.rp, ls.in.K)
	if !ok {
		return
	}
	if dsel != nil && dv < ls.value {
		ls.sel, ls.value = dsel, dv
	}
	ls.bound, ls.exact, ls.method = math.Min(dv, ls.value), true, "dp"
}

// lagrange bounds the level by Lagrangian relaxation (subgradient from the
// local search's state st) and, when the bound is not enough, tries the
// reduced MIP.
func (ls *levelSolve) lagrange(st *lsState) {
	ctx, opts, dirs := ls.ctx, ls.opts, ls.rp.dirs
	lg := newLagrange(ls.rp, ls.in.K)
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 300
	}
	// The bound may use lagShare of the remaining budget, so a coarse
	// level on a huge instance leaves time for finer ones.
	share := lagShare
	if ls.rp.lagShare > 0 {
		share = ls.rp.lagShare
	}
	lagCtx, cancel := shareOf(ctx, share)
	defer cancel()
	// A bound within lagEnough·(ρ−1) of the incumbent moves the final
	// guarantee by at most that much: stop there rather than chase the
	// long tail of the subgradient search (exactness proofs for tiny
	// instances still run to convergence through the DP or the MIP).
	stopAt := ls.value * (1 - lagEnough*(dirs.Rho-1))
	if opts.Epsilon > 0 {
		// with a target, stop as soon as it is certified: the level's
		// cost is at most value, so bound ≥ value·ρ/(1+ε) suffices
		stopAt = ls.value * dirs.Rho / (1 + opts.Epsilon)
	}
	lb := lg.subgradient(lagCtx, st, maxIter, stopAt)
	ls.bound = math.Max(ls.bound, lb)
	ls.method = "ls+lagrange"
	if lb >= ls.value*(1-optTol) {
		ls.exact = true
	} else if !opts.NoMIP && ctx.Err() == nil && lb < stopAt && (opts.Epsilon > 0 || dirs.Rho-1 <= mipCoarsest) {
		ls.mip(lg.keep(ls.value, ls.sel))
	}
}

// mip solves the MIP over the candidates keep, when they cover few enough
// requests, with mipShare of the remaining budget (leaving most of it to
// finer levels).
func (ls *levelSolve) mip(keep []int) {
	nz := 0
	for _, c := range keep {
		nz += int(ls.rp.cands[c].p)
	}
	if nz > mipMaxCover {
		return
	}
	limit := time.Duration(0)
	if dl, ok := ls.ctx.Deadline(); ok {
		limit = max(time.Duration(float64(time.Until(dl))*mipShare), time.Millisecond)
	}
	mr, err := solveMIP(ls.ctx, ls.rp, keep, ls.in.K, limit)
	if err != nil {
		// A backend failure costs the proof, not the answer: keep the
		// local-search solution and Lagrangian bound.
		mr = mipResult{value: math.Inf(1), bound: 0, backend: "failed"}
		ls.res.Notes = append(ls.res.Notes, err.Error())
	}
	ls.method = "ls+lagrange+mip/" + mr.backend
	if mr.sel != nil && mr.value < ls.value {
		ms := newState(ls.rp, mr.sel)
		if ms.total < ls.value {
			ls.sel, ls.value = ms.sel, ms.total
		}
	}
	// the reduced MIP proves OPT_rays ≥ min(value, its bound)
	ls.bound = math.Max(ls.bound, math.Min(ls.value, mr.bound))
	ls.exact = mr.optimal
}

// record adds the level's statistics to res and takes its answer when it
// is cheaper. Shapes are the joins of the requests each chosen candidate
// serves: exact in the input's numbers, never larger than the ray point,
// and inside the candidate's node.
func (ls *levelSolve) record(cost func([]float64) float64) {
	in, res, dirs := ls.in, ls.res, ls.rp.dirs
	stat := LevelStat{Family: dirs.Family, Param: dirs.Param, Rays: dirs.Len(), Rho: dirs.Rho, Candidates: len(ls.rp.cands),
		RayValue: ls.value, RayBound: ls.bound, Exact: ls.exact, Method: ls.method}
	fs := newState(ls.rp, ls.sel)
	groups := make([][]int, len(fs.sel))
	for j, s := range fs.b1 {
		groups[s] = append(groups[s], j)
	}
	var shapes [][]float64
	for _, g := range groups {
		if len(g) > 0 {
			shapes = append(shapes, Join(in.U, g))
		}
	}
	shapes, asg, total := Tighten(in, shapes, cost)
	stat.Cost = total
	res.Levels = append(res.Levels, stat)
	if total < res.Cost {
		res.Shapes, res.Assign, res.Cost = shapes, asg, total
		res.Method = fmt.Sprintf("%s/%s", dirs.Family, ls.method)
	}
	res.LowerBound = math.Max(res.LowerBound, ls.bound/dirs.Rho)
	if ls.exact && (res.Rho == 0 || dirs.Rho < res.Rho) {
		res.Rho = dirs.Rho
	}
}
