package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// cliMaxBody matches the server's default body limit, so a file the CLI
// accepts is one the server accepts. `xflex solve --max-body` changes it
// as `xflex serve --max-body` changes the server's.
const cliMaxBody = 16 << 20

func newRunner(maxBudget time.Duration) (*solver.Runner, error) {
	return solver.NewRunner(problems.All(), maxBudget)
}

const solveUsage = `usage: xflex solve [--quiet] [--max-body BYTES] PROBLEM FILE|- [--svg OUT.svg]
  solve a request (same JSON as POST /v1/PROBLEM) and print the response;
  --svg also writes the answer's picture to OUT.svg, the bytes POST /v1/PROBLEM
  answers with Accept: image/svg+xml; a progress bar (elapsed, time left in
  the budget) is drawn on stderr when it is a terminal, unless --quiet;
  --max-body is the largest request in bytes, as for xflex serve (default
  16777216, 16 MiB; a larger file gets the server's 413 problem document)
`

// solveArgs are the arguments of `xflex solve`.
type solveArgs struct {
	problem, file string
	// svg is the file for the picture, "" for none.
	svg string
	// quiet turns the progress bar off.
	quiet bool
	// maxBody is the largest body accepted (--max-body), cliMaxBody
	// unless given.
	maxBody int64
}

// parseSolveArgs reads PROBLEM FILE, an optional --svg OUT (or
// --svg=OUT), --max-body BYTES (or --max-body=BYTES) and --quiet (-q)
// anywhere among them.
func parseSolveArgs(args []string) (solveArgs, bool) {
	a := solveArgs{maxBody: cliMaxBody}
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		takesValue := name == "--svg" || name == "--max-body"
		if takesValue && !hasValue && i+1 < len(args) {
			value, hasValue = args[i+1], true
			i++
		}
		switch {
		case takesValue && (!hasValue || value == ""):
			return a, false
		case name == "--svg":
			a.svg = value
		case name == "--max-body":
			n, ok := parseMaxBody(value)
			if !ok {
				return a, false
			}
			a.maxBody = n
		case arg == "--quiet" || arg == "-q":
			a.quiet = true
		case strings.HasPrefix(arg, "-") && arg != "-":
			return a, false
		default:
			pos = append(pos, arg)
		}
	}
	if len(pos) != 2 {
		return a, false
	}
	a.problem, a.file = pos[0], pos[1]
	return a, true
}

// parseMaxBody reads --max-body as `xflex serve` does: a decimal int64,
// and zero or less meaning the default (httpapi.Config.MaxBodyBytes).
// The largest int64 is cut by one, so that reading one byte past the
// limit (to tell a body at the limit from a longer one) cannot overflow.
func parseMaxBody(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	if n <= 0 {
		n = cliMaxBody
	}
	return min(n, math.MaxInt64-1), true
}

func cmdSolve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sa, ok := parseSolveArgs(args)
	if !ok || slices.ContainsFunc(args, isHelp) {
		return usageExit(solveUsage, slices.ContainsFunc(args, isHelp), stdout, stderr)
	}
	runner, err := newRunner(0)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	p, ok := runner.Lookup(sa.problem)
	if !ok {
		fmt.Fprintf(stderr, "xflex: unknown problem %q%s (try `xflex problems`)\n", sa.problem, didYouMean(sa.problem, problemNames(runner)))
		return 2
	}
	if sa.svg != "" && p.Picture == nil {
		fmt.Fprintf(stderr, "xflex: %s has no picture (--svg)\n", p.Command())
		return 2
	}
	if sa.svg != "" {
		if err := checkWritable(sa.svg); err != nil {
			fmt.Fprintf(stderr, "xflex: --svg: %v\n", err)
			return 2
		}
	}
	var r io.Reader = stdin
	if sa.file != "-" {
		f, err := os.Open(sa.file)
		if err != nil {
			fmt.Fprintf(stderr, "xflex: %v\n", err)
			return 2
		}
		defer f.Close()
		r = f
	}
	body, err := io.ReadAll(io.LimitReader(r, sa.maxBody+1))
	if err != nil {
		fmt.Fprintf(stderr, "xflex: read %s: %v\n", sa.file, err)
		return 2
	}
	instance := "/v1/" + p.Name
	if int64(len(body)) > sa.maxBody {
		e := &solver.Error{Kind: solver.KindTooLarge, Detail: "request body exceeds " + strconv.FormatInt(sa.maxBody, 10) + " bytes"}
		_, _ = stdout.Write(httpapi.FromError(e, instance, "").Encode())
		return 1
	}
	if deferGCInSolve {
		deferGC(solveHeapLimit(len(body)))
	}
	resp, err := solveShowing(ctx, runner, p.Name, body, newDisplay(stderr, sa.quiet, false))
	if err != nil {
		var xe *solver.Error
		if !errors.As(err, &xe) {
			xe = &solver.Error{Kind: solver.KindInternal, Detail: err.Error()}
		}
		_, _ = stdout.Write(httpapi.FromError(xe, instance, "").Encode())
		if xe.Kind == solver.KindInternal {
			fmt.Fprintf(stderr, "xflex: %v\n", xe)
			return 3
		}
		return 1
	}
	_, _ = stdout.Write(resp.Wire)
	if sa.svg != "" {
		return writePicture(runner, p, sa.svg, body, resp.Wire, stderr)
	}
	return 0
}

