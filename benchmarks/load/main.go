// Command load is the load harness of issue 15: N concurrent clients POST
// the same large body to a running `xflex serve` for a fixed time, while
// the server's resident memory is sampled from /proc. It prints one
// markdown table row (clients, successful solves per second, status
// histogram, peak and after-burst RSS) for benchmarks/load/RESULTS.md.
//
//	go run ./benchmarks/load -addr 127.0.0.1:8080 -pid $(pidof xflex) \
//	    -path /v1/tetris/assign -body big.json -clients 100 -duration 30s
//
// Clients send the body with its Content-Length and, by default,
// "Expect: 100-continue" (as curl does for bodies over 1 MiB), so a server
// that refuses before reading is spared the upload. A 503's Retry-After is
// honoured (capped by the time left) unless -ignore-retry-after is given,
// in which case the client retries at once.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// config is the harness's flags.
type config struct {
	url              string
	body             []byte
	clients          int
	duration         time.Duration
	pid              int
	settle           time.Duration
	expectContinue   bool
	ignoreRetryAfter bool
}

// result is what one run measured.
type result struct {
	clients   int
	duration  time.Duration
	statuses  map[int]int
	errors    map[string]int
	ok        int
	latencies []time.Duration // of the 200s
	peakRSS   int64           // bytes, highest sampled VmRSS
	hwm       int64           // VmHWM at the end of the run
	afterRSS  int64           // VmRSS after settle
}

func main() {
	var c config
	var addr, path, bodyFile string
	flag.StringVar(&addr, "addr", "127.0.0.1:8080", "server HOST:PORT")
	flag.StringVar(&path, "path", "/v1/tetris/assign", "endpoint to POST to")
	flag.StringVar(&bodyFile, "body", "", "request body file (JSON)")
	flag.IntVar(&c.clients, "clients", 8, "concurrent clients")
	flag.DurationVar(&c.duration, "duration", 30*time.Second, "how long the clients send")
	flag.IntVar(&c.pid, "pid", 0, "server process id, for /proc/PID/status (0: no memory figures)")
	flag.DurationVar(&c.settle, "settle", 5*time.Second, "idle time after the run before VmRSS is read again")
	flag.BoolVar(&c.expectContinue, "expect-continue", true, `send "Expect: 100-continue"`)
	flag.BoolVar(&c.ignoreRetryAfter, "ignore-retry-after", false, "retry a 503 at once instead of after Retry-After")
	flag.Parse()
	b, err := os.ReadFile(bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	c.url, c.body = "http://"+addr+path, b
	res := run(context.Background(), c)
	fmt.Println(res.row())
}

// run drives the clients for c.duration and samples the server's memory.
func run(ctx context.Context, c config) result {
	res := result{clients: c.clients, duration: c.duration, statuses: map[int]int{}, errors: map[string]int{}}
	tr := &http.Transport{MaxIdleConnsPerHost: c.clients, ExpectContinueTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	stopSampling := sampleRSS(c.pid, &res.peakRSS)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < c.clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				status, lat, wait, err := post(ctx, client, c)
				if ctx.Err() != nil {
					return // cut off by the end of the run: not counted
				}
				mu.Lock()
				if err != nil {
					res.errors[errClass(err)]++
				} else {
					res.statuses[status]++
				}
				if status == http.StatusOK {
					res.ok++
					res.latencies = append(res.latencies, lat)
				}
				mu.Unlock()
				if status == http.StatusServiceUnavailable && !c.ignoreRetryAfter {
					select {
					case <-ctx.Done():
					case <-time.After(wait):
					}
				}
			}
		}()
	}
	wg.Wait()
	stopSampling()
	res.hwm = procStatus(c.pid, "VmHWM")
	time.Sleep(c.settle)
	res.afterRSS = procStatus(c.pid, "VmRSS")
	return res
}

// post sends one request and reads the whole answer; wait is the 503's
// Retry-After.
func post(ctx context.Context, client *http.Client, c config) (status int, lat, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return 0, 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.expectContinue {
		req.Header.Set("Expect", "100-continue")
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, 0, err
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		wait = time.Duration(s) * time.Second
	}
	return resp.StatusCode, time.Since(start), wait, nil
}

// errClass shortens a transport error to its kind for the histogram.
func errClass(err error) string {
	s := err.Error()
	for _, k := range []string{"connection reset", "broken pipe", "EOF", "timeout", "refused"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline"
	}
	return s
}

// sampleRSS records the highest VmRSS of pid every 50 ms until stopped.
func sampleRSS(pid int, peak *int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			*peak = max(*peak, procStatus(pid, "VmRSS"))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// procStatus reads one "Key: N kB" line of /proc/PID/status, in bytes; 0
// when pid is 0 or the line is missing.
func procStatus(pid int, key string) int64 {
	if pid == 0 {
		return 0
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// row formats the result as a markdown table row: clients, OK/s, p50 and
// p99 latency of the 200s, statuses, transport errors, peak VmRSS, VmHWM,
// VmRSS after settling (MiB).
func (r result) row() string {
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })
	q := func(p float64) string {
		if len(r.latencies) == 0 {
			return "-"
		}
		return r.latencies[int(p*float64(len(r.latencies)-1))].Round(time.Millisecond).String()
	}
	mib := func(b int64) string { return strconv.FormatInt(b>>20, 10) }
	return fmt.Sprintf("| %d | %.2f | %s | %s | %s | %s | %s | %s | %s |", r.clients,
		float64(r.ok)/r.duration.Seconds(), q(0.5), q(0.99), histogram(r.statuses), histogram(r.errors),
		mib(r.peakRSS), mib(r.hwm), mib(r.afterRSS))
}

// histogram prints "k:n" pairs sorted by key.
func histogram[K int | string](m map[K]int) string {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%v:%d", k, m[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
