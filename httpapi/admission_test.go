package httpapi

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// spyBody is a request body that records whether it was read.
type spyBody struct {
	r    io.Reader
	read atomic.Bool
}

func (b *spyBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	return b.r.Read(p)
}

// slowReader waits before its first read.
type slowReader struct {
	r     io.Reader
	delay time.Duration
	once  sync.Once
}

func (s *slowReader) Read(p []byte) (int, error) {
	s.once.Do(func() { time.Sleep(s.delay) })
	return s.r.Read(p)
}

// padded is a selftest request of mode padded with spaces to n bytes.
func padded(mode string, n int) string {
	s := `{"mode":"` + mode + `"}`
	return s[:len(s)-1] + strings.Repeat(" ", n-len(s)) + "}"
}

// postBody sends body with the given Content-Length (-1: chunked) and
// returns the answer and whether the body was read.
func postBody(h http.Handler, body string, contentLength int64) (*httptest.ResponseRecorder, bool) {
	spy := &spyBody{r: strings.NewReader(body)}
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", spy)
	req.ContentLength = contentLength
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, spy.read.Load()
}

// blockOne starts a blocking solve with a body of n bytes and waits until
// it runs; the returned function releases it and waits for its answer.
func blockOne(t *testing.T, h *harness, n int) (finish func() int) {
	t.Helper()
	var wg sync.WaitGroup
	var code int
	wg.Add(1)
	go func() {
		defer wg.Done()
		rec, _ := postBody(h.srv.Handler(), padded("block", n), int64(n))
		code = rec.Code
	}()
	<-h.started
	return func() int {
		close(h.release)
		wg.Wait()
		return code
	}
}

func want503(t *testing.T, rec *httptest.ResponseRecorder, read bool) {
	t.Helper()
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("got %d (Retry-After %q), want 503 with Retry-After: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if read {
		t.Fatal("the refused request's body was read")
	}
	decodeProblem(t, rec)
}

// TestWaitingRequestHoldsNoBody: while the only solve slot is busy, the
// requests that buffer their bodies to wait for it are bounded by the
// memory budget; one beyond it waits without its body being read, and is
// refused with 503 (issue 15: 100 waiting requests held 3 GB of bodies).
func TestWaitingRequestHoldsNoBody(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond, MaxInflightBytes: 150 * MemoryPerBodyByte})
	finish := blockOne(t, h, 100)
	rec, read := postBody(h.srv.Handler(), padded("ok", 100), 100)
	want503(t, rec, read)
	if code := finish(); code != 200 {
		t.Fatalf("blocked solve: %d", code)
	}
}

// TestMemoryBudget: with free solve slots, a request whose body would
// take more than the memory left in MaxInflightBytes waits and gets 503
// without being read; a smaller one is admitted; once memory is returned
// the large one is too.
func TestMemoryBudget(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 4, QueueWait: 20 * time.Millisecond, MaxInflightBytes: 1000 * MemoryPerBodyByte})
	finish := blockOne(t, h, 600)
	rec, read := postBody(h.srv.Handler(), padded("ok", 600), 600)
	want503(t, rec, read)
	if rec, _ := postBody(h.srv.Handler(), padded("ok", 300), 300); rec.Code != 200 {
		t.Fatalf("a body that fits the memory left: %d %s", rec.Code, rec.Body)
	}
	if code := finish(); code != 200 {
		t.Fatalf("blocked solve: %d", code)
	}
	if rec, _ := postBody(h.srv.Handler(), padded("ok", 600), 600); rec.Code != 200 {
		t.Fatalf("memory not returned: %d %s", rec.Code, rec.Body)
	}
	// A body larger than the whole budget still runs, alone.
	if rec, _ := postBody(h.srv.Handler(), padded("ok", 1001), 1001); rec.Code != 200 {
		t.Fatalf("a body over the whole budget: %d %s", rec.Code, rec.Body)
	}
}

