// Command jobserver is `xflex serve` reduced to the test/sleep problem: the
// same httpapi server and jobs.Setup, so the crash-recovery test can kill a
// real server process mid-job. It prints "listening ADDR" once it accepts
// connections.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/jobs/jobtest"
)

func main() {
	fs := flag.NewFlagSet("jobserver", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	maxBudget := fs.Duration("max-budget", 60*time.Second, "cap on budget_ms")
	cfg := jobs.Flags(fs)
	_ = fs.Parse(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	runner, err := jobtest.Runner(*maxBudget)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	api := httpapi.New(httpapi.Config{}, runner, log)
	stopJobs, err := jobs.Setup(ctx, *cfg, runner, api, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("listening %s\n", ln.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := stopJobs(sctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
