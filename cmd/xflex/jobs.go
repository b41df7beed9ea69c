package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/xflex/xflex/client"
	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/solver"
)

const jobsUsage = `usage: xflex jobs COMMAND [flags] ARGS   (client of a running xflex serve)
  submit [--variants FILE] [--wait|--id] [--idempotency-key K] PROBLEM FILE|-
                                                     queue a solve (or, with --variants, a scenario)
  submit [--wait] FILE|-                             queue a whole POST /v1/jobs body, e.g. examples/scenario.json
  status ID                                          print the job
  wait [--timeout DUR] ID                            wait (GET ?wait=) with a progress bar on stderr, print the job
  result [--table] ID                                print the result (the body POST /v1/PROBLEM returns)
  cancel ID                                          cancel a queued or running job
  list [--state S] [--problem P] [--limit N] [--cursor C]
flags of every command (before or after its words: jobs --server URL submit ...):
  --server URL   the xflex server (default $XFLEX_SERVER or http://127.0.0.1:8080)
  --client ID    sent as X-Client-Id (informational: jobs and limits are the token's tenant's)
  --token TOKEN  sent as Authorization: Bearer (default $XFLEX_TOKEN; xflex token new)
--json (submit, status, wait, cancel, list) prints the server's JSON even on a terminal.
submit, status, wait, cancel and list print a job (or a page of jobs) as a table
on a terminal and as the server's JSON when stdout is a pipe or a file, or with
--json. wait and submit --wait print the job once it has ended, as status does;
with --result they print its result instead, with --table a scenario's
comparison table. Both draw a progress bar on stderr when it is a terminal (a
line per change of state elsewhere; nothing with --quiet).
submit reads FILE itself (up to 16 MiB; no need for $(cat FILE)), holds it once
and sends it inside the request without copying it. It sends an Idempotency-Key
(random unless --idempotency-key is given) and retries, with that key, a
submission whose answer was lost (connection error, 502 or 504) up to 5 times
with backoff: the server answers a retry of a submission it already took with
the same job. Any request refused for load (429, 503) is retried after the
seconds its Retry-After names (at most 1 min), a GET whose answer was lost too.
--variants FILE holds a JSON array [{"name": ..., "patch": {...}}] of RFC 7396
merge patches on the input, or an object {"NAME": PATCH, ...} (sorted by name).
Exit status: 0 success, 1 the job or request failed, 2 usage, 3 server unreachable.
`

// jobsClient talks to the job API of one server.
type jobsClient struct {
	server string
	client string
	token  string
	// key is the Idempotency-Key sent with a submission.
	key  string
	http *http.Client
}

// jobsCommand runs `xflex jobs ...`.
func jobsCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args = commandFirst(args, jobsCommands)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, jobsUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("jobs "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &jobsClient{http: &http.Client{Timeout: 60 * time.Second}}
	fs.StringVar(&c.server, "server", cmp.Or(os.Getenv("XFLEX_SERVER"), "http://127.0.0.1:8080"), "xflex server URL")
	fs.StringVar(&c.client, "client", "", "client id (X-Client-Id)")
	fs.StringVar(&c.token, "token", "", "bearer token for a server with an auth file (default $XFLEX_TOKEN, not shown)")
	o := &jobsOptions{sub: sub}
	if !o.register(fs, c) {
		fmt.Fprintf(stderr, "xflex jobs: unknown command %q%s\n\n%s", sub, didYouMean(sub, jobsCommands), jobsUsage)
		return 2
	}
	// Flags may come before or after the arguments (`jobs wait ID --timeout 1m`).
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	c.server = strings.TrimRight(c.server, "/")
	if c.token == "" {
		c.token = os.Getenv("XFLEX_TOKEN")
	}
	switch sub {
	case "submit":
		return c.submitCommand(ctx, o, rest, stdin, stdout, stderr)
	case "list":
		return c.listCommand(ctx, o, rest, stdout, stderr)
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "usage: xflex jobs %s [flags] ID\n", sub)
		return 2
	}
	return c.jobCommand(ctx, o, rest[0], stdout, stderr)
}

