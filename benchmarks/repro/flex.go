package repro

import (
	"context"
	"fmt"
	"slices"
	"time"

	benchflex "github.com/xflex/xflex/benchmarks/flex"
	"github.com/xflex/xflex/sight"
)

// flexInstances is the paper's 100 simulations per point.
const flexInstances = 100

// flexTask is the work-to-slots reading closest to the paper (4 tasks
// per unit of work, so a job may use more slots): the conversion the
// paper leaves open, and what its Fair figure depends on.
const flexTask = "0.25"

// flexSection is the Flex paper: the base case and Fig. 5(a), 5(b).
func flexSection(ctx context.Context, _ bool) ([]Claim, []Figure, error) {
	per := 20 * time.Second
	def, err := benchflex.Figure5(ctx, "slack", []float64{0.75}, nil, flexInstances, per)
	if err != nil {
		return nil, nil, err
	}
	alt, err := benchflex.Figure5(ctx, "slack", []float64{0.75}, map[string]string{"task": flexTask}, flexInstances, per)
	if err != nil {
		return nil, nil, err
	}
	a, err := benchflex.Figure5(ctx, "slack", benchflex.Figure5Slack, map[string]string{"task": flexTask}, flexInstances, per)
	if err != nil {
		return nil, nil, err
	}
	b, err := benchflex.Figure5(ctx, "small", benchflex.Figure5Small, map[string]string{"task": flexTask}, flexInstances, per)
	if err != nil {
		return nil, nil, err
	}
	search, err := benchflex.RunStudy(ctx, benchflex.Study{Name: "avg response time", Params: map[string]string{"metric": "weighted_response_time", "task": flexTask}}, flexInstances, per)
	if err != nil {
		return nil, nil, err
	}
	d, t := def[0], alt[0]
	cmd := "xflex bench repro (benchmarks/flex.Figure5)"
	reading := "100 instances, 10 jobs, 100 slots, 80% small, 75% slack; task=" + flexTask + " (M_j = min(S, ⌈4·work_j⌉)); task=1 is the generator's default"
	claims := []Claim{
		{Paper: "Flex", Claim: "Base case: FIFO average and worst ratio to the optimum", PaperFigure: "207% / 324%",
			Ours:    fmt.Sprintf("%s / %s (task=1: %s / %s)", pct(t.FIFO.Avg()), pct(t.FIFO.Worst), pct(d.FIFO.Avg()), pct(d.FIFO.Worst)),
			Verdict: worse(closeness(t.FIFO.Avg(), 2.07), closeness(t.FIFO.Worst, 3.24)), Command: cmd, Quick: true,
			Why: "FIFO's worst case depends on where the large jobs fall in 100 random orders; " + reading},
		{Paper: "Flex", Claim: "Base case: Fair average and worst ratio to the optimum", PaperFigure: "154% / 161%",
			Ours:    fmt.Sprintf("%s / %s (task=1: %s / %s)", pct(t.Fair.Avg()), pct(t.Fair.Worst), pct(d.Fair.Avg()), pct(d.Fair.Worst)),
			Verdict: worse(closeness(t.Fair.Avg(), 1.54), closeness(t.Fair.Worst, 1.61)), Command: cmd, Quick: true,
			Why: "RESULTS.md's 141%/157% is the task=1 conversion: with jobs' maxima tight, Fair's water level is capped by them and wastes less; with 4 tasks per unit of work (maxima looser) Fair spreads the slots as the paper's does"},
		{Paper: "Flex", Claim: "Base case: Flex within 0.1% of the optimum (worst case)", PaperFigure: "< 100.1%",
			Ours: fmt.Sprintf("the paper's Flex (orderings through MPS, no search) %.2f%% / %.2f%% (task=1: %.2f%% worst); with our local search %.2f%% / %.2f%%",
				100*t.Flex.Avg(), 100*t.Flex.Worst, 100*d.Flex.Worst, 100*search.Flex.Avg(), 100*search.Flex.Worst),
			Verdict: flexVerdict(t.Flex.Worst, search.Flex.Worst), Command: cmd, Quick: true,
			Why: "the RAP and metric-specific orderings alone miss the optimum by up to 0.3% on a few instances; the iterated local search closes it"},
		fig5aClaim(a, cmd),
		fig5bClaim(b, cmd),
	}
	return claims, []Figure{figure5(a, b)}, nil
}

