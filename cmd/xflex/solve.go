package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// cliMaxBody matches the server's default body limit, so a file the CLI
// accepts is one the server accepts.
const cliMaxBody = 16 << 20

func newRunner(maxBudget time.Duration) (*solver.Runner, error) {
	return solver.NewRunner(problems.All(), maxBudget)
}

func cmdSolve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprint(stderr, "usage: xflex solve PROBLEM FILE|-\n")
		return 2
	}
	runner, err := newRunner(0)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	name := args[0]
	p, ok := runner.Lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "xflex: unknown problem %q (try `xflex problems`)\n", name)
		return 2
	}
	var r io.Reader = stdin
	if args[1] != "-" {
		f, err := os.Open(args[1])
		if err != nil {
			fmt.Fprintf(stderr, "xflex: %v\n", err)
			return 2
		}
		defer f.Close()
		r = f
	}
	body, err := io.ReadAll(io.LimitReader(r, cliMaxBody+1))
	if err != nil {
		fmt.Fprintf(stderr, "xflex: read %s: %v\n", args[1], err)
		return 2
	}
	instance := "/v1/" + p.Name
	if len(body) > cliMaxBody {
		e := &solver.Error{Kind: solver.KindTooLarge, Detail: "request body exceeds " + strconv.Itoa(cliMaxBody) + " bytes"}
		_, _ = stdout.Write(httpapi.FromError(e, instance, "").Encode())
		return 1
	}
	resp, err := runner.Run(ctx, p.Name, body)
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
	return 0
}

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

func cmdGen(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, "usage: xflex gen PROBLEM --seed N [--PARAM VALUE ...]\n")
		return 2
	}
	runner, err := newRunner(0)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	p, ok := runner.Lookup(args[0])
	if !ok || p.Generate == nil {
		fmt.Fprintf(stderr, "xflex: no generator for %q\n", args[0])
		return 2
	}
	params, err := parseParams(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "xflex gen: %v\n", err)
		return 2
	}
	var seed int64 = 1
	if s, ok := params["seed"]; ok {
		seed, err = strconv.ParseInt(s, 10, 64)
		if err != nil || seed < 0 {
			fmt.Fprintf(stderr, "xflex gen: --seed wants a non-negative integer, got %q\n", s)
			return 2
		}
		delete(params, "seed")
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

func cmdProblems(stdout, stderr io.Writer) int {
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