// jobsOptions are a jobs subcommand's own flags.
type jobsOptions struct {
	sub                      string
	variants, state, problem string
	cursor                   string
	wait, table, result      bool
	idOnly                   bool
	json, quiet              bool
	timeout, interval        time.Duration
	limit                    int
}

// register adds sub's flags to fs; false for an unknown subcommand.
func (o *jobsOptions) register(fs *flag.FlagSet, c *jobsClient) bool {
	switch o.sub {
	case "submit":
		fs.StringVar(&o.variants, "variants", "", "JSON file of named merge-patch variants")
		fs.StringVar(&c.key, "idempotency-key", "", "Idempotency-Key of the submission (default: random)")
		fs.BoolVar(&o.wait, "wait", false, "wait for the job and print it")
		fs.BoolVar(&o.idOnly, "id", false, "print only the job's id (for scripts: JOB_ID=$(xflex jobs submit --id ...))")
		fs.DurationVar(&o.interval, "interval", 250*time.Millisecond, "poll interval while waiting")
		o.registerWaitOutput(fs)
	case "wait":
		fs.DurationVar(&o.timeout, "timeout", 0, "give up after this long (0: never)")
		fs.DurationVar(&o.interval, "interval", 250*time.Millisecond, "poll interval")
		o.registerWaitOutput(fs)
	case "result":
		fs.BoolVar(&o.table, "table", false, "print a scenario's comparison as a table")
		return true
	case "list":
		fs.StringVar(&o.state, "state", "", "comma-separated states")
		fs.StringVar(&o.problem, "problem", "", "problem name")
		fs.IntVar(&o.limit, "limit", 0, "page size")
		fs.StringVar(&o.cursor, "cursor", "", "next_cursor of the previous page")
	case "status", "cancel":
	default:
		return false
	}
	fs.BoolVar(&o.json, "json", false, "print the server's JSON even on a terminal")
	return true
}

// registerWaitOutput adds the flags of what waiting prints.
func (o *jobsOptions) registerWaitOutput(fs *flag.FlagSet) {
	fs.BoolVar(&o.result, "result", false, "once the job ended, print its result instead of the job")
	fs.BoolVar(&o.table, "table", false, "once a scenario ended, print its comparison as a table")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
}

// submitCommand runs `xflex jobs submit PROBLEM FILE|-` (or `submit
// FILE|-` with a whole submission), with --wait waiting for the job.
func (c *jobsClient) submitCommand(ctx context.Context, o *jobsOptions, rest []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var body payload
	var code int
	switch {
	case len(rest) == 2:
		body, code = buildSubmission(rest[0], rest[1], o.variants, stdin, stderr)
	case len(rest) == 1 && o.variants == "":
		body, code = readSubmission(rest[0], stdin, stderr)
	default:
		fmt.Fprint(stderr, "usage: xflex jobs submit [--variants FILE] [--wait] PROBLEM FILE|-\n"+
			"       xflex jobs submit [--wait] FILE|-   (FILE: a whole POST /v1/jobs body)\n")
		return 2
	}
	if code != 0 {
		return code
	}
	if o.idOnly && o.wait {
		fmt.Fprint(stderr, "xflex jobs submit: --id prints the id at once; it does not go with --wait\n")
		return 2
	}
	if c.key == "" {
		c.key = client.NewIdempotencyKey()
	}
	status, resp, code := c.submit(ctx, body, stderr)
	if code != 0 {
		return code
	}
	// 200: a retry the server had already taken, answered with its job.
	if status != http.StatusAccepted && status != http.StatusOK {
		stdout.Write(resp)
		if len(rest) == 2 && bytes.Contains(resp, []byte("unknown problem")) {
			if runner, err := newRunner(0); err == nil {
				fmt.Fprintf(stderr, "xflex: unknown problem %q%s\n", rest[0], didYouMean(rest[0], problemNames(runner)))
			}
		}
		return 1
	}
	if !o.wait && !o.idOnly {
		writeJob(stdout, resp, !wantJSON(stdout, o.json), time.Now())
		return 0
	}
	var j jobs.Job
	if err := json.Unmarshal(resp, &j); err != nil {
		fmt.Fprintf(stderr, "xflex: decode job: %v\n", err)
		return 1
	}
	if o.idOnly {
		fmt.Fprintln(stdout, j.ID)
		return 0
	}
	return c.waitCommand(ctx, o, j.ID, stdout, stderr)
}

