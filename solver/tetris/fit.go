package tetris

import "github.com/xflex/xflex/vecpack"

// fitLimit is the largest amount of a resource that fits in free of it on a
// machine whose capacity of it is c: vecpack.FitLimit with the slack
// relative to the capacity (the engine uses c = 1 on normalised amounts).
// A machine with nothing free takes no positive demand, however small
// against its capacity: the slack used to be FitTol·max(1, |free|) in
// capacity units, so a demand of 1 fit a free amount of 0 on a machine of
// capacity 1e15 again and again (free went negative, alignments below 0).
func fitLimit(free, c float64) float64 { return vecpack.FitLimit(free, c) }
