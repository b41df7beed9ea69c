package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/xflex/xflex/httpapi"
)

const tokenUsage = `usage: xflex token new TENANT [--scopes solve,jobs,admin] [--auth-file PATH]
Prints a fresh random token and its auth-file line (TENANT SCOPES SHA256HEX).
TENANT is 1 to 64 characters from A-Z a-z 0-9 . _ - (no spaces).
With --auth-file it appends the line to PATH (created 0600 if missing, checked
first) and prints only the token; send the server SIGHUP to load it.
The token is shown once: the file stores only its hash.
`

// cmdToken runs `xflex token new`.
func cmdToken(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "new" {
		return usageExit(tokenUsage, len(args) > 0 && (isHelp(args[0]) || args[0] == "help"), stdout, stderr)
	}
	fset := flag.NewFlagSet("token new", flag.ContinueOnError)
	fset.SetOutput(stderr)
	scopeList := fset.String("scopes", "solve,jobs", "comma list of solve, jobs, admin")
	authFile := fset.String("auth-file", "", "append the line to this auth file and print only the token")
	rest, err := parseInterleaved(fset, args[1:])
	if err != nil {
		return flagExit(err)
	}
	if len(rest) != 1 {
		fmt.Fprint(stderr, tokenUsage)
		return 2
	}
	scopes, err := httpapi.ParseScopes(*scopeList)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: --scopes: %v\n", err)
		return 2
	}
	token, err := httpapi.NewToken()
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 1
	}
	line, err := httpapi.AuthLine(rest[0], scopes, token)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 2
	}
	if *authFile == "" {
		fmt.Fprintf(stdout, "%s\n%s\n", token, line)
		return 0
	}
	if err := appendAuthLine(*authFile, line); err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "xflex: added a token for %s to %s; a running server loads it on SIGHUP\n", rest[0], *authFile)
	return 0
}

// appendAuthLine appends line to the auth file at path, creating it with
// mode 0600. An existing file must parse first, so a file the server
// would refuse is not made longer.
func appendAuthLine(path, line string) error {
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if _, err := httpapi.LoadAuth(path); err != nil {
			return err
		}
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		line = "\n" + line
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, line+"\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (`token new acme --scopes solve`), which
// flag.FlagSet alone stops at; it returns the positional ones.
func parseInterleaved(fset *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		args = fset.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}