// writePicture writes the picture of a solved request to file: exit 0,
// or 3 when it cannot be drawn or written.
func writePicture(runner *solver.Runner, p solver.Problem, file string, body, response []byte, stderr io.Writer) int {
	svg, err := runner.Picture(p.Name, body, response)
	if err == nil {
		err = os.WriteFile(file, svg, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "xflex: --svg: %v\n", err)
		return 3
	}
	return 0
}

// checkWritable reports why file cannot be written, before the solve
// spends its budget: it opens the file for writing (creating it) and, if
// it did not exist, removes it again.
func checkWritable(file string) error {
	_, statErr := os.Stat(file)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_ = f.Close()
	if os.IsNotExist(statErr) {
		return os.Remove(file)
	}
	return nil
}

// solveShowing runs the solve, showing its progress on d: the solver's
// reports, the time elapsed and the time left in the request's budget.
func solveShowing(ctx context.Context, runner *solver.Runner, name string, body []byte, d display) (*solver.Response, error) {
	if d == (nopDisplay{}) {
		return runner.Run(ctx, name, body)
	}
	settings, _ := runner.SettingsOf(body) // a bad body fails in Run
	rep := &progress.Reporter{}
	type answer struct {
		resp *solver.Response
		err  error
	}
	done := make(chan answer, 1)
	status := solveStatus{State: "solving", Started: time.Now(), Budget: settings.Budget}
	go func() {
		resp, err := runner.Run(progress.WithReporter(ctx, rep), name, body)
		done <- answer{resp, err}
	}()
	tick := time.NewTicker(solveRedraw)
	defer tick.Stop()
	for {
		select {
		case a := <-done:
			d.finish(solvedStatus(status.Started, a.resp, a.err))
			return a.resp, a.err
		case <-tick.C:
			status.Progress, _ = rep.Take()
			status.Progress.BudgetUsed = progress.F(min(float64(time.Since(status.Started))/float64(settings.Budget), 1))
			d.update(status)
		}
	}
}

// solvedStatus is the final status of a solve started at start: the
// answer's meta.status, objective and bound (not the solver's last phase,
// which is over), or "failed".
func solvedStatus(start time.Time, resp *solver.Response, err error) solveStatus {
	s := solveStatus{State: "failed", Started: start, Elapsed: time.Since(start), Done: true}
	if err == nil {
		s.OK, s.State = true, string(resp.Meta.Status)
		s.Progress.Objective, s.Progress.Bound = resp.Meta.Objective, resp.Meta.Bound
	}
	return s
}

// solveRedraw is how often `xflex solve` redraws its bar: often enough
// for the elapsed time to tick smoothly, rarely enough to cost nothing.
const solveRedraw = 100 * time.Millisecond

// parseParams reads --key value and --key=value pairs.
func parseParams(args []string) (map[string]string, error) {
	out := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || len(a) < 3 {
			return nil, fmt.Errorf("unexpected argument %q (want --name value)", a)
		}
		a = strings.TrimPrefix(a, "--")
		if k, v, ok := strings.Cut(a, "="); ok {
			out[k] = v
			continue
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("--%s needs a value", a)
		}
		out[a] = args[i+1]
		i++
	}
	return out, nil
}

