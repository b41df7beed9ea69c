package xselect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// searchShare is the part of the budget the λ search may use; the rest is
// kept for building and encoding the response: a 10,000-node answer with
// 167,000 containers took up to 0.45 s to assemble on the loaded benchmark
// machine, which overran a 2 s budget by 0.2 s with a share of 0.85.
const searchShare = 0.75

// improveCandidates is how many greedy packings (the least unplaced
// weight first) the local search starts from at one λ: the local search
// dominates the running time, and two bounds its cost per tested λ while
// still giving a second rule's packing a chance.
const improveCandidates = 2

// exactMaxVars caps nodes × groups for method exact: the MIP has about
// that many integer columns, and CBC needs minutes and gigabytes well
// before a hundred thousand of them.
const exactMaxVars = 100_000

// Methods accepted in Request.Method.
const (
	MethodHeuristic = "heuristic"
	MethodExact     = "exact"
)

// ScoreAuto runs every built-in greedy rule and keeps the first that packs.
const ScoreAuto = "auto"

// outcome is what a solve produced before it is turned into a Result.
type outcome struct {
	m       *model
	lambda  vecpack.Lambda
	search  vecpack.SearchResult
	ub      float64 // raw bound (LP or fallback)
	note    string
	sp      *spec // instance of the accepted packing (nil: empty packing)
	pack    *vecpack.Packing
	rule    string
	kept    vecpack.Lambda // λ attained by pack
	timeout bool
	exact   bool
	// incremental replans
	inc *incremental
}

// solve packs a built request.
func solve(ctx context.Context, b solver.Built[Request, *model], opts solver.Options) (any, solver.Meta, error) {
	out, err := runModel(ctx, b.Req, b.In, opts, Variant{})
	if err != nil {
		return nil, solver.Meta{}, err
	}
	res := out.result()
	return res, out.meta(res), nil
}

// Variant switches parts of the heuristic off, for benchmarks and
// ablations; the zero value is the full solver.
type Variant struct {
	// NoGuide drops the LP-guided greedy (only the plain fill-one-node
	// greedy runs).
	NoGuide bool
	// NoLocalSearch stops after the greedy phase.
	NoLocalSearch bool
}

// SolveVariant solves a decoded request with a variant of the heuristic and
// returns the result and meta as Solve would.
func SolveVariant(ctx context.Context, req *Request, opts solver.Options, v Variant) (*Result, solver.Meta, error) {
	out, err := runVariant(ctx, req, opts, v)
	if err != nil {
		return nil, solver.Meta{}, err
	}
	res := out.result()
	return res, out.meta(res), nil
}

// meta fills the response metadata.
func (out *outcome) meta(res *Result) solver.Meta {
	meta := solver.Meta{Solver: "xselect/greedy+local-search"}
	if out.exact {
		meta.Solver = "xselect/cbc"
	}
	meta.SetObjective(res.Lambda)
	meta.SetBound(res.UpperBound)
	switch {
	case out.timeout:
		meta.Status = solver.StatusTimeout
	case res.Gap == 0 && out.search.Complete:
		meta.Status = solver.StatusOptimal
	default:
		meta.Status = solver.StatusFeasible
	}
	meta.Notes = append(meta.Notes, out.note)
	if out.rule != "" {
		meta.Notes = append(meta.Notes, "packing from greedy rule "+out.rule)
	}
	return meta
}

// run validates, bounds and searches.
func run(ctx context.Context, req *Request, opts solver.Options) (*outcome, error) {
	return runVariant(ctx, req, opts, Variant{})
}

// runVariant builds req's model and runs variant v on it.
func runVariant(ctx context.Context, req *Request, opts solver.Options, v Variant) (*outcome, error) {
	m, err := build(req)
	if err != nil {
		return nil, err
	}
	return runModel(ctx, req, m, opts, v)
}

