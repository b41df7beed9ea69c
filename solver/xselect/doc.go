// Package xselect is X-Select (Wolf et al., "The X-Flex Cross-Platform
// Scheduler: Who's the Fairest of Them All?", Middleware 2014, §2.2):
// vector-pack containers of given shapes, each with an application owner,
// into processing nodes so that every application gets λ times its
// forecast mix, for the largest λ.
//
// λ is the largest value such that some valid packing holds ⌈λ·c_as⌉
// containers of shape s owned by application a for every required count
// c_as; it is always a fraction k/c and the search (vecpack.MaxLambda)
// brackets and bisects over those breakpoints, asking an oracle whether a
// count vector packs. The heuristic oracle runs the fill-one-node-at-a-time
// greedy with each pluggable rule (vecpack.Rules), plain and guided by the
// LP relaxation's per-class solution, then the local search (moves, swaps,
// evictions, node re-packs); a failed call still reports the λ its partial
// packing attains, so the search is anytime. The exact oracle (method
// "exact", small instances) solves a CBC MIP. An LP relaxation per node
// class (node type × allowed-group signature), tightened to rounded-up
// counts by a bisection over breakpoints, bounds λ from above, so every
// answer carries a gap. Incremental replans keep all but ⌊f·nodes⌋ nodes
// as they are.
//
// Constraints: shape and application predicates on node type, rack, name
// and labels; per-node reserved capacity; colocation (the k-th container
// of one side shares a node with the k-th of the other); exlocation (never
// the same node); Garbo applications share no node with anyone.
package xselect
