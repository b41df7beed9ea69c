package tetris

import (
	"context"
	"fmt"
	"math"
)

// ShareTieTol treats two dominant shares as equal when they differ by less
// than this: shares are sums of at most ~1e6 demands over capacities, so
// 1e-12 absolute is far above round-off noise yet far below any real
// difference of one task's share.
const ShareTieTol = 1e-12

// Input is one portion of a task's input: while it runs the task reads Rate
// (in disk-read / network units) from Machine.
type Input struct {
	Machine int
	Rate    float64
}

// Roles locate the resources that placement adjusts; -1 means the resource
// does not exist (then no input may have a positive rate).
type Roles struct {
	DiskRead, NetIn, NetOut int
}

// Member is one pending task of a Group.
type Member struct {
	// Inputs lists where the task's input lives; empty means no input
	// bandwidth beyond the group's Demand.
	Inputs []Input
	placed bool
	// deadAt marks (with the group's round number) a member whose remote
	// reads no longer fit in that round: free capacity only shrinks during
	// a round, so it cannot fit on any machine that does not hold its
	// input. 32 bits keep a member in 32 bytes (the round reads members
	// scattered over 10,000s of them); round numbers wrap only after 2³²
	// rounds of one group.
	deadAt int32
}

// Placed reports whether the member was assigned in a round.
func (m *Member) Placed() bool { return m.placed }

// Take marks member mi as placed by a scheduler other than Round (the
// simulator's baseline policies), keeping Count in step.
func (g *Group) Take(mi int) {
	if !g.Members[mi].placed {
		g.Members[mi].placed = true
		g.Count--
	}
}

// Group is a set of interchangeable pending tasks: one job, one stage, the
// same peak demand. Members may differ in input locations.
type Group struct {
	Job int
	// Demand is the peak demand when the task reads nothing remotely (the
	// input portions are added per placement, see LocalDemand).
	Demand []float64
	// Promoted marks a stage past the barrier threshold b (§3.5).
	Promoted bool
	// Members lists the tasks individually; when nil the group stands for
	// Count anonymous tasks without inputs (the simulator's case).
	Members []Member
	// Count is the number of pending (unplaced) tasks.
	Count int
	// ByMachine, when set, lists per machine the members with input there
	// (placed ones may remain; they are skipped). A caller that keeps it
	// across rounds (the simulator) spares Round a scan of every member.
	ByMachine [][]int32

	cursor int   // every member before it is placed
	round  int32 // rounds seen, for deadAt
	// skip, when set (groups without ByMachine, rebuilt each round), maps a
	// member index to the next member not yet placed or dead this round,
	// with path compression, so scans never revisit them.
	skip []int32
}

// nextLive is the first member at or after i not known placed or dead in
// this round (len(Members) if none).
func (g *Group) nextLive(i int) int {
	if g.skip == nil || i >= len(g.Members) {
		return i
	}
	root := i
	for int(g.skip[root]) != root {
		root = int(g.skip[root])
	}
	for int(g.skip[i]) != root {
		nx := int(g.skip[i])
		g.skip[i] = int32(root)
		i = nx
	}
	return root
}

// removeLive drops member i from the skip structure.
func (g *Group) removeLive(i int) {
	if g.skip != nil {
		g.skip[i] = int32(i + 1)
	}
}

// Job is the per-job state a round reads and updates.
type Job struct {
	// Alloc is the job's current allocation (summed over machines), used
	// for its dominant share; a round adds what it places.
	Alloc []float64
	// Weight scales the fair share (default 1).
	Weight float64
	// Work is the remaining work p of §3.3.1.
	Work float64
}

// Machine is a machine's capacity and free resources; a round subtracts
// what it places from Free.
type Machine struct {
	Cap  []float64
	Free []float64
}

// Config holds the knobs of a round.
type Config struct {
	// Fairness is f in [0, 1].
	Fairness float64
	// Epsilon weighs remaining work against alignment (already resolved;
	// see AutoEpsilon).
	Epsilon float64
	// RemotePenalty is the fraction of alignment lost by a remote read.
	RemotePenalty float64
	// Mask selects the resources checked for fit and scored; nil means all.
	// The simulator's cpu-and-memory variant masks out disk and network,
	// which lets them be over-allocated.
	Mask []bool
	// Total is the cluster's capacity per resource (dominant shares).
	Total []float64
	Roles Roles
}

