package vecpack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/xflex/xflex/internal/progress"
)

// The λ search of X-Select.
//
// Given required counts c_g > 0 (one per container group), a multiplier λ
// asks for n_g(λ) = ⌈λ·c_g⌉ containers of every group. The best λ is the
// largest one for which some valid packing holds n_g(λ) containers of each
// group; equivalently the maximum over packings of min_g N_g/c_g. Since
// n_g(λ) only changes at the breakpoints k/c_g, and the λ a count vector
// attains is min_g n_g/c_g, the optimum is always one of those fractions,
// and feasibility is monotone in λ (fewer containers never hurt). The
// search therefore runs over breakpoints and is exact for an exact oracle.

// Lambda is a breakpoint k/c (c one of the required counts).
type Lambda struct {
	Num, Den int64
}

// Float is the value as a float64.
func (l Lambda) Float() float64 {
	if l.Den == 0 {
		return 0
	}
	return float64(l.Num) / float64(l.Den)
}

// String is "k/c" in lowest terms.
func (l Lambda) String() string {
	if l.Den == 0 || l.Num == 0 {
		return "0"
	}
	r := l.rat()
	if r.IsInt() {
		return r.Num().String()
	}
	return r.String()
}

func (l Lambda) rat() *big.Rat {
	if l.Den == 0 {
		return new(big.Rat)
	}
	return big.NewRat(l.Num, l.Den)
}

// Counts returns n_g = ⌈λ·c_g⌉ for every group.
func (l Lambda) Counts(c []int64) []int64 {
	n := make([]int64, len(c))
	if l.Den == 0 || l.Num == 0 {
		return n
	}
	num, den := big.NewInt(l.Num), big.NewInt(l.Den)
	var x, q, m big.Int
	for g, cg := range c {
		x.Mul(num, big.NewInt(cg))
		q.DivMod(&x, den, &m) // floor, since all operands are non-negative
		if m.Sign() != 0 {
			q.Add(&q, big.NewInt(1))
		}
		n[g] = q.Int64()
	}
	return n
}

// Attained returns the λ a count vector attains: min_g n_g/c_g.
func Attained(n, c []int64) Lambda {
	var best Lambda
	first := true
	for g := range c {
		cand := Lambda{n[g], c[g]}
		if first || cand.rat().Cmp(best.rat()) < 0 {
			best, first = cand, false
		}
	}
	return best
}

// snapUp is the smallest breakpoint ≥ x: min_g ⌈x·c_g⌉/c_g. It has the
// same count vector as x.
func snapUp(x float64, c []int64) Lambda {
	var best Lambda
	first := true
	for _, cg := range c {
		k := int64(math.Ceil(x*float64(cg) - breakTol))
		cand := Lambda{k, cg}
		if first || cand.rat().Cmp(best.rat()) < 0 {
			best, first = cand, false
		}
	}
	return best
}

// snapDown is the largest breakpoint ≤ x: max_g ⌊x·c_g⌋/c_g.
func snapDown(x float64, c []int64) Lambda {
	var best Lambda
	first := true
	for _, cg := range c {
		k := int64(math.Floor(x*float64(cg) + breakTol))
		cand := Lambda{k, cg}
		if first || cand.rat().Cmp(best.rat()) > 0 {
			best, first = cand, false
		}
	}
	return best
}

// next is the smallest breakpoint strictly above l: min_g (⌊l·c_g⌋+1)/c_g.
func next(l Lambda, c []int64) Lambda {
	var best Lambda
	first := true
	lr := l.rat()
	for _, cg := range c {
		var x big.Int
		x.Mul(lr.Num(), big.NewInt(cg))
		x.Quo(&x, lr.Denom())
		cand := Lambda{x.Int64() + 1, cg}
		if first || cand.rat().Cmp(best.rat()) < 0 {
			best, first = cand, false
		}
	}
	return best
}

// Oracle decides whether the count vector n can be packed. It returns ok
// and may keep the packing it found. When it cannot pack n it may still
// return achieved, the counts of a valid partial packing it found (any
// feasible count vector): the search then raises its lower end to the λ
// those counts attain, which makes the search useful from its first call
// even when the budget allows only one. An error aborts the search (a
// context error ends it with the best λ so far).
type Oracle func(ctx context.Context, n []int64) (ok bool, achieved []int64, err error)

// SearchResult is the outcome of MaxLambda.
type SearchResult struct {
	// Best is the largest λ the oracle accepted (0 when none); Counts its
	// count vector.
	Best   Lambda
	Counts []int64
	// Cap is the largest breakpoint not above the upper bound given.
	Cap Lambda
	// FailedAt is the smallest λ the oracle rejected (zero Den if none).
	FailedAt Lambda
	// Calls is the number of oracle calls.
	Calls int
	// Complete is true when no breakpoint lies strictly between Best and
	// min(FailedAt, Cap] untested, i.e. the search finished.
	Complete bool
}

