package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docSkips are the shell commands of the docs that TestDocCommands does
// not run, each with the reason; a skip that no longer matches any
// command fails the test, so the list cannot rot.
var docSkips = map[string]string{
	"./scripts/serve.sh": "installs packages with apt and serves in the foreground (the test starts its own server)",
	"./scripts/test.sh":  "installs packages and runs the whole suite, this test included",
	"xflex serve --addr": "serves in the foreground on a fixed port (the test starts its own server)",
}

// docBlock is one ```sh block: its file, first line and commands.
type docBlock struct {
	file  string
	line  int
	lines []string
}

// docBlocks are the ```sh blocks of README.md and docs/*.md.
func docBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var out []docBlock
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var cur *docBlock
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			switch {
			case cur == nil && strings.TrimSpace(line) == "```sh":
				rel, _ := filepath.Rel(root, file)
				cur = &docBlock{file: rel, line: n + 1}
			case cur != nil && strings.TrimSpace(line) == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.lines = append(cur.lines, line)
			}
		}
		f.Close()
	}
	return out
}

// TestDocCommands runs every ```sh block of README.md and docs/*.md
// (but docSkips) against a started `xflex serve`, so the docs cannot
// drift from the binary: each file's blocks run in order in one bash
// (set -euo pipefail; variables such as JOB_ID carry over) in a fresh
// directory holding bin/xflex and examples/, with xflex on the PATH,
// XFLEX_SERVER set and localhost:8080 / 127.0.0.1:8080 pointing at the
// test's server. A failing command fails the test with its file and line.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, tool := range []string{"bash", "curl", "gzip", "grep"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildXflex(t)
	_, url := startXflex(t, bin, "--addr", "127.0.0.1:0", "--store", "sqlite:"+filepath.Join(t.TempDir(), "xflex.db"))
	addr := strings.TrimPrefix(url, "http://")
	used := map[string]bool{}
	byFile := map[string][]docBlock{}
	var order []string
	ran := 0
	for _, b := range docBlocks(t, root) {
		if skip(b, used) {
			continue
		}
		if byFile[b.file] == nil {
			order = append(order, b.file)
		}
		byFile[b.file] = append(byFile[b.file], b)
		ran += len(b.lines)
	}
	for s := range docSkips {
		if !used[s] {
			t.Errorf("docSkips has %q, which no command of the docs contains any more", s)
		}
	}
	if ran < 40 {
		t.Errorf("only %d command lines found in the docs", ran)
	}
	for _, file := range order {
		t.Run(file, func(t *testing.T) { runDocFile(t, root, bin, url, addr, byFile[file]) })
	}
}

// skip reports whether b holds a skipped command, noting which in used.
func skip(b docBlock, used map[string]bool) bool {
	hit := false
	for _, line := range b.lines {
		for s := range docSkips {
			if strings.Contains(line, s) {
				used[s], hit = true, true
			}
		}
	}
	return hit
}

// runDocFile runs one file's blocks as one script.
func runDocFile(t *testing.T, root, bin, url, addr string, blocks []docBlock) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"bin/xflex": bin, "examples": filepath.Join(root, "examples")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	var script strings.Builder
	script.WriteString("set -euo pipefail\ntrap 'echo \"xflex-doc-failed at script line $LINENO\" >&2' ERR\n")
	where := map[int]string{} // script line to doc file:line
	n := 2
	for _, b := range blocks {
		for i, line := range b.lines {
			n++
			where[n] = fmt.Sprintf("%s:%d: %s", b.file, b.line+i, line)
			line = strings.ReplaceAll(strings.ReplaceAll(line, "localhost:8080", addr), "127.0.0.1:8080", addr)
			script.WriteString(line + "\n")
		}
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XFLEX_SERVER="+url, "XFLEX_TOKEN=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var line int
		if i := strings.LastIndex(string(out), "xflex-doc-failed at script line "); i >= 0 {
			_, _ = fmt.Sscanf(string(out[i:]), "xflex-doc-failed at script line %d", &line)
		}
		t.Fatalf("a documented command failed (%v) at %s\n%s", err, where[line], tail(out, 3000))
	}
	t.Logf("%d blocks ran", len(blocks))
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// TestReadmeListsEveryProblem: the README's endpoint table has a row for
// every problem the binary serves (a new problem adds its row).
func TestReadmeListsEveryProblem(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	runner, err := newRunner(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range runner.Problems() {
		row := "| `POST /v1/" + p.Name + "` | `" + p.Command() + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md's endpoint table has no row %s", row)
		}
	}
}
