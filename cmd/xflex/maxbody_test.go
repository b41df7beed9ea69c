package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// TestSolveMaxBody checks that `xflex solve --max-body` is the server's
// --max-body: a body past the default 16 MiB gets exactly the 413 the
// default server answers, and solves, as on a server with that limit,
// once --max-body is raised; a smaller limit refuses a small body as such
// a server does.
func TestSolveMaxBody(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "xsize.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The example padded with white space to one byte past the default
	// limit: still the same request.
	big := append(bytes.Clone(example), bytes.Repeat([]byte(" "), cliMaxBody+1-len(example))...)
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		body    []byte
		maxBody int64 // 0: flag absent, server default
		status  int
	}{
		{"default limit", big, 0, http.StatusRequestEntityTooLarge},
		{"raised limit", big, cliMaxBody + 1, http.StatusOK},
		{"lowered limit", example, int64(len(example) - 1), http.StatusRequestEntityTooLarge},
		{"limit at size", example, int64(len(example)), http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "in.json")
			if err := os.WriteFile(file, c.body, 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"solve", "xsize", file}
			if c.maxBody != 0 {
				args = append(args, "--max-body", strconv.FormatInt(c.maxBody, 10))
			}
			stdout, stderr, code := runCLI(t, args...)
			srv := httpapi.New(httpapi.Config{MaxBodyBytes: c.maxBody}, runner, zerolog.Nop())
			req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/xsize", bytes.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("server answered %d, want %d: %s", rec.Code, c.status, rec.Body.Bytes())
			}
			httpBody := rec.Body.Bytes()
			if rec.Code >= 400 {
				httpBody = withoutRequestID(t, httpBody)
			}
			if stripElapsed([]byte(stdout)) != stripElapsed(httpBody) {
				t.Errorf("CLI and HTTP differ\nCLI (exit %d, %s): %.300s\nHTTP %d: %.300s", code, stderr, stdout, rec.Code, httpBody)
			}
			if wantOK := c.status == http.StatusOK; wantOK != (code == 0) {
				t.Errorf("HTTP %d but CLI exit %d", rec.Code, code)
			}
		})
	}
}

func TestSolveMaxBodyArgs(t *testing.T) {
	for _, c := range []struct {
		args    []string
		ok      bool
		maxBody int64
	}{
		{[]string{"cmmf", "f.json"}, true, cliMaxBody},
		{[]string{"cmmf", "f.json", "--max-body", "33554432"}, true, 32 << 20},
		{[]string{"--max-body=100", "cmmf", "-"}, true, 100},
		{[]string{"cmmf", "f.json", "--max-body", "0"}, true, cliMaxBody},
		{[]string{"cmmf", "f.json", "--max-body", "9223372036854775807"}, true, 1<<63 - 2},
		{[]string{"cmmf", "f.json", "--max-body"}, false, 0},
		{[]string{"cmmf", "f.json", "--max-body="}, false, 0},
		{[]string{"cmmf", "f.json", "--max-body", "16MiB"}, false, 0},
	} {
		a, ok := parseSolveArgs(c.args)
		if ok != c.ok || (ok && a.maxBody != c.maxBody) {
			t.Errorf("parseSolveArgs(%q) = %+v, %v; want max body %d, %v", c.args, a, ok, c.maxBody, c.ok)
		}
	}
}