// initialStep is the first downward step of the bracket phase, as a
// fraction of the distance between the cap and the best λ so far: the
// greedy usually lands within a few percent of the LP bound, so starting
// small saves oracle calls; the step doubles on every failure.
const initialStep = 1.0 / 64

// firstDrop places the first oracle call that far below the cap (as a
// fraction of it): on the benchmark instances the greedy alone lands 0.2%
// to 5% under the rounded LP bound, so 5% below is usually feasible and
// already close.
const firstDrop = 0.05

// MaxLambda brackets and bisects over breakpoints for the largest λ ≤ ub
// the oracle accepts. c holds the required counts (all > 0); start is a λ
// already known to be feasible (zero value: none, λ = 0 is always
// feasible) and startCounts its count vector; ub is an upper bound on λ
// (finite, ≥ 0). The bracket phase tests the largest
// breakpoint under ub, then steps down geometrically until the oracle
// accepts; bisection over the breakpoints then closes the bracket. Each
// tested point is a breakpoint, so the answer is attained exactly.
func MaxLambda(ctx context.Context, c []int64, start Lambda, startCounts []int64, ub float64, oracle Oracle) (SearchResult, error) {
	return maxLambda(ctx, nil, c, start, startCounts, ub, oracle)
}

// Span places the progress reports of a λ search (package progress) in a
// larger solve. The search's own fraction done, 1 − (remaining bracket
// width)/(initial width), where the bracket runs from the best λ to the
// smallest rejected λ or the cap, maps linearly onto [From, To].
type Span struct {
	Phase    string
	From, To float64
	// Bound is a proven upper bound on λ (e.g. the LP bound); the reports
	// carry the largest breakpoint not above it.
	Bound float64
	// Exact says the oracle's rejections are proofs, so the reported
	// bound also drops to the smallest rejected λ.
	Exact bool
}

// MaxLambdaReporting is MaxLambda reporting its progress through ctx after
// every oracle call and at the end: Objective is the best λ so far, Bound
// the proven upper bound (never below the best λ), Fraction as in span.
// The reports cost a few float operations per oracle call and never
// change the search.
func MaxLambdaReporting(ctx context.Context, span Span, c []int64, start Lambda, startCounts []int64, ub float64, oracle Oracle) (SearchResult, error) {
	return maxLambda(ctx, &span, c, start, startCounts, ub, oracle)
}

// searchReporter turns the state of one λ search into progress reports.
type searchReporter struct {
	span   *Span
	bound  float64 // breakpoint at most span.Bound; +Inf when unknown
	width0 float64 // initial bracket width; 0 when the search starts closed
}

func newSearchReporter(span *Span, c []int64, res *SearchResult) *searchReporter {
	r := &searchReporter{span: span, bound: math.Inf(1)}
	if !math.IsNaN(span.Bound) && !math.IsInf(span.Bound, 0) {
		r.bound = BreakpointAtMost(span.Bound, c).Float()
	}
	r.width0 = math.Max(res.Cap.Float()-res.Best.Float(), 0)
	return r
}

func (r *searchReporter) report(ctx context.Context, res *SearchResult) {
	best := res.Best.Float()
	hi := res.Cap.Float()
	if res.FailedAt.Den != 0 {
		hi = math.Min(hi, res.FailedAt.Float())
	}
	frac := 1.0
	if !res.Complete && r.width0 > 0 {
		frac = 1 - math.Max(hi-best, 0)/r.width0
	}
	frac = min(max(frac, 0), 1)
	bound := r.bound
	if r.span.Exact && res.FailedAt.Den != 0 {
		bound = math.Min(bound, res.FailedAt.Float())
	}
	if res.Complete && r.span.Exact {
		bound = best // every breakpoint above it was rejected or is above the cap
	}
	progress.Report(ctx, progress.Progress{Phase: r.span.Phase,
		Fraction:  progress.F(r.span.From + (r.span.To-r.span.From)*frac),
		Objective: progress.F(best), Bound: progress.F(math.Max(bound, best))})
}