// waitCommand waits for a job to end and prints it (or, with --result or
// --table, its result): what `jobs wait` and `jobs submit --wait` print.
func (c *jobsClient) waitCommand(ctx context.Context, o *jobsOptions, id string, stdout, stderr io.Writer) int {
	body, code := c.wait(ctx, id, o.timeout, o.interval, newDisplay(stderr, o.quiet, true), stderr)
	if code == 2 || code == 3 || body == nil {
		return code
	}
	var j jobs.Job
	if (o.result || o.table) && json.Unmarshal(body, &j) == nil && j.State.Terminal() {
		return c.result(ctx, id, o.table, stdout, stderr)
	}
	writeJob(stdout, body, !wantJSON(stdout, o.json), time.Now())
	return code
}

// jobCommand runs the subcommands on one job: status, cancel, result and
// wait.
func (c *jobsClient) jobCommand(ctx context.Context, o *jobsOptions, id string, stdout, stderr io.Writer) int {
	switch o.sub {
	case "status":
		return c.show(func(api *client.Client) (*http.Response, error) {
			return api.GetJob(ctx, id, &client.GetJobParams{})
		}, o, writeJob, stdout, stderr)
	case "cancel":
		return c.show(func(api *client.Client) (*http.Response, error) { return api.CancelJob(ctx, id) }, o, writeJob, stdout, stderr)
	case "result":
		return c.result(ctx, id, o.table, stdout, stderr)
	case "wait":
		return c.waitCommand(ctx, o, id, stdout, stderr)
	}
	return 2
}

// listCommand runs `xflex jobs list`, one page of jobs filtered by state
// and problem.
func (c *jobsClient) listCommand(ctx context.Context, o *jobsOptions, rest []string, stdout, stderr io.Writer) int {
	if len(rest) != 0 {
		fmt.Fprint(stderr, "usage: xflex jobs list [--state S] [--problem P] [--limit N] [--cursor C]\n")
		return 2
	}
	params := &client.ListJobsParams{}
	for _, f := range []struct {
		v   string
		dst **string
	}{{o.state, &params.State}, {o.problem, &params.Problem}, {o.cursor, &params.Cursor}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	if o.limit > 0 {
		limit := int64(o.limit)
		params.Limit = &limit
	}
	return c.show(func(api *client.Client) (*http.Response, error) { return api.ListJobs(ctx, params) }, o, writeJobList, stdout, stderr)
}

// buildSubmission reads the input (and variants) into a POST /v1/jobs
// body: the input's bytes as read, between an envelope's head and tail.
func buildSubmission(problem, file, variantsFile string, stdin io.Reader, stderr io.Writer) (payload, int) {
	input, code := readJSON(file, stdin, stderr)
	if code != 0 {
		return nil, code
	}
	head, err := json.Marshal(problem)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return nil, 2
	}
	head = append(append([]byte(`{"problem":`), head...), `,"input":`...)
	tail := []byte("}")
	if variantsFile != "" {
		raw, err := os.ReadFile(variantsFile)
		if err != nil {
			fmt.Fprintf(stderr, "xflex: %v\n", err)
			return nil, 2
		}
		vs, err := parseVariants(raw)
		if err == nil {
			tail, err = json.Marshal(vs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "xflex: %s: %v\n", variantsFile, err)
			return nil, 2
		}
		tail = append(append([]byte(`,"variants":`), tail...), '}')
	}
	return payload{head, input, tail}, 0
}

// readSubmission reads a whole POST /v1/jobs body from file ("-": stdin).
func readSubmission(file string, stdin io.Reader, stderr io.Writer) (payload, int) {
	body, code := readJSON(file, stdin, stderr)
	return payload{body}, code
}

// readJSON reads file ("-": stdin), refusing one that is not JSON.
func readJSON(file string, stdin io.Reader, stderr io.Writer) ([]byte, int) {
	input, err := readInput(file, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return nil, 2
	}
	if !json.Valid(input) { // json.Valid allocates nothing; the location is found only for a bad file
		var v json.RawMessage
		err := json.Unmarshal(input, &v)
		fmt.Fprintf(stderr, "xflex: %s is not valid JSON: %s\n", file, solver.MalformedAt(input, err).Detail)
		return nil, 2
	}
	return input, 0
}

