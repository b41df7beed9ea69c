package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServeTimeoutFlags: the connection timeouts and the memory budget
// have defaults and follow their flags, so no connection can sit on its
// headers or idle forever.
func TestServeTimeoutFlags(t *testing.T) {
	c, err := parseServe(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httpServer(c, nil)
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 60*time.Second ||
		c.readBody != 30*time.Second || c.write != 30*time.Second || c.maxInflight != 512<<20 {
		t.Fatalf("defaults: header %v idle %v body %v write %v inflight %d",
			srv.ReadHeaderTimeout, srv.IdleTimeout, c.readBody, c.write, c.maxInflight)
	}
	c, err = parseServe([]string{"--read-header-timeout", "2s", "--idle-timeout", "3s",
		"--read-body-timeout", "4s", "--write-timeout", "5s", "--max-inflight-bytes", "1000"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv = httpServer(c, nil)
	if srv.ReadHeaderTimeout != 2*time.Second || srv.IdleTimeout != 3*time.Second ||
		c.readBody != 4*time.Second || c.write != 5*time.Second || c.maxInflight != 1000 {
		t.Fatalf("flags: header %v idle %v body %v write %v inflight %d",
			srv.ReadHeaderTimeout, srv.IdleTimeout, c.readBody, c.write, c.maxInflight)
	}
}

// TestServeCORSFlag: --cors-origin is repeatable and takes comma lists;
// none by default, and an empty origin is refused.
func TestServeCORSFlag(t *testing.T) {
	c, err := parseServe(nil, io.Discard)
	if err != nil || len(c.corsOrigins) != 0 {
		t.Fatalf("default: %v %v", c.corsOrigins, err)
	}
	c, err = parseServe([]string{"--cors-origin", "https://a.example, https://b.example", "--cors-origin", "http://localhost:3000"}, io.Discard)
	if err != nil || !slices.Equal(c.corsOrigins, []string{"https://a.example", "https://b.example", "http://localhost:3000"}) {
		t.Fatalf("flags: %q %v", c.corsOrigins, err)
	}
	if _, err := parseServe([]string{"--cors-origin", "https://a.example,"}, io.Discard); err == nil {
		t.Fatal("empty origin accepted")
	}
}

// TestServeJobMemoryFlag: the job workers' memory budget is the in-flight
// budget unless --job-memory-bytes sets its own.
func TestServeJobMemoryFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int64
	}{
		{nil, 512 << 20},
		{[]string{"--max-inflight-bytes", "1000"}, 1000},
		{[]string{"--max-inflight-bytes", "1000", "--job-memory-bytes", "3000"}, 3000},
	} {
		got, err := parseServe(c.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got.jobs.MemoryBytes != c.want {
			t.Errorf("%v: job memory %d, want %d", c.args, got.jobs.MemoryBytes, c.want)
		}
	}
}

// TestServeEnv: every serve flag can come from its XFLEX_* variable, a
// flag given on the command line wins over it, a bad value is refused
// naming the variable, and serve --help lists every variable.
func TestServeEnv(t *testing.T) {
	env := map[string]string{"XFLEX_MAX_BODY": "1234", "XFLEX_ADDR": "127.0.0.1:9999", "XFLEX_QUEUE_WAIT": "3s",
		"XFLEX_INSECURE": "true", "XFLEX_CORS_ORIGIN": "https://a.example,https://b.example", "XFLEX_JOB_WORKERS": "3",
		"XFLEX_SHUTDOWN_GRACE": "7s", "XFLEX_JOB_CLIENT_RUNNING": "9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := parseServeEnv([]string{"--addr", "127.0.0.1:7000", "--job-tenant-running", "2"}, io.Discard, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if c.maxBody != 1234 || c.addr != "127.0.0.1:7000" || c.queueWait != 3*time.Second || !c.insecure ||
		len(c.corsOrigins) != 2 || c.jobs.Workers != 3 || c.shutdownGrace != 7*time.Second || c.jobs.MaxRunningPerClient != 2 {
		t.Errorf("from the environment: %+v (jobs %+v)", c, *c.jobs)
	}
	env = map[string]string{"XFLEX_MAX_BODY": "lots"}
	var stderr strings.Builder
	if _, err := parseServeEnv(nil, &stderr, lookup); err == nil || !strings.Contains(stderr.String(), "XFLEX_MAX_BODY") {
		t.Errorf("a bad XFLEX_MAX_BODY: %v %q", err, stderr.String())
	}
	var help strings.Builder
	if _, err := parseServeEnv([]string{"--help"}, &help, lookup); err == nil {
		t.Fatal("--help parsed")
	}
	n := 0
	for _, line := range strings.Split(help.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "-") {
			n++
			name := strings.Fields(strings.TrimSpace(line))[0][1:]
			if !strings.Contains(help.String(), "[$"+envName(name)+"]") {
				t.Errorf("serve --help does not list %s for --%s", envName(name), name)
			}
		}
	}
	if n < 25 {
		t.Errorf("serve --help lists %d flags", n)
	}
}
