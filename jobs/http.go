package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"golang.org/x/sync/singleflight"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

// Schema names (files in schemas/).
const (
	submitSchema = "jobs.submit.json"
)

// Job is the body of GET /v1/jobs/{id}. The names of the first fields are
// a fixed contract (issue 8).
type Job struct {
	ID         string                  `json:"id"`
	Problem    string                  `json:"problem"`
	Kind       string                  `json:"kind"`
	State      State                   `json:"state"`
	Progress   Progress                `json:"progress"`
	CreatedAt  time.Time               `json:"created_at"`
	StartedAt  *time.Time              `json:"started_at"`
	FinishedAt *time.Time              `json:"finished_at"`
	Error      *httpapi.ProblemDetails `json:"error"`
	ExpiresAt  *time.Time              `json:"expires_at,omitempty"`
	// Client is the tenant (the name predates tenants, when it was the
	// caller's X-Client-Id; jobs stored then keep that value).
	Client   string `json:"client"`
	Tenant   string `json:"tenant"`
	Attempts int    `json:"attempts"`
	// CancelRequested is set once DELETE was called on a job still running.
	CancelRequested bool `json:"cancel_requested,omitempty"`
	// Variants lists a scenario's solves (base first); GET /v1/jobs/{id}
	// only, not the list.
	Variants []VariantState    `json:"variants,omitempty"`
	Links    map[string]string `json:"links"`
}

// VariantState is one scenario variant's state in a Job body.
type VariantState struct {
	Name     string   `json:"name"`
	State    State    `json:"state"`
	Progress Progress `json:"progress"`
	Result   string   `json:"result"`
}

// JobList is the body of GET /v1/jobs.
type JobList struct {
	Jobs       []Job  `json:"jobs"`
	NextCursor string `json:"next_cursor,omitempty"`
	Next       string `json:"next,omitempty"`
}

func jobPath(id string) string { return "/v1/jobs/" + url.PathEscape(id) }

func toJob(r record) Job {
	j := Job{
		ID: r.ID, Problem: r.Problem, Kind: r.Kind, State: r.State, Progress: r.Progress,
		CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Error: r.Error,
		ExpiresAt: r.ExpiresAt, Client: r.Client, Tenant: r.Tenant, Attempts: r.Attempts,
		CancelRequested: r.CancelRequested && !r.State.Terminal(),
		Links:           map[string]string{"self": jobPath(r.ID), "result": jobPath(r.ID) + "/result"},
	}
	return j
}

type handlers struct {
	svc *Service
	api *httpapi.Server
	// pictures shares one draw among concurrent requests for a job's
	// picture (picturecache.go).
	pictures singleflight.Group
}

// Mount adds the job routes to the API server's router and the job
// metrics to its registry.
func (s *Service) Mount(api *httpapi.Server) {
	h := &handlers{svc: s, api: api}
	api.Metrics().MustRegister(s.metrics)
	api.AddReadinessCheck("job_store", s.health.check)
	api.Router().Group(func(r chi.Router) {
		r.Use(privateHeaders)
		r.Post("/v1/jobs", h.submit)
		r.Get("/v1/jobs", h.list)
		r.Get("/v1/jobs/{id}", h.get)
		r.Delete("/v1/jobs/{id}", h.cancel)
		r.Get("/v1/jobs/{id}/result", h.result)
		r.Get("/v1/jobs/{id}/picture", httpapi.PictureOnly(h.result))
		r.Get("/v1/jobs/{id}/variants/{name}/result", h.variantResult)
	})
}

// privateHeaders marks every job response as not to be stored by caches
// (a job, its result and the list are one tenant's and change over time)
// and not to be content-sniffed (a result is served as the stored bytes).
func privateHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// visible reports whether the caller may see rec: a job is its tenant's,
// and admin sees every tenant's. Any other job answers 404 like a missing
// one, so ids tell nothing about other tenants.
func visible(r *http.Request, rec record) bool {
	p := httpapi.PrincipalOf(r.Context())
	return rec.Tenant == p.Tenant || p.Has(httpapi.ScopeAdmin)
}