func maxLambda(ctx context.Context, span *Span, c []int64, start Lambda, startCounts []int64, ub float64, oracle Oracle) (SearchResult, error) {
	res := SearchResult{Counts: make([]int64, len(c))}
	if start.Den != 0 && start.Num > 0 {
		res.Best = start
		copy(res.Counts, startCounts)
	}
	if err := checkSearch(c, ub); err != nil {
		return res, err
	}
	res.Cap = BreakpointAtMost(ub, c)
	var rep *searchReporter
	if span != nil {
		rep = newSearchReporter(span, c, &res)
	}
	// With a known feasible start the bracket is [start, cap] already:
	// bisect directly.
	b := &bisection{res: &res, c: c, capR: res.Cap.rat(), capR0: res.Cap.Float(), step: initialStep, accepted: res.Best.Num > 0}
	for {
		lo := res.Best
		nb := next(lo, c)
		if nb.rat().Cmp(b.capR) > 0 || (res.FailedAt.Den != 0 && nb.rat().Cmp(res.FailedAt.rat()) >= 0) {
			res.Complete = true
			if rep != nil {
				rep.report(ctx, &res)
			}
			return res, nil
		}
		cand := b.candidate(lo, nb)
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n := cand.Counts(c)
		ok, achieved, err := oracle(ctx, n)
		res.Calls++
		if err != nil {
			return res, err
		}
		b.record(cand, n, ok, achieved)
		if rep != nil {
			rep.report(ctx, &res)
		}
	}
}

// checkSearch refuses required counts that are missing or not positive
// and a bound that is not finite and non-negative.
func checkSearch(c []int64, ub float64) error {
	if len(c) == 0 {
		return errors.New("vecpack: no required counts")
	}
	for g, cg := range c {
		if cg <= 0 {
			return fmt.Errorf("vecpack: required count %d of group %d is not positive", cg, g)
		}
	}
	if math.IsNaN(ub) || math.IsInf(ub, 0) || ub < 0 {
		return fmt.Errorf("vecpack: upper bound %v is not finite and non-negative", ub)
	}
	return nil
}

// bisection is maxLambda's search state: the result so far, the cap (as a
// rational and a float), the bracket phase's step and whether any λ was
// accepted.
type bisection struct {
	res         *SearchResult
	c           []int64
	capR        *big.Rat
	capR0, step float64
	accepted    bool
}

// candidate is the next λ to try above lo (nb its next breakpoint).
func (b *bisection) candidate(lo, nb Lambda) Lambda {
	res, c := b.res, b.c
	var cand Lambda
	switch {
	case res.FailedAt.Den == 0 && res.Calls == 0 && !b.accepted:
		// First call without a known feasible point: just below the
		// cap, where a good packer usually succeeds, so the search
		// holds a good λ after one call even if the budget allows
		// no second; the cap is tested next.
		cand = snapUp(b.capR0*(1-firstDrop), c)
		if cand.rat().Cmp(b.capR) > 0 || cand.rat().Cmp(lo.rat()) <= 0 {
			cand = res.Cap
		}
	case res.FailedAt.Den == 0:
		cand = res.Cap
	default:
		loF, hiF := lo.Float(), res.FailedAt.Float()
		var x float64
		if !b.accepted && b.step < 0.5 {
			// Bracket phase: nothing accepted yet, step down from the cap.
			x = hiF - (hiF-loF)*b.step
			b.step *= 2
		} else {
			x = (loF + hiF) / 2
		}
		cand = snapUp(x, c)
		if cand.rat().Cmp(lo.rat()) <= 0 || cand.rat().Cmp(res.FailedAt.rat()) >= 0 {
			cand = nb
		}
	}
	if cand.rat().Cmp(b.capR) > 0 {
		cand = res.Cap
	}
	return cand
}

// record takes the oracle's verdict on cand (counts n): accepted, it is
// the best λ; rejected, it bounds the search from above, and the counts
// the oracle achieved still raise the best λ when they attain more.
func (b *bisection) record(cand Lambda, n []int64, ok bool, achieved []int64) {
	res := b.res
	if ok {
		b.accepted = true
		res.Best = Attained(n, b.c)
		res.Counts = n
		return
	}
	res.FailedAt = cand
	if achieved != nil {
		if a := Attained(achieved, b.c); a.rat().Cmp(res.Best.rat()) > 0 && a.rat().Cmp(cand.rat()) < 0 {
			b.accepted = true
			res.Best = a
			res.Counts = achieved
		}
	}
}

// BreakpointAtMost is the largest breakpoint k/c_g not above the bound ub
// (with BoundTol slack for LP round-off). Since the optimal λ is always a
// breakpoint, it is itself a valid, tighter upper bound.
func BreakpointAtMost(ub float64, c []int64) Lambda {
	if len(c) == 0 || math.IsNaN(ub) || ub <= 0 {
		return Lambda{0, 1}
	}
	if math.IsInf(ub, 1) {
		ub = math.MaxInt64 / 4 / float64(slicesMax(c))
	}
	return snapDown(ub*(1+BoundTol)+snapSlack, c)
}

func slicesMax(c []int64) int64 {
	m := int64(1)
	for _, x := range c {
		m = max(m, x)
	}
	return m
}
