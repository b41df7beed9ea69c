package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// API is the hand-written layer over the generated client: one typed
// method per problem (Cmmf, Flex, ...), its picture (CmmfPicture, ...)
// and its job submission (SubmitCmmf, ...), and the job methods. Every
// request carries the token given to New and goes through a Retrier. Raw
// is the generated client, for what the layer does not cover.
type API struct {
	Raw *ClientWithResponses
}

// settings are New's options.
type settings struct {
	token  string
	doer   HttpRequestDoer
	retry  RetryPolicy
	notify func(*http.Request, int, time.Duration, string)
	edits  []RequestEditorFn
}

// Option configures New.
type Option func(*settings)

// WithToken sends the token as Authorization: Bearer on every request
// (a server with an auth file; see `xflex token new`).
func WithToken(token string) Option { return func(s *settings) { s.token = token } }

// WithDoer sends requests through d (an *http.Client, say) instead of
// http.DefaultClient; the retries wrap it.
func WithDoer(d HttpRequestDoer) Option { return func(s *settings) { s.doer = d } }

// WithRetry replaces DefaultRetry.
func WithRetry(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// WithRetryNotify calls f before each retry's wait (e.g. to log it).
func WithRetryNotify(f func(req *http.Request, attempt int, wait time.Duration, reason string)) Option {
	return func(s *settings) { s.notify = f }
}

// WithEditor runs f on every request before it is sent (a header of
// your own, say).
func WithEditor(f RequestEditorFn) Option { return func(s *settings) { s.edits = append(s.edits, f) } }

// New returns the API of the xflex server at server (e.g.
// http://127.0.0.1:8080).
func New(server string, opts ...Option) (*API, error) {
	s := settings{doer: http.DefaultClient, retry: DefaultRetry}
	for _, o := range opts {
		o(&s)
	}
	if s.doer == nil {
		return nil, errNoDoer
	}
	copts := []ClientOption{WithHTTPClient(&Retrier{Next: s.doer, Policy: s.retry, Notify: s.notify})}
	if s.token != "" {
		tok := s.token
		copts = append(copts, WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+tok)
			return nil
		}))
	}
	for _, f := range s.edits {
		copts = append(copts, WithRequestEditorFn(f))
	}
	raw, err := NewClientWithResponses(strings.TrimRight(server, "/"), copts...)
	if err != nil {
		return nil, err
	}
	return &API{Raw: raw}, nil
}

// Error is an answer other than success: the HTTP status and the
// problem+json document the server sent (Problem is nil when the body
// was not one).
type Error struct {
	Status  int
	Problem *CommonProblem
	Body    []byte
}

func (e *Error) Error() string {
	if e.Problem == nil {
		return fmt.Sprintf("xflex: HTTP %d: %.200s", e.Status, e.Body)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "xflex: HTTP %d %s", e.Status, e.Problem.Title)
	if e.Problem.Detail != nil {
		b.WriteString(": " + *e.Problem.Detail)
	}
	if e.Problem.Errors != nil {
		for _, v := range *e.Problem.Errors {
			fmt.Fprintf(&b, "; %s: %s", v.Pointer, v.Message)
		}
	}
	return b.String()
}

// fail is the *Error of an answer.
func fail(resp *http.Response, body []byte) error {
	e := &Error{Status: resp.StatusCode, Body: body}
	var p CommonProblem
	if json.Unmarshal(body, &p) == nil && p.Title != "" {
		e.Problem = &p
	}
	return e
}

// typedAnswer returns v when the answer is a 200 that decoded, else the
// error.
func typedAnswer[T any](resp *http.Response, body []byte, v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || v == nil {
		return nil, fail(resp, body)
	}
	return v, nil
}

// picture returns the SVG of a 200, else the error.
func picture(resp *http.Response, body []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail(resp, body)
	}
	return body, nil
}

// SubmitOption configures a job submission.
type SubmitOption func(*SubmitJobParams)

// WithIdempotencyKey sends key instead of a random one: the same key and
// body within 24 h answer the job first submitted.
func WithIdempotencyKey(key string) SubmitOption {
	return func(p *SubmitJobParams) { p.IdempotencyKey = &key }
}