func (h *handlers) internal(w http.ResponseWriter, r *http.Request, err error) {
	if kind := storeFault(err); kind != "" {
		h.writeStoreFault(w, r, kind, err)
		return
	}
	h.api.WriteError(w, r, &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err})
}

type submitBody struct {
	Problem  string          `json:"problem"`
	Input    json.RawMessage `json:"input"`
	Variants []Variant       `json:"variants"`
}

// validKey accepts an Idempotency-Key of 1 to 255 visible ASCII
// characters (a UUID, a hash, a name), so it is safe to store and echo.
var validKey = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

func (h *handlers) submit(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if _, sent := r.Header["Idempotency-Key"]; sent && !validKey.MatchString(key) {
		httpapi.SimpleProblem(w, r, http.StatusBadRequest, "malformed", "Invalid Idempotency-Key",
			"Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)")
		return
	}
	// Expanding a scenario (patching and validating every variant) costs
	// like a solve, so it holds a solve slot and memory as a solve does,
	// until the answer is written.
	body, done, ok := h.api.AdmitBody(w, r)
	if !ok {
		return
	}
	defer done()
	p, inputs, spec, xe := h.svc.prepare(body)
	if xe != nil {
		h.api.WriteError(w, r, xe)
		return
	}
	sub := submission{Tenant: httpapi.PrincipalOf(r.Context()).Tenant, Problem: p.Name, Inputs: inputs, Spec: spec, Key: key}
	if key != "" {
		if sub.BodyHash, xe = bodyHash(body); xe != nil {
			h.api.WriteError(w, r, xe)
			return
		}
	}
	rec, replayed, err := h.svc.submit(r.Context(), sub)
	var quota *quotaError
	var reused *keyReusedError
	switch {
	case errors.As(err, &quota):
		h.writeQuota(w, r, quota)
	case errors.As(err, &reused):
		httpapi.SimpleProblem(w, r, http.StatusUnprocessableEntity, "idempotency_key_reused", "Idempotency-Key reused",
			"Idempotency-Key "+strconv.Quote(reused.Key)+" was used within the last 24 h for a different request (job "+
				reused.JobID+"); send a new key for a new job")
	case err != nil:
		h.internal(w, r, err)
	default:
		w.Header().Set("Location", jobPath(rec.ID))
		status := http.StatusAccepted
		if replayed {
			w.Header().Set("Idempotent-Replayed", "true")
			status = http.StatusOK
		}
		httpapi.WriteJSON(w, status, toJob(rec))
	}
}

// bodyHash is the canonical hash of a submission (the Runner's, see
// solver.CanonicalHash), so the same request with other white space or
// key order is the same body for its Idempotency-Key.
func bodyHash(body []byte) (string, *solver.Error) {
	doc, err := solver.DecodeAny(body)
	if err == nil {
		var sum string
		if sum, err = solver.CanonicalHash(doc); err == nil {
			return sum, nil
		}
	}
	return "", &solver.Error{Kind: solver.KindInternal, Detail: "hash the submission: " + err.Error(), Err: err}
}

// maxScenarioBytes bounds the stored inputs of one job (the base plus every
// patched variant is stored in full): 64 MiB keeps a submission's
// transaction and rows reasonable for both stores.
const maxScenarioBytes = 64 << 20

func (s *Service) maxStored() int {
	if s.maxStoredBytes > 0 {
		return s.maxStoredBytes
	}
	return maxScenarioBytes
}