// payload is a request body in parts, sent one after the other: a
// submission's input is sent from the buffer it was read into, never
// copied into a second one.
type payload [][]byte

func (p payload) reader() io.Reader {
	rs := make([]io.Reader, len(p))
	for i, b := range p {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

func (p payload) size() int64 {
	var n int64
	for _, b := range p {
		n += int64(len(b))
	}
	return n
}

// parseVariants accepts [{"name","patch",...}] or {"NAME": PATCH} (sorted
// by name for a deterministic order).
func parseVariants(raw []byte) ([]jobs.Variant, error) {
	var list []jobs.Variant
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New(`want [{"name": ..., "patch": {...}}] or {"NAME": PATCH}`)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		list = append(list, jobs.Variant{Name: n, Patch: m[n]})
	}
	return list, nil
}

// readInput reads file ("-": stdin) up to cliMaxBody bytes. A regular
// file is read into a buffer of its size, so it is held once.
func readInput(file string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	size := 0
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= cliMaxBody {
			size = int(fi.Size())
		}
		r = f
	}
	var buf bytes.Buffer
	buf.Grow(size + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, cliMaxBody+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if buf.Len() > cliMaxBody {
		return nil, fmt.Errorf("%s exceeds %d bytes", file, cliMaxBody)
	}
	return buf.Bytes(), nil
}

// Retries of a request whose answer was lost or refused for load: at most
// submitAttempts tries, waiting what the server's Retry-After names or
// else submitBackoff, then twice as long each time (0.25 s to 2 s, under
// 4 s in all), enough for a proxy or a replica to come back.
const (
	submitAttempts = 5
	submitBackoff  = 250 * time.Millisecond
	// retryMaxWait caps one wait: a server asking for longer gets its
	// answer printed instead.
	retryMaxWait = time.Minute
)

// api is the generated client (package client) of c.server: every request
// carries the token and client id and goes through client.Retrier, which
// resends a submission (with its Idempotency-Key) or a GET whose answer was
// lost, and any request refused with 429 or 503 after its Retry-After,
// saying so on stderr.
func (c *jobsClient) api(stderr io.Writer) (*client.Client, error) {
	retrier := &client.Retrier{Next: c.http,
		Policy: client.RetryPolicy{Attempts: submitAttempts, Backoff: submitBackoff, MaxWait: retryMaxWait},
		Notify: func(req *http.Request, attempt int, wait time.Duration, reason string) {
			what := "request"
			if req.Method == http.MethodPost {
				what = "submission"
			}
			fmt.Fprintf(stderr, "xflex: %s not answered (%s); retrying in %s with the same Idempotency-Key (attempt %d of %d)\n",
				what, reason, wait, attempt, submitAttempts)
		}}
	return client.NewClient(c.server, client.WithHTTPClient(retrier),
		client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			if c.client != "" {
				req.Header.Set("X-Client-Id", c.client)
			}
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			return nil
		}))
}

// submit posts a job with c.key through the generated client; the body
// is sent from its parts and, for a retry, again from them.
func (c *jobsClient) submit(ctx context.Context, body payload, stderr io.Writer) (int, []byte, int) {
	return c.call(stderr, func(api *client.Client) (*http.Response, error) {
		return api.SubmitJobWithBody(ctx, &client.SubmitJobParams{IdempotencyKey: &c.key}, "application/json", body.reader(),
			func(_ context.Context, req *http.Request) error {
				req.ContentLength = body.size()
				req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(body.reader()), nil }
				return nil
			})
	})
}

// call sends one request through the generated client; code is 3 when the
// server cannot be reached.
func (c *jobsClient) call(stderr io.Writer, send func(api *client.Client) (*http.Response, error)) (int, []byte, int) {
	api, err := c.api(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 0, nil, 2
	}
	resp, err := send(api)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: %v\n", err)
		return 0, nil, 3
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		fmt.Fprintf(stderr, "xflex: read response: %v\n", err)
		return 0, nil, 3
	}
	return resp.StatusCode, b, 0
}