const genUsage = "usage: xflex gen PROBLEM [--seed N] [--PARAM VALUE ...]   (xflex gen PROBLEM --help lists the parameters)\n"

// cmdGen prints a random instance of a problem; `--help` or `-h` after
// the problem lists its parameters instead.
func cmdGen(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 || isHelp(args[0]) || args[0] == "help" {
		return usageExit(genUsage, len(args) > 0, stdout, stderr)
	}
	runner, err := newRunner(0)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	p, ok := runner.Lookup(args[0])
	if !ok || p.Generate == nil {
		fmt.Fprintf(stderr, "xflex: no generator for %q%s\n", args[0], didYouMean(args[0], problemNames(runner)))
		return 2
	}
	if slices.ContainsFunc(args[1:], isHelp) {
		printGenParams(stdout, p)
		return 0
	}
	seed, params, err := genArgs(p, args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "xflex gen %s: %v\n", p.Command(), err)
		return 2
	}
	inst, err := p.Generate(seed, params)
	if err != nil {
		fmt.Fprintf(stderr, "xflex gen %s: %v\n", p.Command(), err)
		return 2
	}
	b, err := json.MarshalIndent(inst, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "xflex gen: encode: %v\n", err)
		return 3
	}
	_, _ = stdout.Write(append(b, '\n'))
	return 0
}

// genArgs reads the seed (default 1) and the generator parameters from
// args, refusing any parameter p does not declare.
func genArgs(p solver.Problem, args []string) (int64, map[string]string, error) {
	params, err := parseParams(args)
	if err != nil {
		return 0, nil, err
	}
	var seed int64 = 1
	if s, ok := params["seed"]; ok {
		seed, err = strconv.ParseInt(s, 10, 64)
		if err != nil || seed < 0 {
			return 0, nil, fmt.Errorf("--seed wants a non-negative integer, got %q", s)
		}
		delete(params, "seed")
	}
	for k := range params {
		if !slices.ContainsFunc(p.GenParams, func(g solver.GenParam) bool { return g.Name == k }) {
			return 0, nil, fmt.Errorf("unknown parameter --%s (known: %s)", k, genParamNames(p))
		}
	}
	return seed, params, nil
}

// genParamNames is the comma-separated list of p's generator parameters.
func genParamNames(p solver.Problem) string {
	names := []string{"seed"}
	for _, g := range p.GenParams {
		names = append(names, g.Name)
	}
	return strings.Join(names, ", ")
}

// printGenParams writes the usage of `xflex gen` for p: every parameter
// with its default and meaning.
func printGenParams(w io.Writer, p solver.Problem) {
	fmt.Fprintf(w, "usage: xflex gen %s [--seed N] [--PARAM VALUE ...]\n\nparameters (default in brackets):\n", p.Command())
	fmt.Fprintf(w, "  --%-12s %s [1]\n", "seed", "random seed, a non-negative integer")
	for _, g := range p.GenParams {
		fmt.Fprintf(w, "  --%-12s %s [%s]\n", g.Name, g.Help, g.Default)
	}
}

// isHelp reports whether the argument a asks for help.
func isHelp(a string) bool { return a == "--help" || a == "-h" }

// flagExit is the exit status for a failed flag parse: 0 when the flags
// asked for help (the flag package has printed the usage), 2 otherwise.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// usageExit prints text: on stdout with exit 0 when help was asked for,
// on stderr with exit 2 for a usage error.
func usageExit(text string, asked bool, stdout, stderr io.Writer) int {
	if asked {
		fmt.Fprint(stdout, text)
		return 0
	}
	fmt.Fprint(stderr, text)
	return 2
}

// cmdProblems lists the problems; any argument is a usage error, except
// --help.
func cmdProblems(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageExit("usage: xflex problems   list the problems, their URLs and summaries\n", isHelp(args[0]), stdout, stderr)
	}
	runner, err := newRunner(0)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	ps := runner.Problems()
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Command() < ps[j].Command() })
	for _, p := range ps {
		fmt.Fprintf(stdout, "%-16s POST /v1/%-16s %s\n", p.Command(), p.Name, p.Summary)
	}
	return 0
}

func cmdVersion(stdout io.Writer) int {
	b, _ := json.Marshal(httpapi.VersionInfo())
	_, _ = stdout.Write(append(b, '\n'))
	return 0
}
