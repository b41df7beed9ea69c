package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver"
)

// Budget overrun slack: the README promises an answer within the budget
// plus max(100 ms, 10%); a solve whose meta.elapsed_ms passes that counts
// in xflex_budget_overruns_total. elapsed_ms runs from the request's
// arrival, so reading and validating a large body counts against it too:
// the counter errs towards reporting.
const (
	overrunSlackMin  = 100 * time.Millisecond
	overrunSlackFrac = 0.10
)

// latencyBuckets are the solve latency histogram's upper bounds in
// seconds: 5 ms doubling to 82 s, past the default --max-budget of 60 s.
var latencyBuckets = prometheus.ExponentialBuckets(0.005, 2, 15)

// metrics is the server's Prometheus registry and the series the HTTP
// layer keeps. The registry is the server's own, not the global default,
// so two servers in one process (tests) count apart; other packages add
// their collectors with Server.Metrics (jobs does).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	inFlight prometheus.Gauge
	refused  *prometheus.CounterVec
	solves   *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	overruns *prometheus.CounterVec
}

func newMetrics(adm *admission) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xflex_http_requests_total",
		Help: "HTTP requests by route pattern (unmatched: no route), method and status code."}, []string{"route", "method", "code"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "xflex_http_requests_in_flight",
		Help: "HTTP requests being served."})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xflex_http_refused_total",
		Help: "Requests refused for load: 503 (no memory or solve slot within --queue-wait) and 429 (a job quota), by route and code."},
		[]string{"route", "code"})
	m.solves = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xflex_solves_total",
		Help: "Synchronous solve requests (POST /v1/{problem}) by problem, status code and meta.status (empty for an error document)."},
		[]string{"problem", "code", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "xflex_solve_duration_seconds",
		Help: "Time from arrival to the answer of the synchronous solves that reached the solver, by problem.", Buckets: latencyBuckets},
		[]string{"problem"})
	m.overruns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xflex_budget_overruns_total",
		Help: "Answered solves whose meta.elapsed_ms exceeded budget_ms plus max(100 ms, 10%), by problem."}, []string{"problem"})
	m.reg.MustRegister(m.requests, m.inFlight, m.refused, m.solves, m.latency, m.overruns,
		admissionCollector{adm}, lpCollector{},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Metrics is the server's registry: other front ends on the same server
// (jobs) register their collectors there, and GET /metrics serves it.
func (s *Server) Metrics() prometheus.Registerer { return s.metrics.reg }

// serveMetrics is GET /metrics, the Prometheus text exposition (the admin
// scope on a server with tokens: authpolicy.go).
func (s *Server) serveMetrics() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// instrument counts every request by route, method and code, and the 503
// and 429 refusals apart (not /readyz's 503 while draining). The route is the pattern chi matched (known
// once the request was served), so ids in paths do not multiply series.
func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		code := strconv.Itoa(status)
		m.requests.WithLabelValues(route, methodLabel(r.Method), code).Inc()
		// /readyz answers 503 while draining: a state, not a refusal.
		if (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) && route != "/readyz" {
			m.refused.WithLabelValues(route, code).Inc()
		}
	})
}

// methodLabel is a request's method as a metrics label: the standard
// methods (RFC 9110, and PATCH) as they are, any other token "other", so
// `curl -X FOO` cannot make a new series for every name it invents.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// observeSolve records one synchronous solve request: its code and
// meta.status (resp nil: an error document), its latency when the solver
// ran, and a budget overrun.
func (m *metrics) observeSolve(problem string, status int, resp *solver.Response, ran bool, took time.Duration) {
	var st string
	if resp != nil {
		st = string(resp.Meta.Status)
	}
	m.solves.WithLabelValues(problem, strconv.Itoa(status), st).Inc()
	if ran {
		m.latency.WithLabelValues(problem).Observe(took.Seconds())
	}
	if resp != nil && overran(resp.Meta) {
		m.overruns.WithLabelValues(problem).Inc()
	}
}

// overran reports whether an answer took longer than its budget plus the
// documented slack.
func overran(meta solver.Meta) bool {
	budget := time.Duration(meta.BudgetMS) * time.Millisecond
	slack := max(overrunSlackMin, time.Duration(overrunSlackFrac*float64(budget)))
	return meta.ElapsedMS > float64((budget + slack).Milliseconds())
}

// admissionCollector reads the admission's state at scrape time.
type admissionCollector struct{ a *admission }

var (
	slotsDesc = prometheus.NewDesc("xflex_solve_slots", "Solve slots (--max-concurrent).", nil, nil)
	slotsUsed = prometheus.NewDesc("xflex_solve_slots_in_use", "Solve slots held by requests now.", nil, nil)
	bodyBytes = prometheus.NewDesc("xflex_inflight_body_bytes", "Bytes of request bodies read and held by requests in flight.", nil, nil)
	memBytes  = prometheus.NewDesc("xflex_inflight_reserved_bytes",
		"Memory reserved by requests in flight (10x their bodies) against --max-inflight-bytes.", nil, nil)
	memBudget = prometheus.NewDesc("xflex_inflight_budget_bytes", "The memory budget of requests in flight (--max-inflight-bytes).", nil, nil)
)

func (c admissionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- slotsDesc
	ch <- slotsUsed
	ch <- bodyBytes
	ch <- memBytes
	ch <- memBudget
}

func (c admissionCollector) Collect(ch chan<- prometheus.Metric) {
	body, reserved := c.a.inflightBytes()
	ch <- prometheus.MustNewConstMetric(slotsDesc, prometheus.GaugeValue, float64(c.a.slots.capacity))
	ch <- prometheus.MustNewConstMetric(slotsUsed, prometheus.GaugeValue, float64(c.a.slots.inUse()))
	ch <- prometheus.MustNewConstMetric(bodyBytes, prometheus.GaugeValue, float64(body))
	ch <- prometheus.MustNewConstMetric(memBytes, prometheus.GaugeValue, float64(reserved))
	ch <- prometheus.MustNewConstMetric(memBudget, prometheus.GaugeValue, float64(c.a.budget))
}

// lpCollector exposes package lp's process-wide counters (lp.ReadStats),
// which lp keeps without knowing of metrics.
type lpCollector struct{}

var (
	lpCalls     = prometheus.NewDesc("xflex_lp_calls_total", "LP/MIP solves by the backend that ran them (coin: CLP/CBC, native: pure Go).", []string{"backend"}, nil)
	lpFallbacks = prometheus.NewDesc("xflex_lp_fallbacks_total",
		"LP/MIP solves moved to the native backend: cbc_spread_guard (a MIP too badly scaled for CBC, which would abort), native_retry (coin returned no values).",
		[]string{"reason"}, nil)
)

func (lpCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- lpCalls
	ch <- lpFallbacks
}

func (lpCollector) Collect(ch chan<- prometheus.Metric) {
	st := lp.ReadStats()
	for _, b := range lp.Backends() {
		ch <- prometheus.MustNewConstMetric(lpCalls, prometheus.CounterValue, float64(st.Calls[b]), b)
	}
	ch <- prometheus.MustNewConstMetric(lpFallbacks, prometheus.CounterValue, float64(st.SpreadGuard), "cbc_spread_guard")
	ch <- prometheus.MustNewConstMetric(lpFallbacks, prometheus.CounterValue, float64(st.NativeRetries), "native_retry")
}
