package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs"
)

// serveConfig are the `xflex serve` flags.
type serveConfig struct {
	addr            string
	maxBudget       time.Duration
	maxBody         int64
	maxConcurrent   int
	maxPerTenant    int
	queueWait       time.Duration
	maxInflight     int64
	readHeader      time.Duration
	readBody        time.Duration
	write           time.Duration
	idle            time.Duration
	shutdownTimeout time.Duration
	shutdownGrace   time.Duration
	logFormat       string
	authFile        string
	insecure        bool
	corsOrigins     []string
	memoryLimit     string
	discardRefused  int64
	allowedHosts    []string
	jobs            *jobs.Config
}

// parseServe reads the serve flags, each also from its XFLEX_* variable
// in the environment (serveEnv).
func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	return parseServeEnv(args, stderr, os.LookupEnv)
}

// parseServeEnv is parseServe with the environment read through lookup.
func parseServeEnv(args []string, stderr io.Writer, lookup func(string) (string, bool)) (serveConfig, error) {
	var c serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address HOST:PORT")
	fs.DurationVar(&c.maxBudget, "max-budget", 60*time.Second, "cap on any request's budget_ms")
	fs.Int64Var(&c.maxBody, "max-body", 16<<20, "maximum request body in bytes (413 beyond)")
	fs.IntVar(&c.maxConcurrent, "max-concurrent", 0, "simultaneous solves (0: number of CPUs)")
	fs.IntVar(&c.maxPerTenant, "max-concurrent-per-tenant", 0, "simultaneous solves of one tenant (0: all of --max-concurrent; slots go fairly among waiting tenants either way)")
	fs.DurationVar(&c.queueWait, "queue-wait", time.Second, "how long a request waits for memory, and then for a solve slot, before 503")
	fs.Int64Var(&c.maxInflight, "max-inflight-bytes", 512<<20,
		"memory budget of requests in flight; each is charged "+strconv.Itoa(httpapi.MemoryPerBodyByte)+"x its body before the body is read, then its solve's estimate before the solve (503 beyond; docs/MEMORY.md)")
	fs.StringVar(&c.memoryLimit, "memory-limit", "auto",
		"soft memory limit of the Go runtime (GOMEMLIMIT semantics): auto (--max-inflight-bytes + --job-memory-bytes + 64 MiB; a GOMEMLIMIT in the environment wins), off, or bytes (docs/MEMORY.md)")
	fs.Int64Var(&c.discardRefused, "discard-refused-bytes", 16<<20,
		"bytes of a body refused with 503 before it was read that are read and thrown away, so a client without \"Expect: 100-continue\" reads the 503 instead of a reset (negative: none)")
	fs.DurationVar(&c.readHeader, "read-header-timeout", 10*time.Second, "time allowed to send a request's headers")
	fs.DurationVar(&c.readBody, "read-body-timeout", 30*time.Second, "time allowed to send a request's body once admitted (408 beyond)")
	fs.DurationVar(&c.write, "write-timeout", 30*time.Second, "time allowed to write a response once it starts")
	fs.DurationVar(&c.idle, "idle-timeout", 60*time.Second, "how long a keep-alive connection may sit idle")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 90*time.Second, "how long shutdown waits for in-flight solves")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", defaultShutdownGrace,
		"after SIGTERM or SIGINT, how long /readyz answers 503 while every request is still served, before the listener closes and in-flight requests drain (0: close at once)")
	fs.StringVar(&c.logFormat, "log-format", "json", "access log format: json or console")
	fs.StringVar(&c.authFile, "auth-file", "",
		"`PATH` of the token file, a line TENANT SCOPES SHA256HEX per token (xflex token new); re-read on SIGHUP")
	fs.BoolVar(&c.insecure, "insecure", false, "serve a non-loopback --addr without --auth-file (no tokens: anyone who reaches it may use it)")
	fs.Func("cors-origin", "`ORIGIN` (scheme://host[:port]) browsers may call the API from; repeat it or give a comma list (default: none, no CORS headers)",
		func(v string) error {
			for _, o := range strings.Split(v, ",") {
				if o = strings.TrimSpace(o); o == "" {
					return fmt.Errorf("empty origin in %q", v)
				}
				c.corsOrigins = append(c.corsOrigins, o)
			}
			return nil
		})
	fs.Func("allowed-host", "`HOST[:PORT]` served besides localhost, 127.0.0.0/8 and [::1] (421 for any other Host: a guard against DNS rebinding); repeat it. Without --auth-file only those are served; with it, any Host unless this is given",
		func(v string) error {
			if _, err := httpapi.NewHostAllowList([]string{v}); err != nil {
				return err
			}
			c.allowedHosts = append(c.allowedHosts, v)
			return nil
		})
	c.jobs = jobs.Flags(fs)
	envNames(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := serveEnv(fs, lookup); err != nil {
		fmt.Fprintf(stderr, "xflex serve: %v\n", err)
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if c.jobs.MemoryBytes <= 0 {
		// The same budget as requests in flight: a request the server
		// would solve is solved as a job too, alone when the server would
		// run it alone (docs/MEMORY.md).
		c.jobs.MemoryBytes = c.maxInflight
	}
	return c, nil
}

// defaultShutdownGrace is long enough for a load balancer or Kubernetes
// probing /readyz every second or two to see the 503 and stop sending
// new requests before the listener closes.
const defaultShutdownGrace = 5 * time.Second

// envName is the environment variable of a serve flag: XFLEX_ and the
// flag's name in capitals with - as _ (--max-body: XFLEX_MAX_BODY).
func envName(flag string) string {
	return "XFLEX_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envNames adds each flag's variable to its usage, so serve --help lists
// them.
func envNames(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) { f.Usage += " [$" + envName(f.Name) + "]" })
}