// TestChunkedBodyReservesAsRead: a body without Content-Length reserves
// memory in steps as it is read, so it too gets 503 when the budget is
// taken, and 413 beyond MaxBodyBytes.
func TestChunkedBodyReservesAsRead(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 4, QueueWait: 20 * time.Millisecond,
		MaxInflightBytes: 3 * chunkedStep * MemoryPerBodyByte / 2})
	finish := blockOne(t, h, chunkedStep)
	rec, _ := postBody(h.srv.Handler(), `{"mode":"ok"}`, -1)
	want503(t, rec, false)
	if code := finish(); code != 200 {
		t.Fatalf("blocked solve: %d", code)
	}
	if rec, _ := postBody(h.srv.Handler(), `{"mode":"ok"}`, -1); rec.Code != 200 {
		t.Fatalf("chunked body with memory free: %d %s", rec.Code, rec.Body)
	}
	// Memory free after the queue wait is still taken: a chunked body
	// that takes longer than QueueWait to arrive is read.
	slow := &slowReader{r: strings.NewReader(padded("ok", 3*chunkedStep)), delay: 50 * time.Millisecond}
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", slow)
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("chunked body arriving after the queue wait: %d %s", rec.Code, rec.Body)
	}
	big := padded("ok", 16<<20+chunkedStep)
	if rec, _ := postBody(h.srv.Handler(), big, -1); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked body over MaxBodyBytes: %d", rec.Code)
	}
}

// fakeClock is a settable clock for the admission's hold times.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestRetryAfterFollowsSolveTimes: after a solve that held its slot 2.5 s,
// a refused request is told to come back in 3 s, not 1 (issue 15), and
// later still when requests are waiting; the figure stays within 1..60.
func TestRetryAfterFollowsSolveTimes(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond})
	clock := &fakeClock{now: time.Now()}
	h.srv.adm.now = clock.Now
	if got := h.srv.adm.retryAfter(); got != "1" {
		t.Fatalf("before any solve: Retry-After %s, want 1", got)
	}
	finish := blockOne(t, h, 100)
	clock.Advance(2500 * time.Millisecond)
	if code := finish(); code != 200 {
		t.Fatalf("blocked solve: %d", code)
	}
	slots := h.srv.adm.slots
	if _, ok := slots.enqueue("other", 1); !ok { // a solve in progress
		t.Fatal("the free slot was not granted")
	}
	rec, _ := postBody(h.srv.Handler(), `{"mode":"ok"}`, 13)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "3" {
		t.Fatalf("got %d with Retry-After %q, want 503 with 3", rec.Code, rec.Header().Get("Retry-After"))
	}
	var queued []*waiter
	wait := func(n int) {
		for range n {
			w, _ := slots.enqueue("other", 1)
			queued = append(queued, w)
		}
	}
	wait(4) // four requests ahead, one slot: five turns of 2.5 s
	if got := h.srv.adm.retryAfter(); got != "13" {
		t.Errorf("with 4 waiting: Retry-After %s, want 13", got)
	}
	wait(100)
	if got := h.srv.adm.retryAfter(); got != "60" {
		t.Errorf("with 104 waiting: Retry-After %s, want the cap 60", got)
	}
	for _, w := range queued {
		slots.cancel(w)
	}
	slots.release("other", 1)
}

// TestMemoryReturnedAfterBurst: once no request holds memory after a
// burst of at least half the budget, memory is returned to the OS, at
// most once per freeInterval.
func TestMemoryReturnedAfterBurst(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 2, MaxInflightBytes: 1000 * MemoryPerBodyByte})
	clock := &fakeClock{now: time.Now()}
	var calls atomic.Int32
	freed := make(chan struct{}, 8)
	h.srv.adm.now = clock.Now
	h.srv.adm.freeOSMem = func() { calls.Add(1); freed <- struct{}{} }
	waitFreed := func() {
		t.Helper()
		select {
		case <-freed:
		case <-time.After(10 * time.Second):
			t.Fatal("memory was not returned after a burst")
		}
	}
	ok := func(n int) {
		t.Helper()
		if rec, _ := postBody(h.srv.Handler(), padded("ok", n), int64(n)); rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	ok(600)
	waitFreed()
	clock.Advance(freeInterval)
	ok(100) // after freeInterval, but not a burst
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("memory returned %d times after a small request, want 1", n)
	}
	ok(600) // with the small one, a burst
	waitFreed()
	ok(600) // a burst again, but within freeInterval of the last return
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 2 {
		t.Fatalf("memory returned %d times within freeInterval, want 2", n)
	}
}

