package httpapi

import (
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/xflex/xflex/solver"
)

// scrape GETs /metrics with an optional Authorization header and parses
// the exposition.
func scrape(t *testing.T, h http.Handler, authorization string) map[string]*dto.MetricFamily {
	t.Helper()
	rec := sendAuth(h, http.MethodGet, "/metrics", authorization)
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return fams
}

// series finds the value of the series of family name whose labels
// include want (counter, gauge or a histogram's count); ok false when
// there is none.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsAfterRequests: after a few solves, refusals and other
// requests, /metrics holds exactly those counts in the right series.
func TestMetricsAfterRequests(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond})
	hd := h.srv.Handler()
	for _, body := range []string{`{"mode":"ok","n":1}`, `{"mode":"ok","n":2}`, `{"mode":"infeasible"}`, `{"mode":`} {
		post(t, hd, "/v1/selftest", "application/json", body)
	}
	post(t, hd, "/v1/selftest", "text/plain", `{}`) // 415, never reaches the solver
	sendAuth(hd, http.MethodGet, "/healthz", "")
	sendAuth(hd, http.MethodGet, "/v1/nope", "")

	// Hold the only slot so the next request is refused with 503.
	done := make(chan struct{})
	go func() {
		defer close(done)
		post(t, hd, "/v1/selftest", "application/json", `{"mode":"block"}`)
	}()
	<-h.started
	if rec := post(t, hd, "/v1/selftest", "application/json", `{"mode":"ok"}`); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("want 503, got %d", rec.Code)
	}
	fams := scrape(t, hd, "")
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"xflex_solves_total", map[string]string{"problem": "selftest", "code": "200", "status": "optimal"}, 2},
		{"xflex_solves_total", map[string]string{"problem": "selftest", "code": "422", "status": ""}, 1},
		{"xflex_solves_total", map[string]string{"problem": "selftest", "code": "400", "status": ""}, 1},
		{"xflex_solves_total", map[string]string{"problem": "selftest", "code": "415", "status": ""}, 1},
		{"xflex_solves_total", map[string]string{"problem": "selftest", "code": "503", "status": ""}, 1},
		{"xflex_solve_duration_seconds", map[string]string{"problem": "selftest"}, 4}, // 415 and 503 never ran
		{"xflex_http_requests_total", map[string]string{"route": "/v1/selftest", "method": "POST", "code": "200"}, 2},
		{"xflex_http_requests_total", map[string]string{"route": "/healthz", "method": "GET", "code": "200"}, 1},
		{"xflex_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "code": "404"}, 1},
		{"xflex_http_refused_total", map[string]string{"route": "/v1/selftest", "code": "503"}, 1},
		{"xflex_solve_slots", nil, 1},
		{"xflex_solve_slots_in_use", nil, 1},
		{"xflex_inflight_body_bytes", nil, float64(len(`{"mode":"block"}`))},
		{"xflex_inflight_reserved_bytes", nil, float64(MemoryPerBodyByte * len(`{"mode":"block"}`))},
		{"xflex_http_requests_in_flight", nil, 2}, // the blocked solve and this scrape
		{"xflex_budget_overruns_total", map[string]string{"problem": "selftest"}, 0},
	} {
		got, ok := series(fams, tc.name, tc.labels)
		if tc.want == 0 && !ok {
			continue // a counter never incremented has no series
		}
		if !ok || got != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	for _, name := range []string{"xflex_lp_calls_total", "xflex_lp_fallbacks_total", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("no %s in the exposition", name)
		}
	}
	close(h.release)
	<-done
	fams = scrape(t, hd, "")
	if got, _ := series(fams, "xflex_solve_slots_in_use", nil); got != 0 {
		t.Errorf("slots in use after the solve: %v", got)
	}
	if got, _ := series(fams, "xflex_inflight_body_bytes", nil); got != 0 {
		t.Errorf("body bytes after the solve: %v", got)
	}
	// Draining, /readyz answers 503: a state, not a refusal.
	h.srv.SetDraining()
	if rec := sendAuth(hd, http.MethodGet, "/readyz", ""); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz draining: %d", rec.Code)
	}
	if n, ok := series(scrape(t, hd, ""), "xflex_http_refused_total", map[string]string{"route": "/readyz"}); ok {
		t.Errorf("draining /readyz counted as %v refusals", n)
	}
}

// TestMetricsRegistryPerServer: two servers in one process count apart
// (each owns its registry).
func TestMetricsRegistryPerServer(t *testing.T) {
	a, b := newHarness(t, Config{}), newHarness(t, Config{})
	post(t, a.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"ok"}`)
	if _, ok := series(scrape(t, b.srv.Handler(), ""), "xflex_solves_total", nil); ok {
		t.Error("a solve on one server shows in another's metrics")
	}
}

func TestOverran(t *testing.T) {
	for _, tc := range []struct {
		budget  int64
		elapsed float64
		want    bool
	}{
		{100, 200, false}, // 100 ms slack
		{100, 201, true},
		{2000, 2200, false}, // 10% slack
		{2000, 2201, true},
		{500, 599, false},
	} {
		if got := overran(solver.Meta{BudgetMS: tc.budget, ElapsedMS: tc.elapsed}); got != tc.want {
			t.Errorf("budget %d elapsed %v: %v", tc.budget, tc.elapsed, got)
		}
	}
}

// TestMetricsCountOverrun: an answer past its budget and slack counts.
func TestMetricsCountOverrun(t *testing.T) {
	m := newMetrics(newAdmission(Config{}.withDefaults()))
	m.observeSolve("p", 200, &solver.Response{Meta: solver.Meta{Status: solver.StatusTimeout, BudgetMS: 100, ElapsedMS: 450}}, true, 0)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	if got, _ := series(byName, "xflex_budget_overruns_total", map[string]string{"problem": "p"}); got != 1 {
		t.Errorf("overruns %v, want 1", got)
	}
	if got, _ := series(byName, "xflex_solves_total", map[string]string{"status": "timeout"}); got != 1 {
		t.Errorf("solves %v", got)
	}
}

// TestMetricsMethodBounded: methods outside the standard ones count as
// "other", so invented methods cannot grow the series without bound.
func TestMetricsMethodBounded(t *testing.T) {
	h := newHarness(t, Config{})
	for _, m := range []string{"FOO", "BAR", "BAZ"} {
		sendAuth(h.srv.Handler(), m, "/healthz", "")
	}
	sendAuth(h.srv.Handler(), http.MethodGet, "/healthz", "")
	fams := scrape(t, h.srv.Handler(), "")
	if v, ok := series(fams, "xflex_http_requests_total", map[string]string{"method": "other"}); !ok || v != 3 {
		t.Errorf("method other: %v %v, want 3", v, ok)
	}
	for _, m := range []string{"FOO", "BAR", "BAZ"} {
		if _, ok := series(fams, "xflex_http_requests_total", map[string]string{"method": m}); ok {
			t.Errorf("a series with method %s", m)
		}
	}
	if v, ok := series(fams, "xflex_http_requests_total", map[string]string{"method": "GET", "route": "/healthz"}); !ok || v != 1 {
		t.Errorf("method GET: %v %v", v, ok)
	}
}
