// Command xflex is the single xflex binary:
//
//	xflex serve [--addr HOST:PORT] [flags]   run the HTTP API
//	xflex token new TENANT [--scopes LIST]   make a token and its auth-file line
//	xflex solve [--quiet] [--max-body N] PROBLEM FILE|-   solve one request, print the response JSON
//	xflex gen PROBLEM --seed N [--k v ...]   print a random instance (--help: the parameters)
//	xflex bench PROBLEM [--scale small|full] print the quality and speed table
//	xflex problems                           list the problems
//	xflex version                            print version information
//
// `xflex solve` prints exactly the body POST /v1/PROBLEM returns: the
// response JSON on success (exit 0), the problem+json document on failure
// (exit 1 for bad input or infeasibility, 2 for usage errors, 3 for internal
// errors). Flags may come before the command's words too.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// main cancels the context on the first SIGINT or SIGTERM: serve drains
// and solve returns its best answer so far. It then restores the default
// handling, so a second signal ends the process at once even while a
// solve is inside code that does not watch the context (a CLP/CBC call
// runs to its own time limit).
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	deferGCInSolve = true
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `xflex: offline optimization and packing for cluster schedulers

usage:
  xflex serve [--addr HOST:PORT] [--auth-file PATH] [--store sqlite:PATH|postgres://...] [--max-budget DUR] [--max-concurrent N] [--max-body BYTES]
  xflex token new TENANT [--scopes solve,jobs,admin] [--auth-file PATH]   make a token and its auth-file line
  xflex solve [--quiet] [--max-body BYTES] PROBLEM FILE|-   solve a request (same JSON as POST /v1/PROBLEM); progress bar on a terminal
  xflex jobs submit|status|wait|result|cancel|list ...   asynchronous jobs on a server (xflex jobs help)
  xflex gen PROBLEM [--seed N] [--PARAM VALUE ...]   random instance (xflex gen PROBLEM --help lists the parameters)
  xflex bench PROBLEM [--scale small|full]
  xflex problems
  xflex version

Flags may come before or after a command's words (xflex jobs --server URL submit ...).
Exit status: 0 success; 1 the input was refused (the problem+json document is printed)
or a job failed; 2 usage (unknown command or problem, bad flag, unwritable --svg path,
unreadable input); 3 internal error, or (xflex jobs) the server could not be reached.
`

// run is main without the process: testable end to end.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if !isHelp(args[0]) && args[0] != "--version" && args[0] != "-v" {
		args = commandFirst(args, commands)
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "token":
		return cmdToken(args[1:], stdout, stderr)
	case "jobs":
		return jobsCommand(ctx, args[1:], stdin, stdout, stderr)
	case "solve":
		return cmdSolve(ctx, args[1:], stdin, stdout, stderr)
	case "gen":
		return cmdGen(args[1:], stdout, stderr)
	case "bench":
		return cmdBench(ctx, args[1:], stdout, stderr)
	case "problems":
		return cmdProblems(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		return cmdVersion(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "xflex: unknown command %q%s\n\n%s", args[0], didYouMean(args[0], commands), usage)
		return 2
	}
}