// Placement is one task placed by a round. Its indices are 32-bit (see
// maxRoundSize) and it carries no demand vectors (LocalDemand and
// RemoteNeeds give them from the task's inputs): a cold start places
// thousands of tasks in one round, and at 48 bytes instead of 112 the
// round writes (and zeroes) 0.3 MB less for 4,521 placements, which
// measured 3-5% of the round's time.
type Placement struct {
	Group, Member int32 // Member is -1 for anonymous groups
	Machine       int32
	// Rank is the job's position among the jobs that could use the
	// machine (0 = furthest below its fair share) and Share its dominant
	// share just before the placement.
	Rank      int32
	Share     float64
	Alignment float64
	Score     float64
	Remote    bool
	Promoted  bool
}

// Round runs one scheduling round over machines in the given visit order and
// returns the placements in the order they were made. It mutates machine
// Free, job Alloc, group Count and member placed flags.
func Round(ctx context.Context, machines []Machine, order []int, groups []*Group, jobs []Job, cfg Config) ([]Placement, error) {
	if err := checkSize(machines, groups, jobs); err != nil {
		return nil, err
	}
	r := newRound(machines, groups, jobs, cfg)
	var out []Placement
	reserved := false
	for i, m := range order {
		if i%16 == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = r.fill(m, out)
		if !reserved && len(out) > 0 {
			// Room for as many placements per machine as so far (at most
			// every pending task), sparing the doublings of append.
			reserved = true
			pending := 0
			for _, p := range r.jobs.pending {
				pending += p
			}
			if n := len(out) + min(pending, len(out)*(len(order)-i-1)/(i+1)); n > cap(out) {
				out = append(make([]Placement, 0, n), out...)
			}
		}
	}
	return out, nil
}

// maxRoundSize bounds the members (and anonymous tasks), machines and
// jobs of a round: the round keeps indices and counts in 32 bits (groupState,
// localRef). Both problems' limits are far below it (a million tasks).
const maxRoundSize = math.MaxInt32

// checkSize refuses a round larger than maxRoundSize.
func checkSize(machines []Machine, groups []*Group, jobs []Job) error {
	n := 0
	for _, g := range groups {
		// Compared before adding, so a huge Count cannot wrap the sum.
		c := max(len(g.Members), g.Count)
		if c >= maxRoundSize-n {
			return fmt.Errorf("tetris: a round takes fewer than %d tasks", maxRoundSize)
		}
		n += c
	}
	if len(machines) >= maxRoundSize || len(jobs) >= maxRoundSize {
		return fmt.Errorf("tetris: a round takes fewer than %d machines and jobs", maxRoundSize)
	}
	return nil
}

// dims is the number of resources of the machines' vectors.
func dims(ms []Machine) int {
	if len(ms) == 0 {
		return 0
	}
	return len(ms[0].Cap)
}

// mask is cfg.Mask, or all d resources when it is nil.
func (cfg Config) mask(d int) []bool {
	if cfg.Mask != nil {
		return cfg.Mask
	}
	mask := make([]bool, d)
	for i := range mask {
		mask[i] = true
	}
	return mask
}

// LocalDemand writes into out the demand of a task of g with the given
// inputs when placed on machine m: portions stored on m add disk read at m,
// the others add network in at m (they also need disk read and network out
// at their own machine, which RemoteNeeds lists). remote reports whether any
// portion is read remotely.
func LocalDemand(g *Group, inputs []Input, m int, roles Roles, out []float64) (remote bool) {
	copy(out, g.Demand)
	for _, in := range inputs {
		if in.Machine == m {
			if roles.DiskRead >= 0 {
				out[roles.DiskRead] += in.Rate
			}
			continue
		}
		remote = true
		if roles.NetIn >= 0 {
			out[roles.NetIn] += in.Rate
		}
	}
	return remote
}

// RemoteNeeds aggregates, per remote machine, the bandwidth a task placed on
// m reads from it (needed as disk read and network out there), appending to
// buf in first-occurrence order.
func RemoteNeeds(inputs []Input, m int, buf []Input) []Input {
	buf = buf[:0]
	for _, in := range inputs {
		if in.Machine == m {
			continue
		}
		found := false
		for k := range buf {
			if buf[k].Machine == in.Machine {
				buf[k].Rate += in.Rate
				found = true
				break
			}
		}
		if !found {
			buf = append(buf, in)
		}
	}
	return buf
}

func hasInput(ins []Input, m int) bool {
	for _, in := range ins {
		if in.Machine == m {
			return true
		}
	}
	return false
}