// show sends a request and prints the answer with write (a job or a list:
// the server's JSON or a table, see wantJSON); an error document is
// printed as sent, with exit 1.
func (c *jobsClient) show(send func(api *client.Client) (*http.Response, error), o *jobsOptions,
	write func(w io.Writer, body []byte, table bool, now time.Time), stdout, stderr io.Writer) int {
	status, body, code := c.call(stderr, send)
	if code != 0 {
		return code
	}
	if status >= 400 {
		stdout.Write(body)
		return 1
	}
	write(stdout, body, !wantJSON(stdout, o.json), time.Now())
	return 0
}

// result prints a job's result: the stored body, or its table.
func (c *jobsClient) result(ctx context.Context, id string, table bool, stdout, stderr io.Writer) int {
	status, body, code := c.call(stderr, func(api *client.Client) (*http.Response, error) {
		return api.GetJobResult(ctx, id, &client.GetJobResultParams{})
	})
	if code != 0 {
		return code
	}
	if status != http.StatusOK {
		stdout.Write(body)
		return 1
	}
	if table {
		var cmp jobs.Comparison
		if err := json.Unmarshal(body, &cmp); err != nil || len(cmp.Rows) == 0 {
			fmt.Fprintln(stderr, "xflex: --table applies to scenario jobs; printing the result as is")
			stdout.Write(body)
			return 0
		}
		fmt.Fprint(stdout, cmp.Table())
		return 0
	}
	stdout.Write(body)
	return 0
}

// wait polls a job until it is terminal, showing its progress on d, and
// returns the final job body: exit 0 if it succeeded, 1 otherwise (also
// when it gave up after timeout, with the last body). Its messages reach
// stderr after d has finished, below the bar rather than over it.
func (c *jobsClient) wait(ctx context.Context, id string, timeout, interval time.Duration, d display, stderr io.Writer) ([]byte, int) {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var msgs bytes.Buffer
	body, code := c.poll(ctx, id, interval, d, &msgs)
	_, _ = msgs.WriteTo(stderr)
	return body, code
}

// quietWait is the ?wait= of a wait that shows no progress: the server
// answers when the job's state changes, so one request covers up to this
// long (the server cuts waits to 60 s; the client's timeout is 60 s).
const quietWait = 30 * time.Second

// poll is wait's loop; it finishes d before it returns. Each GET asks the
// server to hold its answer until the job's state changes (?wait=): for
// the poll interval while d shows progress, which the answer then
// carries, and for quietWait when d shows nothing. A server that answers
// at once (one from before ?wait=) is polled every interval as before.
func (c *jobsClient) poll(ctx context.Context, id string, interval time.Duration, d display, msgs io.Writer) ([]byte, int) {
	var last solveStatus
	defer func() { d.finish(last) }()
	hold := interval
	if d == (nopDisplay{}) {
		hold = quietWait
	}
	wait := hold.String()
	var body []byte
	for {
		sent := time.Now()
		status, b, code := c.call(msgs, func(api *client.Client) (*http.Response, error) {
			return api.GetJob(ctx, id, &client.GetJobParams{Wait: &wait})
		})
		switch {
		case code != 0 && ctx.Err() != nil:
			fmt.Fprintf(msgs, "xflex: gave up waiting for job %s: %v\n", id, ctx.Err())
			return body, 1
		case code != 0:
			return nil, code
		case status != http.StatusOK:
			return b, 1
		}
		body = b
		var j jobs.Job
		if err := json.Unmarshal(body, &j); err != nil {
			fmt.Fprintf(msgs, "xflex: decode job: %v\n", err)
			return body, 1
		}
		last = jobStatus(j, time.Now())
		if last.Done {
			return body, exitCode(last.OK)
		}
		d.update(last)
		select {
		case <-ctx.Done():
			fmt.Fprintf(msgs, "xflex: gave up waiting for job %s: %v\n", id, ctx.Err())
			return body, 1
		case <-time.After(interval - time.Since(sent)):
		}
	}
}

// exitCode is 0 for success, 1 for failure.
func exitCode(ok bool) int {
	if ok {
		return 0
	}
	return 1
}