// runModel runs the λ search of variant v on req's model m.
func runModel(ctx context.Context, req *Request, m *model, opts solver.Options, v Variant) (*outcome, error) {
	rules, err := rulesFor(req)
	if err != nil {
		return nil, err
	}
	exact := req.Method == MethodExact
	if exact && m.N*len(m.groups) > exactMaxVars {
		return nil, solver.Invalid("/method", "method exact is for small instances: %d nodes × %d container groups exceeds %d MIP columns; use heuristic", m.N, len(m.groups), exactMaxVars)
	}
	out := &outcome{m: m, exact: exact}
	sctx := ctx
	if dl, ok := ctx.Deadline(); ok && !opts.Start.IsZero() {
		d := time.Duration(float64(time.Until(dl)) * searchShare)
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	out.ub, out.note = m.upperBound(sctx)
	ls, err := newLambdaSearch(req, opts, v, rules, out)
	if err != nil {
		return nil, err
	}
	res, err := ls.run(sctx, v)
	if err := out.settle(ctx, res, err, ls.c); err != nil {
		return nil, err
	}
	return out, nil
}

// rulesFor is the greedy rules the request asks for: every rule, or the
// one it names.
func rulesFor(req *Request) ([]vecpack.Rule, error) {
	if req.Score == "" || req.Score == ScoreAuto {
		return vecpack.Rules(), nil
	}
	r, err := vecpack.RuleByName(req.Score)
	if err != nil {
		return nil, solver.Invalid("/score", "%v", err)
	}
	return []vecpack.Rule{r}, nil
}

// lambdaSearch is the λ search's state: the required counts c, the
// starting point (a valid current packing), the cap on λ and the oracles'
// rules, random source and LP guide. The packings its oracles find are
// kept in out.
type lambdaSearch struct {
	m           *model
	out         *outcome
	c           []int64
	rules       []vecpack.Rule
	rng         *rand.Rand
	guide       *lpGuide
	exact       bool
	start       vecpack.Lambda
	startCounts []int64
	capUB       float64
}

func newLambdaSearch(req *Request, opts solver.Options, v Variant, rules []vecpack.Rule, out *outcome) (*lambdaSearch, error) {
	m := out.m
	ls := &lambdaSearch{m: m, out: out, c: m.required(), rules: rules, exact: out.exact, guide: m.lp,
		rng: rand.New(rand.NewPCG(uint64(opts.Seed), 0x78736c6374))}
	if v.NoGuide {
		ls.guide = nil
	}
	if ls.guide != nil {
		ls.guide.seed = uint64(opts.Seed)
	}
	total := int64(0)
	for _, cg := range ls.c {
		total += cg
	}
	ls.capUB = math.Min(out.ub, float64(maxContainers)/float64(total))
	if ls.capUB < out.ub {
		out.note += fmt.Sprintf("; λ search capped at %d containers", maxContainers)
	}
	if req.Current != nil {
		inc, err := m.newIncremental()
		if err != nil {
			return nil, err
		}
		out.inc = inc
		if inc.valid {
			ls.start, ls.startCounts = vecpack.Attained(inc.curGroup, ls.c), inc.curGroup
		}
	}
	return ls, nil
}

// run searches λ. Without a current packing and in heuristic mode it runs
// two phases: the greedy alone (every rule, LP-guided and plain) is cheap,
// so phase 1 brackets and bisects with it first; phase 2 bisects above its
// answer with the local search as well. Progress: phase 1 fills the first
// half of the fraction, phase 2 the second.
func (ls *lambdaSearch) run(ctx context.Context, v Variant) (vecpack.SearchResult, error) {
	ub := ls.out.ub
	if ls.out.inc != nil || ls.exact {
		return vecpack.MaxLambdaReporting(ctx, vecpack.Span{Phase: "λ search", From: 0, To: 1, Bound: ub, Exact: ls.exact},
			ls.c, ls.start, ls.startCounts, ls.capUB, ls.oracle)
	}
	res, err := vecpack.MaxLambdaReporting(ctx, vecpack.Span{Phase: "λ search (greedy)", From: 0, To: 0.5, Bound: ub},
		ls.c, ls.start, ls.startCounts, ls.capUB, ls.greedyOnly)
	calls := res.Calls
	if err == nil && !v.NoLocalSearch && res.Best.Float() < res.Cap.Float() {
		ls.start, ls.startCounts = res.Best, res.Counts
		res, err = vecpack.MaxLambdaReporting(ctx, vecpack.Span{Phase: "λ search (local search)", From: 0.5, To: 1, Bound: ub},
			ls.c, ls.start, ls.startCounts, ls.capUB, ls.oracle)
	}
	res.Calls += calls
	return res, err
}

// keep records a packing when it attains more than the best so far; the λ
// search applies the same comparison, so the kept packing is always the
// one behind the search's best λ. It returns the counts p achieves.
func (ls *lambdaSearch) keep(ctx context.Context, sp *spec, p *vecpack.Packing, rule string) []int64 {
	out := ls.out
	a := achieved(ls.m, sp, p)
	if att := vecpack.Attained(a, ls.c); out.pack == nil || att.Float() > out.kept.Float() {
		out.sp, out.pack, out.rule, out.kept = sp, p, rule, att
		ls.offer(ctx)
	}
	return a
}

// offer hands the kept packing, as the answer it would be were the search
// to stop now, to the job running the solve (progress.Offer). Only inside
// a job, and not for incremental replans, whose answer also depends on
// the current packing's moves.
func (ls *lambdaSearch) offer(ctx context.Context) {
	if ls.out.inc != nil || !progress.Listening(ctx) {
		return
	}
	snap := *ls.out
	snap.lambda = snap.kept
	snap.search = vecpack.SearchResult{}
	res := snap.result()
	meta := snap.meta(res)
	progress.Offer(ctx, progress.Incumbent{Result: res, Objective: meta.Objective, Bound: meta.Bound, Solver: meta.Solver})
}

// oracle packs counts n: incrementally from the current packing, exactly
// by the MIP, or by the greedy rules and the local search.
func (ls *lambdaSearch) oracle(ctx context.Context, n []int64) (bool, []int64, error) {
	if ls.out.inc != nil {
		return ls.out.inc.try(ctx, n, ls.rules, ls.rng, ls.exact, ls.out)
	}
	sp := ls.m.buildSpec(n, nil)
	if ls.exact {
		p, ok, err := exactPack(ctx, sp)
		if ok {
			ls.keep(ctx, sp, p, "")
		}
		return ok, nil, err
	}
	p, rule, ok, err := heuristicPack(ctx, sp, ls.c, ls.rules, ls.rng, ls.guide)
	if p == nil {
		return false, nil, err
	}
	a := ls.keep(ctx, sp, p, rule)
	if ok {
		return true, nil, nil
	}
	return false, a, err
}

// greedyOnly is phase 1's oracle. It runs the first rule only when guided
// (guided, the rules land within about 0.5% of each other; table 3 of
// benchmarks/xselect), so each call costs one greedy; phase 2 tries every
// rule.
func (ls *lambdaSearch) greedyOnly(ctx context.Context, n []int64) (bool, []int64, error) {
	sp := ls.m.buildSpec(n, nil)
	rs := ls.rules
	if ls.guide != nil {
		rs = ls.rules[:1]
	}
	p, rule, ok, err := greedyPack(ctx, sp, ls.c, rs, ls.guide, true)
	if p == nil {
		return false, nil, err
	}
	a := ls.keep(ctx, sp, p, rule)
	if ok && err == nil {
		return true, nil, nil
	}
	return false, a, err
}

// settle records the search's result res (and its error err) in the
// outcome: the best λ, a timeout, the notes, and the final progress report
// of the best λ against the bound, which an exact complete search has
// closed. It returns err when the search failed for another reason than
// the budget.
func (out *outcome) settle(ctx context.Context, res vecpack.SearchResult, err error, c []int64) error {
	out.search = res
	out.lambda = res.Best
	if out.inc == nil && out.pack != nil && out.kept.Float() > out.lambda.Float() {
		// A partial packing recorded when the budget ran out mid-call.
		out.lambda = out.kept
	}
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, errUndecided) {
			return fmt.Errorf("xselect: λ search: %w", err)
		}
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return ctx.Err()
		}
		out.timeout = true
	}
	if out.exact && res.Complete {
		// An exact oracle over every breakpoint proves optimality.
		out.ub = math.Min(out.ub, res.Best.Float())
		out.note += "; exact search complete"
	}
	if out.inc != nil && out.pack == nil && out.inc.valid {
		out.note += "; current packing kept"
	}
	lam := out.lambda.Float()
	progress.Report(ctx, progress.Progress{Phase: "λ search done", Fraction: progress.F(1),
		Objective: progress.F(lam), Bound: progress.F(math.Max(vecpack.BreakpointAtMost(out.ub, c).Float(), lam))})
	return nil
}