// prepare validates a submission: its envelope against jobs.submit.json,
// the problem name, and every input (the base and each patched variant)
// against the problem's request schema, so a job that is accepted can only
// fail on semantics the solver checks. It returns the problem, the inputs
// to solve and, for a scenario, the spec to store.
func (s *Service) prepare(body []byte) (solver.Problem, []variantInput, []byte, *solver.Error) {
	if xe := solver.CheckUTF8(body); xe != nil {
		return solver.Problem{}, nil, nil, xe
	}
	doc, err := solver.DecodeAny(body)
	if err != nil {
		return solver.Problem{}, nil, nil, solver.MalformedAt(body, err)
	}
	set := s.runner.Schemas()
	if vs := set.Validate(submitSchema, doc); len(vs) > 0 {
		return solver.Problem{}, nil, nil, schemaError(submitSchema, "", vs)
	}
	var sb submitBody
	if err := json.Unmarshal(body, &sb); err != nil {
		return solver.Problem{}, nil, nil, &solver.Error{Kind: solver.KindMalformed, Detail: err.Error(), Err: err}
	}
	p, ok := s.runner.Lookup(sb.Problem)
	if !ok {
		return p, nil, nil, solver.Invalid("/problem", "unknown problem %q (see /v1/problems)", sb.Problem)
	}
	if len(sb.Variants) > s.cfg.MaxVariants {
		return p, nil, nil, solver.Invalid("/variants", "%d variants exceed this server's limit of %d", len(sb.Variants), s.cfg.MaxVariants)
	}
	var vs solver.Violations
	// Each input gets the Runner's own check, so a job accepts and refuses
	// exactly what POST /v1/{problem} does.
	check := func(prefix string, raw []byte) {
		_, xe := s.runner.CheckRequest(p, raw)
		switch {
		case xe == nil:
		case len(xe.Violations) == 0:
			vs.Add(prefix, "%s", xe.Detail)
		default:
			for _, v := range xe.Violations {
				vs.Add(prefix+v.Pointer, "%s", v.Message)
			}
		}
	}
	base := compactJSON(sb.Input)
	if xe := s.fitsStore(len(base), len(sb.Variants)); xe != nil {
		return p, nil, nil, xe
	}
	total := len(base)
	check("/input", base)
	inputs := []variantInput{{Name: BaseVariant, Input: base}}
	seen := map[string]bool{BaseVariant: true}
	depthLimit := patchDepthLimit(set, p.RequestSchema)
	for i, v := range sb.Variants {
		if seen[v.Name] {
			vs.Add(solver.Ptr("variants", i, "name"), "duplicate variant name %q (%q is the unpatched input)", v.Name, BaseVariant)
			continue
		}
		seen[v.Name] = true
		patched, ok := s.patchVariant(base, v.Patch, solver.Ptr("variants", i, "patch"), depthLimit, p.Name, &vs)
		if !ok {
			continue
		}
		if total += len(patched); total > s.maxStored() {
			return p, nil, nil, &solver.Error{Kind: solver.KindTooLarge, Detail: fmt.Sprintf(
				"the base and its first %d patched variants take %d bytes, over the limit of %d: use fewer variants or a smaller input",
				i+1, total, s.maxStored())}
		}
		check(solver.Ptr("variants", i, "patch"), patched)
		inputs = append(inputs, variantInput{Name: v.Name, Input: patched})
	}
	if err := vs.Err(); err != nil {
		xe := err.(*solver.Error)
		xe.Kind = solver.KindSchema
		return p, nil, nil, xe
	}

	if len(sb.Variants) == 0 {
		return p, inputs[:1], nil, nil
	}
	spec, err := json.Marshal(struct {
		Problem  string          `json:"problem"`
		Input    json.RawMessage `json:"input"`
		Variants []Variant       `json:"variants"`
	}{p.Name, base, sb.Variants})
	if err != nil {
		return p, nil, nil, &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err}
	}
	return p, inputs, spec, nil
}

