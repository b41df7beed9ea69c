package jobs

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// scrapeTimeout bounds the store query a /metrics scrape makes.
const scrapeTimeout = 5 * time.Second

// jobDurationBuckets are the job solve histogram's upper bounds in
// seconds: 10 ms doubling to about 23 min, past a one-minute budget's
// jobs and into long what-if solves.
var jobDurationBuckets = prometheus.ExponentialBuckets(0.01, 2, 18)

// metrics are the job service's series for the server's /metrics
// (Mount registers them on the API server's registry): the jobs in the
// store by state and kind (read from the store at scrape time, so every
// replica reports the shared queue), the durations of this replica's
// solves, its rescues of jobs whose worker died, and the memory its
// solves hold and wait for (memory.go).
type metrics struct {
	st       *store
	duration *prometheus.HistogramVec
	rescues  prometheus.Counter
	memory   prometheus.GaugeFunc
	memWaits prometheus.GaugeFunc
}

var jobsDesc = prometheus.NewDesc("xflex_jobs", "Jobs in the store by state and kind (solve: one solve or a scenario's variant; scenario: its parent).",
	[]string{"state", "kind"}, nil)

func newMetrics(st *store, mem *jobMemory) *metrics {
	return &metrics{
		st: st,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "xflex_job_duration_seconds",
			Help:    "Time this replica spent running job solves, from claim to outcome, by problem and the state they ended in.",
			Buckets: jobDurationBuckets}, []string{"problem", "state"}),
		rescues: prometheus.NewCounter(prometheus.CounterOpts{Name: "xflex_job_rescues_total",
			Help: "Running jobs this replica requeued because their worker stopped renewing its heartbeat (its process died)."}),
		memory: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "xflex_job_memory_reserved_bytes",
			Help: "Bytes of this replica's job memory budget (--job-memory-bytes) its running solves hold: their estimates."},
			func() float64 { return float64(mem.reserved.Load()) }),
		memWaits: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "xflex_job_memory_waiting",
			Help: "Running jobs of this replica waiting for their estimate of the job memory budget to free."},
			func() float64 { return float64(mem.waiting.Load()) }),
	}
}

func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	m.duration.Describe(ch)
	m.rescues.Describe(ch)
	m.memory.Describe(ch)
	m.memWaits.Describe(ch)
}

// Collect reports the counts by state (zero for a state without jobs, so
// a queue that empties reads 0, not absent); a store that cannot be read
// reports an invalid metric, which the exposition shows as an error.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.duration.Collect(ch)
	m.rescues.Collect(ch)
	m.memory.Collect(ch)
	m.memWaits.Collect(ch)
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	counts, err := m.st.countByState(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
		return
	}
	for _, st := range []State{StateQueued, StateRunning, StateSucceeded, StateFailed, StateCancelled} {
		for _, kind := range []string{kindSolve, kindScenario} {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(counts[[2]string{string(st), kind}]), string(st), kind)
		}
	}
}

// observeRun records one solve attempt that ran to an outcome.
func (m *metrics) observeRun(problem string, runErr error, userCancelled bool, took time.Duration) {
	st := StateSucceeded
	switch {
	case userCancelled:
		st = StateCancelled
	case runErr != nil:
		st = StateFailed
	}
	m.duration.WithLabelValues(problem, string(st)).Observe(took.Seconds())
}

// countByState counts the jobs by state and kind.
func (s *store) countByState(ctx context.Context) (map[[2]string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT state, kind, COUNT(*) FROM xflex_job GROUP BY state, kind`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]string]int64{}
	for rows.Next() {
		var st, kind string
		var n int64
		if err := rows.Scan(&st, &kind, &n); err != nil {
			return nil, err
		}
		out[[2]string{st, kind}] = n
	}
	return out, rows.Err()
}