// heuristicPack runs every rule's greedy, then the local search from the
// greedy packings (least unplaced weight first) until one packs all items.
// candidate is one greedy packing and the rule that made it.
type candidate struct {
	p    *vecpack.Packing
	rule string
}

// greedyPack runs the LP-guided greedy and (unless guidedOnly and an LP
// guide exists) the plain greedy with every rule; it returns the first
// complete packing.
// On failure it returns the candidate whose partial packing attains the
// largest λ (ok false).
func greedyPack(ctx context.Context, sp *spec, c []int64, rules []vecpack.Rule, guide *lpGuide, guidedOnly bool) (*vecpack.Packing, string, bool, error) {
	p, rule, cands, err := greedyCandidates(ctx, sp, rules, guide, guidedOnly)
	if p != nil {
		return p, rule, true, err
	}
	p, rule = bestPartial(sp, cands, c)
	return p, rule, false, err
}

// achieved is the number of containers of each group a (possibly partial)
// packing of sp holds.
func achieved(m *model, sp *spec, p *vecpack.Packing) []int64 {
	a := make([]int64, len(m.groups))
	for t, ms := range sp.members {
		k := int64(sp.in.Types[t].Count - p.Left[t])
		for _, g := range ms {
			a[g] += k
		}
	}
	return a
}

