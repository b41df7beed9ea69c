package client

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how often and how long a request refused for load is
// retried.
type RetryPolicy struct {
	// Attempts is the most tries of one request, the first included
	// (1: never retry).
	Attempts int
	// Backoff is the first wait when the server names none (no
	// Retry-After, or a lost answer); each later one is twice the last.
	Backoff time.Duration
	// MaxWait caps one wait, a Retry-After's included: a server asking
	// for longer gets its answer returned instead of waited for.
	MaxWait time.Duration
}

// DefaultRetry is 5 tries, backing off from 250 ms, waiting at most 30 s
// at a time.
var DefaultRetry = RetryPolicy{Attempts: 5, Backoff: 250 * time.Millisecond, MaxWait: 30 * time.Second}

// Retrier is an HttpRequestDoer that retries, with the same body, a
// request the server refused for load (429 and 503, after the seconds
// its Retry-After names) and one whose answer was lost (a connection
// error, or a proxy's 502 or 504) when resending it is safe: a GET,
// HEAD or DELETE, a request with an Idempotency-Key (the server answers
// the job it already took), or a solve (POST /v1/{problem} is a pure
// function of its body). A 429 (a quota) means nothing was done, so it is
// retried whatever the method; a 503 may come from a proxy whose upstream
// died mid-request, so it is retried only when resending is safe. A
// request whose body cannot be read again (no GetBody) is sent once.
type Retrier struct {
	Next   HttpRequestDoer
	Policy RetryPolicy
	// Notify, when set, is told of each retry before its wait: why
	// (an HTTP status or the error) and how long.
	Notify func(req *http.Request, attempt int, wait time.Duration, reason string)
	// sleep waits d or until the request's context ends (tests replace it).
	sleep func(req *http.Request, d time.Duration) error
}

// Do sends req, retrying as the type's comment says.
func (r *Retrier) Do(req *http.Request) (*http.Response, error) {
	p := r.Policy
	if p.Attempts <= 0 {
		p = DefaultRetry
	}
	backoff := p.Backoff
	for attempt := 1; ; attempt++ {
		resp, err := r.Next.Do(req)
		wait, reason, again := retryAfter(req, resp, err, backoff)
		if !again || attempt >= p.Attempts || !replayable(req) || wait > p.MaxWait {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			_ = resp.Body.Close()
		}
		if r.Notify != nil {
			r.Notify(req, attempt+1, wait, reason)
		}
		if err := r.wait(req, wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		backoff *= 2
	}
}

// wait sleeps d or until req's context ends.
func (r *Retrier) wait(req *http.Request, d time.Duration) error {
	if r.sleep != nil {
		return r.sleep(req, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-req.Context().Done():
		return req.Context().Err()
	case <-t.C:
		return nil
	}
}

// retryAfter decides whether an answer (or error) is worth another try,
// after how long and why.
func retryAfter(req *http.Request, resp *http.Response, err error, backoff time.Duration) (time.Duration, string, bool) {
	if err != nil {
		if req.Context().Err() != nil || !safeToResend(req) {
			return 0, "", false
		}
		return backoff, err.Error(), true
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		again := resp.StatusCode == http.StatusTooManyRequests || safeToResend(req)
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return d, resp.Status + " (Retry-After " + resp.Header.Get("Retry-After") + ")", again
		}
		return backoff, resp.Status, again
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		return backoff, resp.Status, safeToResend(req)
	}
	return 0, "", false
}

// safeToResend reports whether sending req twice does no harm.
func safeToResend(req *http.Request) bool {
	switch {
	case req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodDelete:
		return true
	case req.Header.Get("Idempotency-Key") != "":
		return true
	}
	return req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/v1/") && !strings.HasPrefix(req.URL.Path, "/v1/jobs")
}

// replayable reports whether req's body can be sent again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP
// date (RFC 9110 §10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, 1<<20)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// errNoDoer is New's error without an HTTP client.
var errNoDoer = errors.New("client: nil HTTP client")