// flagAliases are old flag names and the flags they set: one given on the
// command line wins over the other's variable too.
var flagAliases = map[string]string{"job-client-running": "job-tenant-running", "job-client-queue": "job-tenant-queue"}

// serveEnv sets every flag not given on the command line from its
// variable when the environment has it: flags win over the environment,
// the environment over the defaults. A bad value is a usage error naming
// the variable.
func serveEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		for old, name := range flagAliases {
			if f.Name == name || f.Name == old {
				given[old], given[name] = true, true
			}
		}
	})
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := lookup(envName(f.Name))
		if given[f.Name] || !ok || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, e)
		}
	})
	return err
}

// httpServer is the server `xflex serve` runs, with the flags' header and
// idle timeouts. No ReadTimeout or WriteTimeout: they run from the start
// of the request and so would bound the solve; the API sets its own body
// and response deadlines (--read-body-timeout, --write-timeout).
func httpServer(c serveConfig, h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: c.readHeader, IdleTimeout: c.idle}
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseServe(args, stderr)
	if err != nil {
		return flagExit(err)
	}
	var out io.Writer = stdout
	if c.logFormat == "console" {
		out = zerolog.ConsoleWriter{Out: stdout, TimeFormat: time.RFC3339}
	}
	log := zerolog.New(out).With().Timestamp().Logger()
	addr, auth, err := serveAccess(c, log)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 2
	}
	if auth != nil {
		stopReload := reloadOnHangup(auth, log)
		defer stopReload()
	}
	limit, source, err := memoryLimit(c.memoryLimit, c.maxInflight, c.jobs.MemoryBytes, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 2
	}
	log.Info().Int64("bytes", setMemoryLimit(limit)).Str("source", source).Msg("soft memory limit")
	runner, err := newRunner(c.maxBudget)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	api := httpapi.New(httpapi.Config{
		MaxBodyBytes: c.maxBody, MaxConcurrent: c.maxConcurrent, MaxConcurrentPerTenant: c.maxPerTenant, QueueWait: c.queueWait,
		MaxInflightBytes: c.maxInflight, ReadBodyTimeout: c.readBody, WriteTimeout: c.write, Auth: auth,
		CORSOrigins: c.corsOrigins, DiscardRefused: c.discardRefused, AllowedHosts: c.allowedHosts,
	}, runner, log)
	stopJobs, err := jobs.Setup(ctx, *c.jobs, runner, api, log)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: jobs: %v\n", err)
		return 1
	}
	if _, err := api.OpenAPI(); err != nil { // built now, every route mounted, not at the first GET
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 3
	}
	ln, err := net.ListenTCP("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: listen %s: %v\n", c.addr, err)
		return 1
	}
	srv := httpServer(c, api.Handler())
	log.Info().Str("addr", ln.Addr().String()).Str("version", httpapi.VersionInfo()["version"].(string)).Msg("xflex serving")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "xflex: serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	// Graceful shutdown: report draining (/readyz 503) while still serving
	// every request for the grace, so load balancers stop routing here
	// before any connection is refused; then stop accepting, let
	// in-flight solves finish (their own budgets bound them), and exit.
	api.SetDraining()
	log.Info().Int64("shutdown_grace_ms", c.shutdownGrace.Milliseconds()).
		Msg("shutting down: /readyz answers 503 during the grace, then in-flight solves drain")
	time.Sleep(c.shutdownGrace)
	log.Info().Msg("shutting down: listener closed, draining in-flight solves")
	sctx, cancel := context.WithTimeout(context.Background(), c.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "xflex: shutdown: %v\n", err)
		return 1
	}
	if err := stopJobs(sctx); err != nil {
		fmt.Fprintf(stderr, "xflex: stop jobs: %v\n", err)
		return 1
	}
	log.Info().Msg("stopped")
	_ = os.Stdout.Sync()
	return 0
}