// fig5aClaim: "The fair curves increase monotonically with greater
// slack; flex overlays 1.0".
func fig5aClaim(a []benchflex.Figure5Point, cmd string) Claim {
	mono, flexMax := true, 0.0
	var fair []string
	for i, p := range a {
		if i > 0 && p.Fair.Avg() < a[i-1].Fair.Avg() {
			mono = false
		}
		flexMax = max(flexMax, p.Flex.Worst)
		fair = append(fair, fmt.Sprintf("%g: %.2f", p.X, p.Fair.Avg()))
	}
	return Claim{Paper: "Flex", Claim: "Fig. 5(a): Fair's ratio rises monotonically with slack; Flex stays at 1.0",
		PaperFigure: "Fair rising; Flex average and worst on 1.0", Ours: fmt.Sprintf("Fair average by slack %v; Flex worst %.4f", fair, flexMax),
		Verdict: fig5aVerdict(mono, flexMax), Command: cmd, Quick: true,
		Why: "task=" + flexTask + ", 100 instances per point; the paper's Flex (no search) misses the optimum by up to 2% on a few instances"}
}

// fig5aVerdict: holds when Fair rises monotonically and Flex is on the
// optimum within 0.1%; partly when only Fair's curve is as the paper's.
func fig5aVerdict(mono bool, flexMax float64) string {
	switch {
	case mono && flexMax <= 1.001:
		return Holds
	case mono:
		return Partly
	}
	return Fails
}

// fig5bClaim: "Fair uniformly about 50% above Flex, flat in the share of
// small jobs".
func fig5bClaim(b []benchflex.Figure5Point, cmd string) Claim {
	var rs []float64
	for _, p := range b {
		rs = append(rs, p.Fair.Avg()/p.Flex.Avg())
	}
	lo, hi := slices.Min(rs), slices.Max(rs)
	v := Partly
	if lo >= 1.35 && hi <= 1.65 {
		v = Holds
	}
	if hi < 1.2 {
		v = Fails
	}
	return Claim{Paper: "Flex", Claim: "Fig. 5(b): Fair about 50% above Flex whatever the share of small jobs",
		PaperFigure: "≈ 1.5×, flat", Ours: fmt.Sprintf("Fair / Flex between %.2f and %.2f over 0-90%% small jobs", lo, hi),
		Verdict: v, Command: cmd, Quick: true,
		Why: "with few small jobs (homogeneous sizes) Fair's equal split is close to the optimum; the paper's curve is flat"}
}

// flexVerdict: holds when the paper's Flex is within 0.1%, partly when
// only Flex with the local search is.
func flexVerdict(paperFlex, searched float64) string {
	switch {
	case paperFlex <= 1.001:
		return Holds
	case searched <= 1.001:
		return Partly
	}
	return Fails
}

func holdsIf(ok bool) string {
	if ok {
		return Holds
	}
	return Fails
}

// worse is the weaker of two verdicts.
func worse(a, b string) string {
	rank := map[string]int{Holds: 0, Partly: 1, Undetermined: 2, Fails: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// figure5 draws Fig. 5(a) and 5(b): average (solid) and worst (dashed)
// ratios of FIFO, Fair and Flex.
func figure5(a, b []benchflex.Figure5Point) Figure {
	chart := func(title, xl string, pts []benchflex.Figure5Point) sight.LineChart {
		c := sight.LineChart{Title: title, XLabel: xl, YLabel: "ratio to optimum", Class: "fig5-line", YMin: 1, YMax: 0}
		for k, s := range []struct {
			name string
			get  func(p benchflex.Figure5Point) benchflex.Ratios
		}{{"FIFO", func(p benchflex.Figure5Point) benchflex.Ratios { return p.FIFO }},
			{"Fair", func(p benchflex.Figure5Point) benchflex.Ratios { return p.Fair }},
			{"Flex", func(p benchflex.Figure5Point) benchflex.Ratios { return p.Flex }}} {
			var xs, avg, worst []float64
			for _, p := range pts {
				xs = append(xs, 100*p.X)
				avg = append(avg, s.get(p).Avg())
				worst = append(worst, s.get(p).Worst)
			}
			c.Series = append(c.Series, sight.Series{Name: s.name + " average", X: xs, Y: avg, Colour: sight.Colour(k)},
				sight.Series{Name: s.name + " worst", X: xs, Y: worst, Colour: sight.Colour(k), Dash: "4 3"})
		}
		return c
	}
	d := sight.New(900, 380, "Flex Fig. 5(a) and 5(b)", "Average (solid) and worst (dashed) ratio of FIFO, Fair and Flex to the exact MPS optimum over 100 instances per point: against slack (80% small jobs) and against the share of small jobs (75% slack), average response time.")
	chart("Fig. 5(a): slack (80% small jobs)", "slack %", a).Draw(d, 0, 0, 450, 380)
	chart("Fig. 5(b): small jobs (75% slack)", "small jobs %", b).Draw(d, 450, 0, 450, 380)
	return Figure{Paper: "Flex", File: "flex-figure5.svg", Caption: "Flex Fig. 5(a) and 5(b): ratios to the optimum, average solid and worst dashed (task=" + flexTask + ").", SVG: d.Bytes()}
}
