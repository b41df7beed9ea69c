package jobs

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/xflex/xflex/httpapi"
)

// The submission limits, named in the problem type of their 429.
const (
	// limitTenantJobs: the tenant's jobs queued or running
	// (--job-tenant-running + --job-tenant-queue).
	limitTenantJobs = "too_many_jobs"
	// limitTenantBytes: the bytes the tenant's jobs keep in the store
	// (--job-tenant-bytes).
	limitTenantBytes = "tenant_bytes_quota"
	// limitQueue: every tenant's jobs queued or running (--job-queue).
	limitQueue = "queue_full"
)

// quotaRetry is the Retry-After of the job-count limits: a few seconds,
// in which queued jobs usually start and finish.
const quotaRetry = 5 * time.Second

// quotaError is a submission refused by one of the limits.
type quotaError struct {
	Limit  string
	Tenant string
	Max    int64
	// Used is the tenant's stored bytes with the submission (tenant bytes
	// only).
	Used int64
}

func (e *quotaError) Error() string {
	return fmt.Sprintf("job quota %s reached (tenant %s, limit %d)", e.Limit, e.Tenant, e.Max)
}

// detail says which limit was reached and the flag that sets it.
func (e *quotaError) detail(cfg Config) string {
	switch e.Limit {
	case limitTenantJobs:
		return fmt.Sprintf("tenant %s already has %d jobs queued or running, its limit (--job-tenant-running %d + --job-tenant-queue %d); wait for some to finish",
			e.Tenant, e.Max, cfg.MaxRunningPerClient, cfg.MaxQueuedPerClient)
	case limitTenantBytes:
		return fmt.Sprintf("tenant %s's jobs would keep %d bytes in the store, over its limit of %d (--job-tenant-bytes); finished jobs free theirs when their retention ends",
			e.Tenant, e.Used, e.Max)
	default:
		return fmt.Sprintf("the server already has %d jobs queued or running across all tenants, its limit (--job-queue); wait for some to finish", e.Max)
	}
}

// writeQuota answers a refused submission: 429, Retry-After and a
// problem document typed by the limit.
func (h *handlers) writeQuota(w http.ResponseWriter, r *http.Request, e *quotaError) {
	retry := quotaRetry
	if e.Limit == limitTenantBytes {
		retry = h.svc.bytesRetry(r, e.Tenant)
	}
	w.Header().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(retry.Seconds())), 10))
	httpapi.SimpleProblem(w, r, http.StatusTooManyRequests, e.Limit, "Job quota reached", e.detail(h.svc.cfg))
}

// bytesRetry is how long a tenant over its byte quota waits for bytes to
// be freed: until its first finished job expires (at least a second), or
// a whole retention when none has finished.
func (s *Service) bytesRetry(r *http.Request, tenant string) time.Duration {
	next, err := s.st.nextExpiry(r.Context(), tenant)
	if err != nil || next == nil {
		return s.cfg.Retention
	}
	return max(next.Sub(s.now()), time.Second)
}