// bestPartial picks the candidate whose placed items attain the largest
// λ, min over groups of placed/c (ties to the earlier candidate).
func bestPartial(sp *spec, cands []candidate, c []int64) (*vecpack.Packing, string) {
	var best *vecpack.Packing
	rule := ""
	bestV := -1.0
	for _, cd := range cands {
		placed := make([]int64, len(c))
		for t, ms := range sp.members {
			for _, g := range ms {
				placed[g] += int64(sp.in.Types[t].Count - cd.p.Left[t])
			}
		}
		v := math.Inf(1)
		for g, cg := range c {
			v = math.Min(v, float64(placed[g])/float64(cg))
		}
		if v > bestV {
			best, rule, bestV = cd.p, cd.rule, v
		}
	}
	return best, rule
}

// greedyCandidates returns the first complete greedy packing, or every
// incomplete one (for the local search). When ctx expires it returns the
// error together with the candidates so far, the interrupted one included
// (a partially filled packing is still a valid packing of what it holds).
func greedyCandidates(ctx context.Context, sp *spec, rules []vecpack.Rule, guide *lpGuide, guidedOnly bool) (*vecpack.Packing, string, []candidate, error) {
	type cand = candidate
	var cands []cand
	// With colocation the configuration packer comes after the LP-guided
	// greedies, which packed those instances before it did: where they
	// succeed the answer stays as it was.
	bundled := sp.bundled()
	if !bundled {
		if p, name, err := configCandidate(ctx, sp, rules, guide, &cands); p != nil || err != nil {
			return p, name, cands, err
		}
	}
	if guide != nil {
		for _, r := range rules {
			p, err := vecpack.GreedyGuided(ctx, sp.in, r, nil, guide.quota(sp))
			if err != nil {
				if p != nil {
					cands = append(cands, cand{p, r.Name + "+lp-guided"})
				}
				return nil, "", cands, err
			}
			if p.Unplaced() == 0 {
				return p, r.Name + "+lp-guided", nil, nil
			}
			cands = append(cands, cand{p, r.Name + "+lp-guided"})
		}
	}
	if bundled {
		if p, name, err := configCandidate(ctx, sp, rules, guide, &cands); p != nil || err != nil {
			return p, name, cands, err
		}
	}
	if guidedOnly && guide != nil {
		return nil, "", cands, nil
	}
	for _, r := range rules {
		p, err := vecpack.Greedy(ctx, sp.in, r, nil)
		if err != nil {
			if p != nil {
				cands = append(cands, cand{p, r.Name})
			}
			return nil, "", cands, err
		}
		if p.Unplaced() == 0 {
			return p, r.Name, nil, nil
		}
		cands = append(cands, cand{p, r.Name})
	}
	return nil, "", cands, nil
}