// TestTricklingClientIsCutOff: a client that sends part of its body and
// stalls gets 408 (or, on a route that never reads the body, a closed
// connection) after ReadBodyTimeout, instead of holding the connection
// forever (issue 15: 30 of 30 still open after 45 s).
func TestTricklingClientIsCutOff(t *testing.T) {
	h := newHarness(t, Config{ReadBodyTimeout: 100 * time.Millisecond})
	srv := httptest.NewServer(h.srv.Handler())
	defer srv.Close()
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"solve", "POST /v1/selftest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"mode\":", 408},
		{"route without body", "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789", 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// Bounds the test, not a timing assertion: without the
			// deadlines the server never answers or closes.
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.WriteString(conn, c.request); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d", resp.StatusCode, c.status)
			}
			if _, err := io.Copy(io.Discard, conn); err != nil {
				t.Fatalf("connection not closed: %v", err)
			}
		})
	}
}

// TestNonReadingClientIsCutOff: writing a response to a client that does
// not read it fails after WriteTimeout instead of blocking forever.
func TestNonReadingClientIsCutOff(t *testing.T) {
	errc := make(chan error, 1)
	big := make([]byte, 1<<20)
	handler := deadlines(time.Second, 100*time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 1024; i++ {
			if _, err := w.Write(big); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}))
	srv := httptest.NewServer(handler)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("1 GiB written to a client that reads nothing")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the write to a client that reads nothing never ended")
	}
}

// padTo pads a JSON object with spaces to n bytes.
func padTo(obj string, n int) string {
	return obj[:len(obj)-1] + strings.Repeat(" ", n-len(obj)) + "}"
}

// postAs is postBody for a request of tenant's, as the auth middleware
// would mark it; it returns the status.
func postAs(h *harness, tenant, body string) int {
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(body))
	req = req.WithContext(WithPrincipal(req.Context(), Principal{Tenant: tenant, Scopes: AllScopes}))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// waitUntil waits until cond holds: a sequencing wait for requests to
// reach a queue, bounded by the test's timeout, not a timing assertion.
func waitUntil(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

// tenantLoad sends requests as tenants in the background and collects
// their statuses.
type tenantLoad struct {
	h     *harness
	wg    sync.WaitGroup
	mu    sync.Mutex
	codes map[string][]int
}

func (l *tenantLoad) send(tenant, body string) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		code := postAs(l.h, tenant, body)
		l.mu.Lock()
		l.codes[tenant] = append(l.codes[tenant], code)
		l.mu.Unlock()
	}()
}

// allAdmitted waits for every request and checks each was admitted and
// solved (200, or 422 if a loaded machine ran its budget out while it
// was blocked or queued), none refused, and that no slot or memory is
// left held.
func (l *tenantLoad) allAdmitted(t *testing.T) {
	t.Helper()
	l.wg.Wait()
	for tenant, codes := range l.codes {
		for _, c := range codes {
			if c != http.StatusOK && c != http.StatusUnprocessableEntity {
				t.Errorf("tenant %s: status %d, want every request admitted", tenant, c)
			}
		}
	}
	if s, m := l.h.srv.adm.slots.inUse(), l.h.srv.adm.memory.inUse(); s != 0 || m != 0 {
		t.Errorf("after every answer %d slots and %d bytes still held", s, m)
	}
}

// TestSlotGoesToOtherTenant (issue 16): tenant A holds both solve slots
// and has 20 requests queued for them; tenant B's request gets the next
// slot that frees, not the one after A's 20 (it would wait out the
// queue wait and get 503).
func TestSlotGoesToOtherTenant(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 2, QueueWait: 10 * time.Second})
	l := &tenantLoad{h: h, codes: map[string][]int{}}
	slots := h.srv.adm.slots
	for range 2 {
		l.send("A", `{"mode":"block","budget_ms":5000}`)
		<-h.started
	}
	for range 20 {
		l.send("A", `{"mode":"block","budget_ms":5000}`)
	}
	waitUntil(func() bool { return slots.waiting() == 20 })
	done := make(chan int)
	go func() { done <- postAs(h, "B", `{"mode":"ok","budget_ms":5000}`) }()
	waitUntil(func() bool { return slots.waiting() == 21 })
	h.release <- struct{}{} // one of A's solves ends
	if code := <-done; code != http.StatusOK {
		t.Fatalf("B's request: %d, want 200 after one of A's solves", code)
	}
	close(h.release)
	for range 20 { // A's queued solves start (and end at once)
		<-h.started
	}
	l.allAdmitted(t)
}

