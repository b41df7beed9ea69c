// Command replan is the loop a scheduler team copies to drive xflex: every
// --every it reads the cluster's state (here a JSON file standing in for
// the scheduler's own API), asks the server for a replan and prints what
// to change.
//
//	replan --problem cmmf --state cluster.json [--every 10s] [--rounds N]
//	replan --problem xschedule-assign --state round.json [--every 10s]
//
// cmmf: the file is a CMMF request (machine types or machines, users and
// their constraints). Each round after the first sends the previous
// round's allocation as `current`, so the server answers the fair
// allocation that moves the fewest machines, and the program prints each
// user's gains and losses per machine type and the total moved.
//
// xschedule-assign: the file is an X-Schedule round (containers with
// their owners and users, the applications, the pending requests at
// `now`). The program keeps the pair contexts the server returns (the
// sharing state X-Schedule needs from one round to the next) and sends
// them with the next round, and prints the grants and preemption notices.
//
// The server is --server or $XFLEX_SERVER (default http://127.0.0.1:8080),
// the token $XFLEX_TOKEN when the server has an auth file.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/xflex/xflex/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replan:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	server, token, problem, state string
	every                         time.Duration
	rounds                        int
}

// run parses args and runs the loop until ctx ends or --rounds rounds
// are done, printing to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	var c config
	fs := flag.NewFlagSet("replan", flag.ContinueOnError)
	fs.StringVar(&c.server, "server", cmp.Or(os.Getenv("XFLEX_SERVER"), "http://127.0.0.1:8080"), "xflex server URL")
	fs.StringVar(&c.problem, "problem", "cmmf", "cmmf or xschedule-assign")
	fs.StringVar(&c.state, "state", "", "the cluster state file (a request of --problem)")
	fs.DurationVar(&c.every, "every", 10*time.Second, "time between rounds")
	fs.IntVar(&c.rounds, "rounds", 0, "stop after this many rounds (0: run until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.state == "" {
		return fmt.Errorf("--state FILE is required")
	}
	api, err := c.apiFor(c.server)
	if err != nil {
		return err
	}
	var round func(context.Context, int) error
	switch c.problem {
	case "cmmf":
		r := &cmmfLoop{api: api, state: c.state, out: out}
		round = r.round
	case "xschedule-assign", "xschedule/assign":
		r := &assignLoop{api: api, state: c.state, out: out}
		round = r.round
	default:
		return fmt.Errorf("--problem %q: want cmmf or xschedule-assign", c.problem)
	}
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	for n := 1; c.rounds == 0 || n <= c.rounds; n++ {
		if err := round(ctx, n); err != nil {
			// A round that fails is reported and retried at the next tick:
			// the scheduler keeps its current allocation meanwhile.
			fmt.Fprintf(out, "round %d: %v\n", n, err)
		}
		if c.rounds != 0 && n == c.rounds {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
	return nil
}

// apiFor is the client of server, with $XFLEX_TOKEN.
func (c *config) apiFor(server string) (*client.API, error) {
	return client.New(server, client.WithToken(os.Getenv("XFLEX_TOKEN")))
}

// readState decodes the state file into v.
func readState(file string, v any) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// cmmfLoop replans a CMMF allocation with the fewest moves.
type cmmfLoop struct {
	api   *client.API
	state string
	out   io.Writer
	// prev is the allocation in force: user, machine type (or machine),
	// amount; nil before the first answer.
	prev map[string]map[string]float64
}

func (l *cmmfLoop) round(ctx context.Context, n int) error {
	var req client.CmmfRequest
	if err := readState(l.state, &req); err != nil {
		return err
	}
	if l.prev != nil {
		req.Current = &l.prev
	}
	resp, err := l.api.Cmmf(ctx, req)
	if err != nil {
		return err
	}
	next := map[string]map[string]float64{}
	for _, u := range resp.Result.Users {
		next[u.Name] = u.Allocation
	}
	fmt.Fprintf(l.out, "round %d: %s, %g machines moved\n", n, resp.Meta.Status, resp.Result.Moved)
	for _, m := range moves(l.prev, next) {
		fmt.Fprintf(l.out, "  %s\n", m)
	}
	l.prev = next
	return nil
}

// moves lists what changed between two allocations, one line per user
// and machine type, sorted: "spark highmem +2".
func moves(prev, next map[string]map[string]float64) []string {
	var out []string
	users := map[string]bool{}
	for u := range prev {
		users[u] = true
	}
	for u := range next {
		users[u] = true
	}
	for u := range users {
		types := map[string]bool{}
		for t := range prev[u] {
			types[t] = true
		}
		for t := range next[u] {
			types[t] = true
		}
		for t := range types {
			if d := next[u][t] - prev[u][t]; d != 0 {
				out = append(out, fmt.Sprintf("%s %s %+g", u, t, d))
			}
		}
	}
	sort.Strings(out)
	return out
}

// assignLoop runs X-Schedule rounds, carrying the pair contexts.
type assignLoop struct {
	api   *client.API
	state string
	out   io.Writer
	// pairs are the contexts the last answer returned, sent with the next
	// round (the state file's own pairs are used until then).
	pairs []pair
}

// pair is a pair context as a request takes it.
type pair struct {
	A            string  `json:"a"`
	B            string  `json:"b"`
	LastCalcTime float64 `json:"last_calc_time"`
	LastShare    float64 `json:"last_share"`
	LastSlope    float64 `json:"last_slope"`
}

func (l *assignLoop) round(ctx context.Context, n int) error {
	var req client.XscheduleAssignRequest
	if err := readState(l.state, &req); err != nil {
		return err
	}
	if l.pairs != nil {
		if err := convert(l.pairs, &req.Pairs); err != nil {
			return err
		}
	}
	resp, err := l.api.XscheduleAssign(ctx, req)
	if err != nil {
		return err
	}
	r := resp.Result
	fmt.Fprintf(l.out, "round %d: %s, %d grants, %d notices, %d pending\n", n, resp.Meta.Status, len(r.Grants), len(r.Notices), len(r.Pending))
	for _, g := range r.Grants {
		fmt.Fprintf(l.out, "  grant %s on %s to %s (request %s, %v)\n", g.Container, g.Node, g.App, g.Request, g.Kind)
	}
	for _, no := range r.Notices {
		fmt.Fprintf(l.out, "  notice %s on %s: %s gives it back to %s by %g (%v)\n", no.Container, no.Node, no.User, no.App, no.Deadline, no.Kind)
	}
	l.pairs = nil
	return convert(r.Pairs, &l.pairs)
}

// convert copies v into to through JSON, keeping the fields to has.
func convert(v, to any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
