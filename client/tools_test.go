package client

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The served document through tools that share no code with the server:
// stock oapi-codegen's command (the version in go.mod, no options but
// what to generate), kin-openapi (TestOpenAPIDocument), and, from npm
// (scripts/openapi-tools, installed by scripts/install-deps.sh --test),
// redocly's linter with its recommended rules and openapi-typescript's
// types under strict tsc. The npm tools are skipped when not installed,
// unless CI=true.

// TestStockOapiCodegen: the oapi-codegen command generates types and a
// client from the document with no configuration, every number is
// float64, and the output compiles (go vet) in a module of its own.
func TestStockOapiCodegen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not with -short")
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, servedDocument(t, newServer(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	root, dir := userModule(t, map[string][]byte{})
	gen := filepath.Join(dir, "stock", "gen.go")
	if err := os.MkdirAll(filepath.Dir(gen), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "go", "run", "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen",
		"-generate", "types,client", "-package", "stock", "-o", gen, doc)
	src, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("float32")); n > 0 {
		t.Errorf("%d float32 in the generated code: a number lost its format double", n)
	}
	env := []string{"GOFLAGS=-mod=mod"}
	run(t, dir, env, "go", "mod", "tidy")
	run(t, dir, env, "go", "vet", "./...")
	t.Logf("oapi-codegen: %d bytes of Go, %d float64, 0 float32; compiles", len(src), bytes.Count(src, []byte("float64")))
}

// TestRedoclyLint: redocly's recommended rules find no error in the
// document (warnings are logged).
func TestRedoclyLint(t *testing.T) {
	bin := npmTool(t, "redocly")
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, servedDocument(t, newServer(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	// redocly exits 1 on an error; run fails the test then.
	out := run(t, "", nil, bin, "lint", "--format=summary", doc)
	if regexp.MustCompile(`(?m)^\s*error\s`).MatchString(out) {
		t.Errorf("redocly lint reports errors:\n%s", out)
	}
}

// TestTypeScriptStrict: openapi-typescript's types of the document pass
// strict tsc with testdata/ts/check.ts, which uses every solve's answer,
// a typed job submission and the pictures.
func TestTypeScriptStrict(t *testing.T) {
	gen := npmTool(t, "openapi-typescript")
	tsc := npmTool(t, "tsc")
	dir := t.TempDir()
	doc := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(doc, servedDocument(t, newServer(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	check, err := os.ReadFile(filepath.Join("testdata", "ts", "check.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "check.ts"), check, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, gen, doc, "-o", filepath.Join(dir, "api.d.ts"))
	run(t, dir, nil, tsc, "--strict", "--noEmit", "--target", "es2022", "--module", "es2022",
		"--moduleResolution", "bundler", "check.ts")
}

// npmTool is the path of an installed scripts/openapi-tools command;
// the test skips without it, or fails with CI=true.
func npmTool(t *testing.T, name string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "scripts", "openapi-tools", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (scripts/install-deps.sh --test installs it): %v", name, err)
		}
		t.Skipf("%s is not installed (scripts/install-deps.sh --test installs it)", name)
	}
	return bin
}

// run runs a command in dir with env added and returns its output,
// failing the test when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	return string(out)
}