// fitsStore refuses (413), before any patch is applied, a scenario whose
// variants cannot fit the stored inputs' limit: every variant is stored
// in full, and a variant is counted at no less than its base's size (a
// patch that shrinks the input that much is not a what-if of it), so n
// variants of a B-byte base need (n+1)·B bytes. Patching and checking
// 29 variants of a large base took 2.5 s before the limit was found past
// the first few (issue 28); this answers at once.
func (s *Service) fitsStore(base, variants int) *solver.Error {
	if variants == 0 || (variants+1)*base <= s.maxStored() {
		return nil
	}
	most := s.maxStored()/max(base, 1) - 1
	return &solver.Error{Kind: solver.KindTooLarge, Detail: fmt.Sprintf(
		"%d variants of a %d-byte input need at least %d bytes stored, over the limit of %d: this input allows at most %d variants; use fewer variants or a smaller input",
		variants, base, (variants+1)*base, s.maxStored(), max(most, 0))}
}

// patchVariant applies one variant's patch (a merge patch, or a JSON
// Patch when it is an array) to base after refusing one nested deeper
// than a request of the problem can be, adding what is wrong to vs at ptr;
// it returns the compacted input and whether there is one.
func (s *Service) patchVariant(base []byte, patch json.RawMessage, ptr string, depthLimit int, problem string, vs *solver.Violations) ([]byte, bool) {
	jp := isJSONPatch(patch)
	deep, tooDeepAt := tooDeep(patch, depthLimit)
	if jp {
		deep, tooDeepAt = jsonPatchTooDeep(patch, depthLimit)
	}
	if tooDeepAt {
		vs.Add(ptr+deep, "the patch nests deeper than the %d levels a %s request can have", depthLimit, problem)
		return nil, false
	}
	var patched []byte
	var err error
	if jp {
		patched, err = applyJSONPatch(base, patch, s.maxStored())
	} else {
		patched, err = applyPatch(base, patch)
	}
	switch {
	case err != nil && jp:
		vs.Add(ptr, "apply JSON Patch (RFC 6902): %v", err)
		return nil, false
	case err != nil:
		vs.Add(ptr, "apply merge patch: %v", err)
		return nil, false
	}
	return compactJSON(patched), true
}

// compactJSON removes insignificant white space (the input is valid JSON).
func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

func schemaError(name, prefix string, vs []schemas.Violation) *solver.Error {
	out := make([]solver.Violation, len(vs))
	for i, v := range vs {
		out[i] = solver.Violation{Pointer: prefix + v.Pointer, Message: v.Message}
	}
	return &solver.Error{Kind: solver.KindSchema, Detail: "request does not match schema " + name, Violations: out}
}