// configCandidate runs the configuration packer when the guide has a
// configuration LP. It returns the packing when it holds every item;
// otherwise it appends the partial packing to cands and returns nil, with
// the error when ctx ended.
func configCandidate(ctx context.Context, sp *spec, rules []vecpack.Rule, guide *lpGuide, cands *[]candidate) (*vecpack.Packing, string, error) {
	if guide == nil || guide.cfg == nil || len(rules) == 0 {
		return nil, "", nil
	}
	p, err := configPack(ctx, sp, guide.cfg, rules[0], guide.seed)
	if p != nil {
		name := "configuration-lp+" + rules[0].Name
		if err == nil && p.Unplaced() == 0 {
			return p, name, nil
		}
		*cands = append(*cands, candidate{p, name})
	}
	if err != nil && ctx.Err() != nil {
		return nil, "", err
	}
	return nil, "", nil
}

// heuristicPack is greedyCandidates followed by the local search from the
// greedy packings, least unplaced weight first, until one packs every item.
//
// With a configuration LP the plain (unguided) greedies are skipped: they
// land 10–35% under the bound (table 3 of benchmarks/xselect), never
// closer than the configuration packing, and each costs a pass over every
// node.
func heuristicPack(ctx context.Context, sp *spec, c []int64, rules []vecpack.Rule, rng *rand.Rand, guide *lpGuide) (*vecpack.Packing, string, bool, error) {
	p, rule, cands, err := greedyCandidates(ctx, sp, rules, guide, guide != nil && guide.cfg != nil)
	if p != nil || err != nil {
		if p == nil {
			p, rule = bestPartial(sp, cands, c)
		}
		return p, rule, p != nil && err == nil, err
	}
	// Stable order by unplaced weight, ties by rule order.
	for i := 1; i < len(cands); i++ {
		for j := i; j > 0 && cands[j].p.UnplacedWeight() < cands[j-1].p.UnplacedWeight(); j-- {
			cands[j], cands[j-1] = cands[j-1], cands[j]
		}
	}
	nImprove := improveCandidates
	if guide != nil && guide.cfg != nil {
		// With the configuration packing among the candidates, a second
		// local search (from the next-least-unplaced candidate) changed
		// no λ on the benchmark cases and cost most of the time of the
		// last, failing bisection step: dropping it cut the 1,000-node,
		// 4-resource solve from 0.90 s to 0.23 s at the same λ.
		nImprove = 1
	}
	for i, cd := range cands[:min(len(cands), nImprove)] {
		if _, err := cd.p.Improve(ctx, vecpack.ImproveOptions{Rules: rules, Rand: rng}); err != nil {
			p, rule = bestPartial(sp, cands, c)
			return p, rule, false, err
		}
		cands[i].rule += "+local-search"
		if cd.p.Unplaced() == 0 {
			return cd.p, cands[i].rule, true, nil
		}
	}
	p, rule = bestPartial(sp, cands, c)
	return p, rule, false, nil
}

// configPack packs sp from the configuration LP's solution for its counts
// (every container, colocated ones included, so that the configurations
// leave room for the bundles the fill places afterwards). It returns nil
// without error when the counts do not fit the configuration LP (no
// packing holds them) or its column generation stopped without proof.
func configPack(ctx context.Context, sp *spec, cfg *configLP, rule vecpack.Rule, seed uint64) (*vecpack.Packing, error) {
	n := make([]int64, len(sp.single))
	for t, ms := range sp.members {
		for _, g := range ms {
			n[g] += int64(sp.in.Types[t].Count)
		}
	}
	_, sol, err := cfg.fits(ctx, n)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, nil
	}
	p, err := cfg.pack(ctx, sp, sol, rule)
	if err != nil || p.Unplaced() == 0 {
		return p, err
	}
	// The rounding leaves a few containers at most: a short local search
	// (seeded from the request's seed afresh on every call, so the same
	// counts always give the same packing) usually finds them a place.
	_, err = p.Improve(ctx, vecpack.ImproveOptions{Rules: []vecpack.Rule{rule}, Rand: rand.New(rand.NewPCG(seed, 0x636667)), MaxRounds: cfgRepairRounds})
	return p, err
}

// cfgRepairRounds caps the local search after the configuration packing:
// it starts a handful of containers short, and each round costs a pass
// over the nodes.
const cfgRepairRounds = 4
