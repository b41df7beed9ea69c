package main

import (
	"strings"

	"github.com/xflex/xflex/solver"
)

// didYouMean is " (did you mean X?)" for the candidate closest to word
// by edit distance (ties to the first in candidates' order), when it is
// close enough to be a slip: at most a third of the word's length, and at
// least 1, edits away (cmf: cmmf; tetris: tetris-assign by prefix). It is
// "" when nothing is close.
func didYouMean(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(w, strings.ToLower(c))
		if strings.HasPrefix(strings.ToLower(c), w) && len(w) >= 3 {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(1, len([]rune(w))/3) {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// editDistance is the optimal string alignment distance of a and b, in
// runes: insertions, deletions, substitutions and swaps of two adjacent
// runes (slove: solve) cost one each.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// problemNames are every problem's names, CLI (tetris-assign) and API
// (tetris/assign), for didYouMean.
func problemNames(r *solver.Runner) []string {
	var out []string
	for _, p := range r.Problems() {
		out = append(out, p.Command())
		if p.Name != p.Command() {
			out = append(out, p.Name)
		}
	}
	return out
}

// commands are xflex's commands, for didYouMean.
var commands = []string{"serve", "token", "jobs", "solve", "gen", "bench", "problems", "version", "help"}

// jobsCommands are xflex jobs' subcommands.
var jobsCommands = []string{"submit", "status", "wait", "result", "cancel", "list", "help"}

// commandFirst moves the first word of args that names a command (one of
// names) to the front, so flags may come before it: `xflex jobs --server
// URL submit ...` is `xflex jobs submit --server URL ...`. args starting
// with a command, or holding none, are returned as they are.
func commandFirst(args []string, names []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, n := range names {
			if a == n && n != "help" {
				out := append([]string{a}, args[:i]...)
				return append(out, args[i+1:]...)
			}
		}
	}
	return args
}