// get is GET /v1/jobs/{id}; with ?wait=DURATION it answers once the
// job's state changes, or when the wait (at most MaxWait) ends, with the
// job as it then is (wait.go).
func (h *handlers) get(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	wait, werr := parseWait(r.URL.Query().Get("wait"))
	if werr != nil {
		h.api.WriteError(w, r, solver.Invalid("/query/wait", "%v", werr))
		return
	}
	rec, err := h.svc.st.get(r.Context(), id)
	if errors.Is(err, errNotFound) || (err == nil && (rec.ParentID != "" || !visible(r, rec))) {
		httpapi.SimpleProblem(w, r, http.StatusNotFound, "not_found", "Unknown job", "no job "+id+" (finished jobs are removed after their retention)")
		return
	}
	if err == nil {
		rec, err = h.svc.awaitChange(r.Context(), rec, wait, h.api.Draining())
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	if rec.Corrupt != "" {
		rec = h.svc.quarantine(r.Context(), rec, rec.Corrupt)
	}
	j := toJob(rec)
	if rec.Kind == kindScenario {
		kids, _, err := h.svc.st.childrenTx(r.Context(), h.svc.st.db, id, false)
		if err != nil {
			h.internal(w, r, err)
			return
		}
		for _, k := range kids {
			j.Variants = append(j.Variants, VariantState{Name: k.Variant, State: k.State, Progress: k.Progress,
				Result: jobPath(id) + "/variants/" + url.PathEscape(k.Variant) + "/result"})
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, j)
}

// topJob reads job id for a request on the job itself (cancel, result):
// a job that does not exist, a scenario's variant (reached through its
// parent's routes) and another tenant's job all answer 404, any other
// failure 500; ok is false when that answer is written.
func (h *handlers) topJob(w http.ResponseWriter, r *http.Request, id string) (rec record, ok bool) {
	rec, err := h.svc.st.get(r.Context(), id)
	if errors.Is(err, errNotFound) || (err == nil && (rec.ParentID != "" || !visible(r, rec))) {
		httpapi.SimpleProblem(w, r, http.StatusNotFound, "not_found", "Unknown job", "no job "+id)
		return record{}, false
	}
	if err != nil {
		h.internal(w, r, err)
		return record{}, false
	}
	return rec, true
}

func (h *handlers) cancel(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	before, ok := h.topJob(w, r, id)
	if !ok {
		return
	}
	if before.State == StateSucceeded || before.State == StateFailed {
		httpapi.SimpleProblem(w, r, http.StatusConflict, "already_finished", "Job already finished",
			"job "+id+" is "+string(before.State)+"; only queued or running jobs can be cancelled")
		return
	}
	rec, err := h.svc.cancel(r.Context(), id)
	if errors.Is(err, errNotFound) {
		httpapi.SimpleProblem(w, r, http.StatusNotFound, "not_found", "Unknown job", "no job "+id)
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	status := http.StatusOK
	if !rec.State.Terminal() {
		// The solve was asked to stop and will store its best answer.
		status = http.StatusAccepted
	}
	httpapi.WriteJSON(w, status, toJob(rec))
}

func (h *handlers) result(w http.ResponseWriter, r *http.Request) {
	rec, ok := h.topJob(w, r, chi.URLParam(r, "id"))
	if !ok {
		return
	}
	if media := h.resultMedia(w, r, rec.Problem); media != "" {
		h.writeResult(w, r, rec, media)
	}
}

func (h *handlers) variantResult(w http.ResponseWriter, r *http.Request) {
	id, name := chi.URLParam(r, "id"), chi.URLParam(r, "name")
	rec, err := h.svc.st.variant(r.Context(), id, name)
	if errors.Is(err, errNotFound) || (err == nil && !visible(r, rec)) {
		httpapi.SimpleProblem(w, r, http.StatusNotFound, "not_found", "Unknown variant", "no variant "+name+" in job "+id)
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	if media := h.resultMedia(w, r, rec.Problem); media != "" {
		h.writeResult(w, r, rec, media)
	}
}

// writeResult answers with exactly the body the synchronous endpoint
// returns: the response on success (and for a cancelled solve that kept
// its best answer) as JSON or, when media is SVG, its picture; the
// problem document on failure. With ?partial=true a job still running
// answers its best answer so far (writePartial, JSON); a finished job
// answers as without it.
// Stored bytes that fail their checksum are never served: the job is
// marked failed and its error (500, corrupt_store) is the answer.
func (h *handlers) writeResult(w http.ResponseWriter, r *http.Request, rec record, media string) {
	wantPartial, err := parsePartial(r.URL.Query().Get("partial"))
	if err != nil {
		h.api.WriteError(w, r, solver.Invalid("/query/partial", "%v", err))
		return
	}
	if rec.Corrupt != "" {
		rec = h.svc.quarantine(r.Context(), rec, rec.Corrupt)
	}
	var body []byte
	if rec.State.Terminal() && rec.HasResult {
		b, err := h.svc.st.result(r.Context(), rec.ID)
		switch {
		case errors.Is(err, errCorrupt):
			rec = h.svc.quarantine(r.Context(), rec, partResult)
		case err != nil:
			h.internal(w, r, err)
			return
		}
		body = b
	}
	w.Header().Set("X-Job-State", string(rec.State))
	if !rec.State.Terminal() && wantPartial {
		h.writePartial(w, r, rec)
		return
	}
	if !rec.State.Terminal() {
		w.Header().Set("Retry-After", "1")
		httpapi.SimpleProblem(w, r, http.StatusConflict, "not_finished", "Job not finished",
			"job "+rec.ID+" is "+string(rec.State)+"; poll "+jobPath(rec.ID)+" until it is succeeded, failed or cancelled")
		return
	}
	if body != nil && media == httpapi.MediaSVG {
		h.writePicture(w, r, rec, body)
		return
	}
	if body != nil {
		httpapi.WriteMedia(w, http.StatusOK, httpapi.MediaJSON, body)
		return
	}
	if rec.Error != nil {
		httpapi.WriteProblem(w, *rec.Error)
		return
	}
	httpapi.SimpleProblem(w, r, http.StatusConflict, "no_result", "No result",
		"job "+rec.ID+" was cancelled before the solver produced an answer")
}

// maxPageSize bounds GET /v1/jobs?limit.
const (
	defaultPageSize = 50
	maxPageSize     = 500
)

func (h *handlers) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := listFilter{Limit: defaultPageSize, Problem: q.Get("problem"), Client: q.Get("client"), Kind: q.Get("kind"),
		Tenant: q.Get("tenant")}
	var vs solver.Violations
	if s := q.Get("state"); s != "" {
		for _, st := range strings.Split(s, ",") {
			if !validState(st) {
				vs.Add("/query/state", "unknown state %q (queued, running, succeeded, failed, cancelled)", st)
				continue
			}
			f.States = append(f.States, State(st))
		}
	}
	if k := f.Kind; k != "" && k != kindSolve && k != kindScenario {
		vs.Add("/query/kind", "unknown kind %q (solve, scenario)", k)
	}
	if p := f.Problem; p != "" {
		if prob, ok := h.svc.runner.Lookup(p); ok {
			f.Problem = prob.Name
		}
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxPageSize {
			vs.Add("/query/limit", "limit must be an integer from 1 to %d", maxPageSize)
		} else {
			f.Limit = n
		}
	}
	for _, tf := range []struct {
		name string
		dst  **time.Time
	}{{"created_after", &f.CreatedAfter}, {"created_before", &f.CreatedBefore}} {
		if v := q.Get(tf.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				vs.Add("/query/"+tf.name, "not an RFC 3339 time: %v", err)
				continue
			}
			*tf.dst = &t
		}
	}
	if c := q.Get("cursor"); c != "" {
		cur, err := decodeCursor(c)
		if err != nil {
			vs.Add("/query/cursor", "%v", err)
		}
		f.Cursor = cur
	}
	if err := vs.Err(); err != nil {
		h.api.WriteError(w, r, err.(*solver.Error))
		return
	}
	// A tenant lists its own jobs only; admin lists all, or one tenant's.
	if p := httpapi.PrincipalOf(r.Context()); !p.Has(httpapi.ScopeAdmin) {
		if f.Tenant != "" && f.Tenant != p.Tenant {
			httpapi.WriteJSON(w, http.StatusOK, JobList{Jobs: []Job{}})
			return
		}
		f.Tenant = p.Tenant
	}
	recs, next, err := h.svc.st.list(r.Context(), f)
	if err != nil {
		h.internal(w, r, err)
		return
	}
	out := JobList{Jobs: make([]Job, len(recs)), NextCursor: next}
	for i, rec := range recs {
		if rec.Corrupt != "" {
			rec = h.svc.quarantine(r.Context(), rec, rec.Corrupt)
		}
		out.Jobs[i] = toJob(rec)
	}
	if next != "" {
		q.Set("cursor", next)
		out.Next = "/v1/jobs?" + q.Encode()
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}
