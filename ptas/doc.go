// Package ptas is X-Size's approximation scheme (xflex paper, section 2.2):
// choose K container shapes so that every request fits one and the total
// normalized size used is least, with a proven factor 1+ε.
//
// # Problem
//
// Requests u_j ∈ R^d_{≥0} with weights w_j > 0 are given in normalized units
// (each resource divided by its cluster total, so resources are comparable).
// A shape s serves u when u ≤ s componentwise; its cost is c(s) = Σ_i s_i
// (fit "sum") or max_i s_i (fit "max"). Choose at most K shapes, each inside
// some node type's capacity when node types are given, minimizing
//
//	Σ_j w_j · min{ c(s) : s chosen, u_j ≤ s }.
//
// Identical requests are aggregated first (Aggregate): the objective only
// sees their total weight.
//
// # Rays and the factor ρ
//
// A direction v ≥ 0 with Σv = 1 defines the ray {t·v : t ≥ 0}; the point at
// level t costs t. The cheapest point of the ray that dominates a point s is
// at level Level(s, v) = max_{i: s_i>0} s_i/v_i. For a finite direction set D
//
//	ρ(D) = sup_{s ≠ 0} min_{v ∈ D} Level(s, v) / c(s).
//
// Fact 1 (OPT ≤ OPT_rays ≤ ρ·OPT). Let OPT_rays be the optimum when shapes
// must be ray points (clipped to a node, see below). Ray solutions are
// solutions, so OPT ≤ OPT_rays. Conversely round every shape s of an optimal
// solution up to its cheapest dominating ray point r(s) — by cost, never to
// the nearest ray by angle, which can be arbitrarily worse. Since
// r(s) ≥ s, every request that fit s fits r(s); there are still at most K
// shapes; each request's cost grows by at most the factor ρ. Hence
// OPT_rays ≤ ρ·OPT, and every exact (or lower-bounded) ray value V gives the
// lower bound OPT ≥ V/ρ reported as lower_bound.
//
// The normalization matters: in raw units (cores against GB) the same ray
// count leaves one resource's rays crowded and the other's sparse, and the
// loss balloons; every construction here lives in normalized units.
//
// Fact 2 (2D, exact ρ of any ray set). Write 2D points by their mix
// coordinate p = y/(x+y) and scale them to c = 1: s = (1−q, q), v = (1−p, p).
// Then Level(s, v)/c(s) = max((1−q)/(1−p), q/p). A ray p therefore serves
// with ratio ≤ ρ exactly the interval q ∈ [1 − ρ(1−p), ρ·p], of length ρ−1,
// and two neighbours p_a < p_b overlap iff ρ·(1 − (p_b − p_a)) ≥ 1. With the
// ends 0 and 1 treated as gaps too,
//
//	ρ(D) = 1 / (1 − g),  g the largest gap between consecutive rays in p.
//
// rho2D in the tests computes this and checks every 2D family's formula
// against it.
//
// Fact 3 (mix rays, optimal). m rays at p_k = k/(m+1), k = 1..m, have every
// gap 1/(m+1), so ρ = (m+1)/m = 1 + 1/m. No m rays do better: their m
// intervals of length ρ−1 must cover [0, 1], so m(ρ−1) ≥ 1. (MixRays.)
//
// Fact 4 (equal angles, ρ = 1 + tan δ, tight). For rays at angles kδ the
// mix coordinate is p(θ) = sin θ/(sin θ + cos θ), and the gap between angles
// α and α+δ is sin δ / (2·sin(α+π/4)·sin(α+δ+π/4)). The product
// sin x·sin(x+δ) = (cos δ − cos(2x+δ))/2 is smallest at the ends of
// [π/4, 3π/4−δ], so the largest gap is the one next to an axis,
// g = sin δ/(sin δ + cos δ), and ρ = 1/(1−g) = 1 + tan δ, attained (as a
// supremum) by points on the axes. The paper's π/ε − 1 rays are δ = ε/2,
// ρ = 1 + tan(ε/2) ≈ 1 + ε/2. Equal angles need about π/(2ε) rays for 1+ε
// where mix rays need 1/ε. (AngleRays.)
//
// Fact 5 (inductive, ρ_2^{d−1}). Given directions D' for the first d−1
// coordinates with factor ρ' and a 2D set D_2 with factor ρ_2, the
// directions ((1−p)·u, p) for u ∈ D', (1−p, p) ∈ D_2 have factor ρ'·ρ_2:
// round the first d−1 coordinates s' of s to u at level t' ≤ ρ'·c(s'), then
// round the 2D point (t', s_d) to (1−p, p) at level t ≤ ρ_2·(t' + s_d); the
// point t·((1−p)u, p) dominates s because t(1−p)·u ≥ t'·u ≥ s', and costs
// t ≤ ρ_2(ρ'·c(s') + s_d) ≤ ρ'ρ_2·c(s). So (1+tan δ)^{d−1} for the paper's
// rays. (InductiveRays.)
//
// Fact 6 (lattice, ρ = 1 + (d−1)/N). Let D be every a/T with a ∈ Z^d_{≥0},
// Σa = T = N + d − 1. For s with c(s) = 1 take a_i = ⌈N·s_i⌉: then
// Σa_i < N + d, so Σa_i ≤ T, and adding the remainder to any coordinate keeps
// a_i ≥ N·s_i. So v = a/T has v_i ≥ s_i·N/T, i.e. Level(s, v) ≤ T/N
// = 1 + (d−1)/N. There are C(N+2d−2, d−1) directions: for ρ = 1+ε about
// ((d−1)/ε)^{d−1}/(d−1)!, a factor (d−1)! fewer than the inductive
// construction with the same ρ (tested). In 2D the lattice is the mix rays
// plus both axes. (LatticeRays.)
//
// ForEpsilon picks the coarsest set of a family with ρ ≤ 1+ε; the default
// family is mix rays in 2D and the lattice in 3D and up.
//
// # Node types: clipping
//
// When node types are given, a rounded shape can stick out of every node.
// Clip it to the node n that held the original shape s: min(r(s), cap_n)
// still dominates s (s ≤ r(s) and s ≤ cap_n), fits n, and costs no more than
// r(s). So Fact 1 holds for clipped ray points, and candidates are built per
// node type that holds the request.
//
// # The ray-restricted problem
//
// Fact 7 (one candidate per (distinct request, ray, node)). In a ray
// solution, shrink each shape t·v (clipped to n) to the largest level of the
// requests it serves: all still fit, nothing costs more, and the level is
// now some request's level on v. So the candidates min(Level(u_j, v)·v,
// cap_n), over distinct requests j, rays v and nodes n holding u_j, contain
// an optimal ray solution. On one (ray, node) chain, candidates serve nested
// prefixes of the requests sorted by level; candidates that serve exactly
// the same requests are merged, keeping the cheapest.
//
// Choosing at most K candidates with each request paying its cheapest chosen
// candidate is a p-median problem in which the service cost depends only on
// the candidate. It is solved by
//
//   - local search (localSearch): a greedy start from a cover, then
//     interchange moves (add one candidate, drop one) evaluated in
//     O(coverage + candidates·K) per pass from each request's cheapest and
//     second-cheapest chosen candidate (on huge levels, a stride sample of
//     each chain, so a pass stays around 2·10^6 coverage entries);
//   - a Lagrangian bound (lagrange): pricing "each request served once" by
//     λ_j gives L(λ) = Σλ_j + (K most negative Σ_{j∈cov(c)} min(0,
//     w_j·cost_c − λ_j)) ≤ OPT_rays for every λ; subgradient steps raise it.
//     Along a chain coverage grows one request at a time, so all V_c of a
//     chain come from one sweep with Fenwick trees (or from direct sums when
//     merging left few candidates);
//   - the exact DP the paper sketches (levelDP): take chosen candidates by
//     increasing cost; a request pays the first that covers it; since
//     coverage is nested along a chain, what is already covered depends only
//     on the highest prefix chosen per chain. Exponential in the number of
//     chains, so it runs only when that state space is small;
//   - otherwise the exact p-median MIP through lp.Solve (CBC) on the
//     candidates the Lagrangian bound cannot exclude (forcing c open bounds
//     the cost by L − V_K + V_c; above the incumbent, c is dropped).
//
// # The grid-join level (ρ = 1)
//
// Some optimal solution uses only grid joins: points of the grid of request
// coordinates that are the join of the requests they dominate (and fit a
// node type) — see Exact. When that grid is small — the common case for
// real profiles, whose resources take few values (cores in powers of two,
// memory in GB steps) — GridJoins enumerates the joins (depth first, one
// resource at a time, cutting subtrees where the value just fixed is no
// dominated request's) and the same p-median machinery (local search,
// Lagrangian bound, MIP) runs on them as one more level with ρ = 1: its
// bound bounds OPT directly. Solve runs it after the first (coarsest) ray
// level, with at most half of the remaining budget, and stops there when it
// proves the optimum or the asked ε. When the joins cover more than
// joinMaxCover (join, request) pairs (4D profiles: ~7,000 joins, ~800,000
// pairs) the level gets the whole remaining budget instead: its
// subgradient bound converges slowly there, but reaches 1–3 % of the cost
// in a few hundred milliseconds, while the bound of a ray level stays
// divided by its ρ ≥ 1.1 (the finest lattice the budget allows in 4D).
//
// # Anytime refinement and the guarantee
//
// Solve runs levels of decreasing ε (DefaultSchedule, or the asked ε then
// halvings). Ray sets of different ε are not nested, so a finer level can
// come out worse; the best shapes so far are kept. Each level's shapes are
// tightened to the joins of the requests they serve (Tighten), which never
// raises the cost. The lower bound is the best of Σw_j·c(u_j) and, per
// level, (proven bound on OPT_rays)/ρ. The reported epsilon is
// cost/lower_bound − 1: a proof that cost ≤ (1+epsilon)·OPT, and at most
// ρ−1 of every level solved exactly (as then the bound is OPT_rays/ρ and the
// cost at most OPT_rays). With an ε asked, the first level has
// ρ ≤ 1 + 0.9·ε ≤ 1+ε (when that set does not fit the candidate limit, as
// in 4D, the coarsest default level and the grid joins run first, then the
// finest lattice that fits), so solving it exactly reaches the target, and a ray
// bound within 10 % of ε of its optimum already does; the search at a level
// stops as soon as the target is certified, and otherwise once the bound is
// within 2 % of (ρ−1) of the level's best value, where further work could
// not move the guarantee visibly.
//
// # fit "max"
//
// With cost max_i s_i a shape at level L can be taken as L·(1, …, 1): the
// problem is one-dimensional in the keys max_i u_ji and an O(K·n log n)
// divide-and-conquer DP is exact (MaxFitDP). The paper's "very simple
// dynamic program" needs that every shape can be L·(1, …, 1): when node
// types split the requests (no single type holds all) contiguous groups of
// keys can all be infeasible while a non-contiguous grouping is optimal
// (kept as TestMaxFitPaperClaimNeedsOneNode). Then the ray machinery runs
// with the single direction (1, …, 1), chains per node type, and ρ = 1.
//
// # Exact small instances
//
// Exact is an independent exact solver for tests: an optimal shape may be
// shrunk to the join of the requests it serves — a point of the grid of
// request coordinates — so the optimum is the best partition of the
// requests into at most K groups, by a DP over subsets.
package ptas