// NewIdempotencyKey is a random key (128 bits, hex).
func NewIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Submit queues a job. Every submission carries an Idempotency-Key
// (random unless given), so the Retrier may resend it safely.
func (a *API) Submit(ctx context.Context, body JobsSubmission, opts ...SubmitOption) (*JobsJob, error) {
	params := &SubmitJobParams{}
	for _, o := range opts {
		o(params)
	}
	if params.IdempotencyKey == nil {
		key := NewIdempotencyKey()
		params.IdempotencyKey = &key
	}
	r, err := a.Raw.SubmitJobWithResponse(ctx, params, body)
	if err != nil {
		return nil, err
	}
	switch {
	case r.JSON202 != nil:
		return r.JSON202, nil
	case r.JSON200 != nil:
		return r.JSON200, nil
	}
	return nil, fail(r.HTTPResponse, r.Body)
}

// submitAs wraps one problem's typed submission into the union.
func submitAs[T any](ctx context.Context, a *API, job T, from func(*JobsSubmission, T) error, opts []SubmitOption) (*JobsJob, error) {
	var body JobsSubmission
	if err := from(&body, job); err != nil {
		return nil, err
	}
	return a.Submit(ctx, body, opts...)
}

// Job returns a job's state and progress.
func (a *API) Job(ctx context.Context, id string) (*JobsJob, error) {
	r, err := a.Raw.GetJobWithResponse(ctx, id, &GetJobParams{})
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Terminal reports whether a job's state is final.
func Terminal(s JobsJobState) bool {
	return s == JobsJobStateSucceeded || s == JobsJobStateFailed || s == JobsJobStateCancelled
}

// waitStep is how long one GET ?wait= holds (the server cuts waits to 60 s).
const waitStep = "30s"

// waitPause is the least time between two GETs of Wait, so a server that
// answers at once (one draining, or one from before ?wait=) is not
// polled in a tight loop.
const waitPause = 250 * time.Millisecond

// Wait returns the job once it has ended (succeeded, failed or
// cancelled), asking the server to answer each GET when the state
// changes; it stops with ctx.
func (a *API) Wait(ctx context.Context, id string) (*JobsJob, error) {
	wait := waitStep
	var sent time.Time
	for {
		if pause := waitPause - time.Since(sent); !sent.IsZero() && pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
		sent = time.Now()
		r, err := a.Raw.GetJobWithResponse(ctx, id, &GetJobParams{Wait: &wait})
		if err != nil {
			return nil, err
		}
		j, err := typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
		if err != nil || Terminal(j.State) {
			return j, err
		}
	}
}

// Cancel cancels a queued or running job.
func (a *API) Cancel(ctx context.Context, id string) (*JobsJob, error) {
	r, err := a.Raw.CancelJobWithResponse(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case r.JSON200 != nil:
		return r.JSON200, nil
	case r.JSON202 != nil:
		return r.JSON202, nil
	}
	return nil, fail(r.HTTPResponse, r.Body)
}

// ResultBytes returns a finished job's answer as stored: the body POST
// /v1/{problem} answered (a scenario's comparison).
func (a *API) ResultBytes(ctx context.Context, id string) ([]byte, error) {
	r, err := a.Raw.GetJobResultWithResponse(ctx, id, &GetJobResultParams{})
	if err != nil {
		return nil, err
	}
	if r.StatusCode() != http.StatusOK {
		return nil, fail(r.HTTPResponse, r.Body)
	}
	return r.Body, nil
}

// Result decodes a finished job's answer into T: the problem's response
// (CmmfResponse, ...) or, for a scenario, JobsComparison.
func Result[T any](ctx context.Context, a *API, id string) (*T, error) {
	b, err := a.ResultBytes(ctx, id)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("decode the result of job %s: %w", id, err)
	}
	return v, nil
}

// JobPicture returns the SVG picture of a finished job's answer.
func (a *API) JobPicture(ctx context.Context, id string) ([]byte, error) {
	r, err := a.Raw.GetJobPictureWithResponse(ctx, id, &GetJobPictureParams{})
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}
