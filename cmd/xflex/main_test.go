package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

var elapsedRE = regexp.MustCompile(`"elapsed_ms":[0-9.eE+-]+`)

func stripElapsed(b []byte) string { return string(elapsedRE.ReplaceAll(b, nil)) }

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func examplePath(p solver.Problem) string {
	return filepath.Join("..", "..", "examples", p.Command()+".json")
}

// TestSolveMatchesHTTP checks the contract that `xflex solve PROBLEM FILE`
// prints exactly the body of POST /v1/PROBLEM, for every problem's example
// in examples/ and for a malformed and a schema-invalid body.
func TestSolveMatchesHTTP(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.New(httpapi.Config{}, runner, zerolog.Nop())
	for _, p := range runner.Problems() {
		t.Run(p.Command(), func(t *testing.T) {
			example, err := os.ReadFile(examplePath(p))
			if err != nil {
				t.Fatalf("every problem needs an example request in examples/: %v", err)
			}
			dir := t.TempDir()
			for name, body := range map[string][]byte{
				"example":   example,
				"malformed": []byte(`{"oops"`),
				"schema":    []byte(`{"budget_ms": -5}`),
			} {
				file := filepath.Join(dir, name+".json")
				if err := os.WriteFile(file, body, 0o600); err != nil {
					t.Fatal(err)
				}
				stdout, stderr, code := runCLI(t, "solve", p.Command(), file)
				req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/"+p.Name, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				srv.Handler().ServeHTTP(rec, req)
				httpBody := rec.Body.Bytes()
				if rec.Code >= 400 {
					// The problem document carries the request id, which only
					// HTTP has; drop it and compare the rest byte for byte.
					httpBody = withoutRequestID(t, httpBody)
				}
				if stripElapsed([]byte(stdout)) != stripElapsed(httpBody) {
					t.Errorf("%s: CLI and HTTP differ\nCLI (exit %d, %s): %s\nHTTP %d: %s", name, code, stderr, stdout, rec.Code, httpBody)
				}
				if wantOK := rec.Code == 200; wantOK != (code == 0) {
					t.Errorf("%s: HTTP %d but CLI exit %d", name, rec.Code, code)
				}
				if name == "example" && rec.Code != 200 {
					t.Errorf("example request fails: %s", httpBody)
				}
			}
		})
	}
}

// withoutRequestID re-encodes a problem document as the CLI would print it:
// the same fields in the same order, with no request id.
func withoutRequestID(t *testing.T, body []byte) []byte {
	t.Helper()
	var p httpapi.ProblemDetails
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem document: %v: %s", err, body)
	}
	p.RequestID = ""
	return p.Encode()
}

// TestGenSolves checks that every generator's output is a valid request
// that solves, and that the same seed gives the same instance.
func TestGenSolves(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range runner.Problems() {
		if p.Generate == nil {
			t.Errorf("%s has no generator", p.Name)
			continue
		}
		a, stderr, code := runCLI(t, "gen", p.Command(), "--seed", "7")
		b, _, _ := runCLI(t, "gen", p.Command(), "--seed=7")
		if code != 0 {
			t.Fatalf("gen %s: exit %d: %s", p.Command(), code, stderr)
		}
		if a != b {
			t.Errorf("gen %s: the same seed gave different instances", p.Command())
		}
		if _, err := runner.Run(context.Background(), p.Name, []byte(a)); err != nil {
			t.Errorf("gen %s: generated instance does not solve: %v", p.Command(), err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"solve"}, {"solve", "no-such-problem", "-"}, {"gen"}, {"serve", "--bogus"}, {"bench"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("xflex %v: exit %d, want 2", args, code)
		}
	}
	out, _, code := runCLI(t, "version")
	if code != 0 || !strings.Contains(out, `"version"`) {
		t.Errorf("version: %d %s", code, out)
	}
	if _, _, code := runCLI(t, "problems"); code != 0 {
		t.Errorf("problems: exit %d", code)
	}
}

func TestParseParams(t *testing.T) {
	got, err := parseParams([]string{"--users", "10", "--types=3"})
	if err != nil || got["users"] != "10" || got["types"] != "3" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range [][]string{{"users"}, {"--users"}, {"-"}} {
		if _, err := parseParams(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestGenParams checks every generator's declared parameter table: `gen
// PROBLEM --help` lists it (exit 0), an undeclared parameter is refused
// naming it and the known ones (exit 2), and passing a parameter its
// declared default gives the same instance as leaving it out.
func TestGenParams(t *testing.T) {
	for _, p := range problems.All() {
		if len(p.GenParams) == 0 {
			t.Errorf("%s declares no generator parameters", p.Command())
			continue
		}
		help, _, code := runCLI(t, "gen", p.Command(), "--help")
		if code != 0 {
			t.Errorf("gen %s --help: exit %d", p.Command(), code)
		}
		_, stderr, code := runCLI(t, "gen", p.Command(), "--seed", "3", "--foo", "1")
		if code != 2 || !strings.Contains(stderr, "--foo") || !strings.Contains(stderr, p.GenParams[0].Name) {
			t.Errorf("gen %s --foo 1: exit %d, %q", p.Command(), code, stderr)
		}
		base, _, _ := runCLI(t, "gen", p.Command(), "--seed", "3")
		for _, g := range p.GenParams {
			if !strings.Contains(help, "--"+g.Name+" ") || !strings.Contains(help, "["+g.Default+"]") {
				t.Errorf("gen %s --help does not list %s [%s]:\n%s", p.Command(), g.Name, g.Default, help)
			}
			checkGenDefault(t, p, g, base)
		}
	}
}

// checkGenDefault checks that --NAME DEFAULT changes nothing; a default
// that is a description rather than a value ("unset", "10·slots", "per
// metric") must be refused instead.
func checkGenDefault(t *testing.T, p solver.Problem, g solver.GenParam, base string) {
	t.Helper()
	out, stderr, code := runCLI(t, "gen", p.Command(), "--seed", "3", "--"+g.Name, g.Default)
	descriptive := g.Default == "unset" || strings.ContainsAny(g.Default, "· ")
	switch {
	case code == 0 && out != base:
		t.Errorf("gen %s --%s %s: not the default instance", p.Command(), g.Name, g.Default)
	case code != 0 && !descriptive:
		t.Errorf("gen %s --%s %s: exit %d: %s", p.Command(), g.Name, g.Default, code, stderr)
	}
}

// TestHelpEverywhere checks that --help and -h exit 0 with a usage text
// for the command and every subcommand.
func TestHelpEverywhere(t *testing.T) {
	cmds := [][]string{{}, {"serve"}, {"solve"}, {"gen"}, {"gen", "cmmf"}, {"bench"}, {"bench", "cmmf"},
		{"jobs"}, {"jobs", "submit"}, {"jobs", "status"}, {"jobs", "wait"}, {"jobs", "result"},
		{"jobs", "cancel"}, {"jobs", "list"}, {"token"}, {"token", "new"}, {"problems"}}
	for _, cmd := range cmds {
		for _, h := range []string{"--help", "-h"} {
			args := append(slices.Clone(cmd), h)
			out, errOut, code := runCLI(t, args...)
			if code != 0 || !strings.Contains(strings.ToLower(out+errOut), "usage") {
				t.Errorf("xflex %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	}
}