// TestMemoryGoesToOtherTenant (issue 16): tenant A's large bodies hold
// the whole memory budget (one solving, two queued for the one slot) and
// five more wait for memory; tenant B's request gets the next memory
// that frees and then a slot before those five, so it is answered after
// two of A's solves (and a quick one queued before it) instead of
// getting 503 behind A's queue.
func TestMemoryGoesToOtherTenant(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1, QueueWait: 10 * time.Second, MaxInflightBytes: 3000 * MemoryPerBodyByte})
	l := &tenantLoad{h: h, codes: map[string][]int{}}
	slots, memory := h.srv.adm.slots, h.srv.adm.memory
	// Budgets long enough for the queueing, whatever the machine's load.
	block := padTo(`{"mode":"block","budget_ms":5000}`, 1000)
	l.send("A", block)
	<-h.started
	l.send("A", block)
	l.send("A", padTo(`{"mode":"ok","budget_ms":5000}`, 1000))
	waitUntil(func() bool { return slots.waiting() == 2 })
	for range 5 {
		l.send("A", block)
	}
	waitUntil(func() bool { return memory.waiting() == 5 })
	done := make(chan int)
	go func() { done <- postAs(h, "B", padTo(`{"mode":"ok","budget_ms":5000}`, 1000)) }()
	waitUntil(func() bool { return memory.waiting() == 6 })
	h.release <- struct{}{} // A's first solve ends: its memory goes to B
	<-h.started             // A's second solve starts; B queues for the slot
	h.release <- struct{}{} // it ends: the slot goes to B
	if code := <-done; code != http.StatusOK {
		t.Fatalf("B's request: %d, want 200 after two of A's solves", code)
	}
	close(h.release)
	for range 5 { // A's solves queued for memory start (and end at once)
		<-h.started
	}
	l.allAdmitted(t)
}

// TestSlotCapPerTenant: with MaxConcurrentPerTenant 1 and two slots, a
// tenant's second request waits for its first (and gets 503 when the
// queue wait runs out first) while another tenant's is served at once.
func TestSlotCapPerTenant(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 2, MaxConcurrentPerTenant: 1, QueueWait: 20 * time.Millisecond})
	l := &tenantLoad{h: h, codes: map[string][]int{}}
	l.send("A", `{"mode":"block"}`)
	<-h.started
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"ok"}`))
	req = req.WithContext(WithPrincipal(req.Context(), Principal{Tenant: "A"}))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	want503(t, rec, false)
	if p := decodeProblem(t, rec); !strings.Contains(p.Detail, "the 1 one tenant may hold") {
		t.Errorf("503 detail does not name the per-tenant cap: %s", p.Detail)
	}
	if code := postAs(h, "B", `{"mode":"ok"}`); code != http.StatusOK {
		t.Fatalf("B's request: %d, want 200 (a slot is free)", code)
	}
	close(h.release)
	l.allAdmitted(t)
}

// TestWithoutTenantsUnchanged: without auth every request is `local`, and
// a lone tenant may use every slot (work-conserving).
func TestWithoutTenantsUnchanged(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 3, QueueWait: 30 * time.Second})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rec, _ := postBody(h.srv.Handler(), `{"mode":"block"}`, 16); rec.Code != http.StatusOK {
				t.Errorf("status %d", rec.Code)
			}
		}()
		<-h.started
	}
	if n := h.srv.adm.slots.inUse(); n != 3 {
		t.Fatalf("%d slots in use, want all 3 for the one tenant", n)
	}
	close(h.release)
	wg.Wait()
}