// serveAccess resolves --addr and loads --auth-file. Without an auth file
// the server has no tokens, so it may listen only on a loopback address
// unless --insecure says otherwise (then it logs a warning): ":8080",
// "0.0.0.0:8080" and a hostname that does not resolve to loopback are
// refused. The address is resolved once and the server listens on exactly
// what was checked.
func serveAccess(c serveConfig, log zerolog.Logger) (*net.TCPAddr, *httpapi.Auth, error) {
	addr, err := net.ResolveTCPAddr("tcp", c.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--addr %s: %w", c.addr, err)
	}
	if c.authFile != "" {
		auth, err := httpapi.LoadAuth(c.authFile)
		if err != nil {
			return nil, nil, err
		}
		logTokens(log, auth, "auth file loaded")
		return addr, auth, nil
	}
	if addr.IP.IsLoopback() {
		return addr, nil, nil
	}
	if !c.insecure {
		return nil, nil, fmt.Errorf("--addr %s is not a loopback address: give --auth-file (tokens, see `xflex token new`), "+
			"or --insecure to serve it without tokens", c.addr)
	}
	log.Warn().Str("addr", c.addr).Msg("--insecure: serving a non-loopback address without an auth file; anyone who can reach it may use it")
	if len(c.allowedHosts) == 0 {
		log.Warn().Str("addr", c.addr).Msg("no --allowed-host: only requests naming this server localhost, 127.0.0.1 or [::1] are served (421 otherwise); add the names clients use")
	}
	return addr, nil, nil
}

// reloadOnHangup re-reads the auth file on every SIGHUP until the
// returned stop is called (so also while the server drains). A bad file
// is logged with its line numbers and the tokens loaded before stay in
// force; requests are never dropped (the listener is untouched and the
// token set is swapped atomically).
func reloadOnHangup(auth *httpapi.Auth, log zerolog.Logger) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
			}
			if err := auth.Reload(); err != nil {
				log.Error().Str("auth_file", auth.Path()).Err(err).Msg("auth file reload failed; the tokens loaded before stay in force")
				continue
			}
			logTokens(log, auth, "auth file reloaded")
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

// logTokens logs how many tokens and tenants the auth file holds, as a
// warning when it holds none (then only the open paths answer).
func logTokens(log zerolog.Logger, auth *httpapi.Auth, msg string) {
	tokens, tenants := auth.Counts()
	ev := log.Info()
	if tokens == 0 {
		ev = log.Warn().Str("warning", "no tokens: every path but /healthz, /readyz and /version answers 401")
	}
	ev.Str("auth_file", auth.Path()).Int("tokens", tokens).Int("tenants", tenants).Msg(msg)
}
