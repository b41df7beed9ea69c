package jobs

import (
	"bytes"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// gauge is the value of family name's series with the given labels.
func gaugeOf(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
next:
	for _, m := range fams[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		if m.Histogram != nil {
			return float64(m.Histogram.GetSampleCount()), true
		}
		return m.GetGauge().GetValue() + m.GetCounter().GetValue(), true
	}
	return 0, false
}

// TestJobMetrics: after a job succeeds and one fails, /metrics counts
// them by state in the store and their solves' durations by outcome.
func TestJobMetrics(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		ok := h.submit(job(sleepInput(1, 2)))
		bad := h.submit(job(sleepInput(1, 2, "fail", "true")))
		h.waitTerminal(ok)
		h.waitTerminal(bad)
		fams := h.scrape()
		for _, tc := range []struct {
			name   string
			labels map[string]string
			want   float64
		}{
			{"xflex_jobs", map[string]string{"state": "succeeded", "kind": "solve"}, 1},
			{"xflex_jobs", map[string]string{"state": "failed", "kind": "solve"}, 1},
			{"xflex_jobs", map[string]string{"state": "queued", "kind": "solve"}, 0},
			{"xflex_job_duration_seconds", map[string]string{"problem": "test/sleep", "state": "succeeded"}, 1},
			{"xflex_job_duration_seconds", map[string]string{"problem": "test/sleep", "state": "failed"}, 1},
			{"xflex_job_rescues_total", nil, 0},
		} {
			if got, present := gaugeOf(fams, tc.name, tc.labels); !present || got != tc.want {
				t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, present, tc.want)
			}
		}
	})
}

// scrape GETs /metrics and parses the exposition.
func (h *harness) scrape() map[string]*dto.MetricFamily {
	h.t.Helper()
	r := h.do("GET", "/metrics", nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("/metrics: %d %s", r.status, r.body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		h.t.Fatal(err)
	}
	return fams
}
