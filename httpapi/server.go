// Package httpapi is xflex's HTTP front end: a chi router that exposes every
// problem as POST /v1/{problem}, the embedded JSON Schemas and the OpenAPI
// document built from them (openapi.go), health and
// version endpoints, and the middleware every request goes through (request
// id, access log, panic recovery, Bearer tokens and their scopes when the
// server has an auth file (auth.go), body and response deadlines, body
// limit, content-type check) and the admission every body goes through before it
// is read (a solve slot and a share of a memory budget: admission.go).
//
// Solving itself is delegated to solver.Runner, the same code path as
// `xflex solve`, so the CLI prints exactly what the endpoint returns.
package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/examples"
	"github.com/xflex/xflex/httpapi/ui"
	"github.com/xflex/xflex/solver"
)

// Config holds the server's limits.
type Config struct {
	// MaxBodyBytes limits a request body (413 beyond). Default 16 MiB.
	MaxBodyBytes int64
	// MaxConcurrent bounds simultaneous solves. Default runtime.NumCPU().
	MaxConcurrent int
	// MaxConcurrentPerTenant bounds one tenant's simultaneous solves.
	// Default (0) MaxConcurrent: a lone tenant may use every slot; when
	// tenants compete, slots go fairly among them anyway (admission.go).
	MaxConcurrentPerTenant int
	// QueueWait is how long a request waits for its memory (see
	// MaxInflightBytes), and then for a solve slot, before 503. Default 1 s.
	QueueWait time.Duration
	// MaxInflightBytes is the memory budget of the requests in flight:
	// each is charged MemoryPerBodyByte times its body before the body is
	// read (see admission.go). Default 512 MiB.
	MaxInflightBytes int64
	// ReadBodyTimeout is how long a request may take to send its body
	// once reading starts (408 beyond), so a client trickling its body
	// cannot hold a slot or connection for long. Default 30 s: 16 MiB at
	// about 0.5 MiB/s.
	ReadBodyTimeout time.Duration
	// WriteTimeout is how long a response may take to be written once it
	// starts, so a client that does not read cannot hold a slot and its
	// memory. Default 30 s.
	WriteTimeout time.Duration
	// Auth, when set, requires a Bearer token from the auth file on every
	// path but the open ones (authpolicy.go). Nil: no tokens, every request
	// is the local principal (the server must then listen on loopback).
	Auth *Auth
	// CORSOrigins are the origins browsers may call the API from
	// (`--cors-origin`); none (the default): no CORS headers at all.
	CORSOrigins []string
	// DiscardRefused is how much of a body refused before it was read
	// (503 overloaded) the server reads and throws away after the answer,
	// so a client that sends its body without "Expect: 100-continue" can
	// finish and read the 503 instead of a reset (drain.go). Default
	// 16 MiB; negative: none beyond net/http's own 256 KiB.
	DiscardRefused int64
	// AllowedHosts are the Host names served besides the loopback ones
	// (`--allowed-host`, hosts.go). Without Auth only loopback names and
	// these are served (421 otherwise); with Auth the list applies only
	// when given.
	AllowedHosts []string
}

func (c Config) withDefaults() Config {
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 16 << 20
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = runtime.NumCPU()
	}
	if c.QueueWait <= 0 {
		c.QueueWait = time.Second
	}
	if c.MaxInflightBytes <= 0 {
		c.MaxInflightBytes = 512 << 20
	}
	if c.ReadBodyTimeout <= 0 {
		c.ReadBodyTimeout = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.DiscardRefused == 0 {
		c.DiscardRefused = defaultDiscardRefused
	}
	return c
}

// Server is the HTTP API. Create it with New; serve Handler().
type Server struct {
	cfg      Config
	runner   *solver.Runner
	log      zerolog.Logger
	adm      *admission
	draining atomic.Bool
	drain    chan struct{} // closed by SetDraining
	drainSet sync.Once
	router   chi.Router
	// policy is what each path needs with an auth file (authpolicy.go);
	// the OpenAPI document states it as each operation's security.
	policy  policy
	metrics *metrics
	ready   readiness // checks added by other front ends (readiness.go)

	openapiOnce sync.Once
	openapiDoc  []byte
	openapiErr  error
}

// New builds the server and its routes.
func New(cfg Config, runner *solver.Runner, log zerolog.Logger) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, runner: runner, log: log, adm: newAdmission(cfg), drain: make(chan struct{})}
	s.metrics = newMetrics(s.adm)
	r := chi.NewRouter()
	var names []string
	for _, p := range runner.Problems() {
		names = append(names, p.Name)
	}
	s.policy = basePolicy.withProblems(names)
	// Auth runs inside deadlines, so a refused request cannot hold its
	// connection by trickling a body the server must read past.
	// CORS answers preflights before auth too: a browser sends them
	// without the token.
	r.Use(requestID, traceContext, accessLog(log), s.metrics.instrument, recoverer(log), deadlines(cfg.ReadBodyTimeout, cfg.WriteTimeout),
		hostAllowList(cfg.AllowedHosts, cfg.Auth != nil),
		allowCORS(cfg.CORSOrigins), authenticate(cfg.Auth, s.policy), compression(), middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		SimpleProblem(w, r, http.StatusNotFound, "not_found", "Not found", "no route for "+r.URL.Path)
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(allowedMethods(s.router, r.URL.Path), ", "))
		SimpleProblem(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed",
			r.Method+" is not allowed on "+r.URL.Path)
	})
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/version", s.version)
	r.Method(http.MethodGet, "/metrics", s.serveMetrics())
	r.Get("/v1/problems", s.listProblems)
	r.Get("/v1/schemas", s.listSchemas)
	r.Get("/v1/schemas/{name}", s.getSchema)
	r.Get("/v1/openapi.json", s.openAPI)
	for _, p := range runner.Problems() {
		r.Post("/v1/"+p.Name, s.solveHandler(p))
		if p.Picture != nil {
			r.Post(PicturePath(p), PictureOnly(s.solveHandler(p)))
		}
		if b, ok := examples.Request(p.Command()); ok {
			r.Get(examplePath(p), exampleHandler(b))
		}
	}
	r.Get("/ui", ui.Page)
	r.Get("/ui/", ui.Page)
	r.Get("/ui/{file}", uiFile)
	s.router = r
	return s
}

// routeMethods are the methods a 405's Allow header may list.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions}

// allowedMethods lists the methods routes serves on path, for the Allow
// header RFC 9110 requires on a 405. chi hands its list only to its own
// default handler, so it is recomputed here; asking the router at request
// time also covers routes mounted after New (the jobs API).
func allowedMethods(routes chi.Routes, path string) []string {
	var out []string
	for _, m := range routeMethods {
		// HEAD is served wherever GET is (middleware.GetHead).
		if routes.Match(chi.NewRouteContext(), m, path) ||
			m == http.MethodHead && routes.Match(chi.NewRouteContext(), http.MethodGet, path) {
			out = append(out, m)
		}
	}
	return out
}

// Handler returns the root handler.
func (s *Server) Handler() http.Handler { return s.router }

// Router exposes the chi router so other packages (e.g. asynchronous jobs)
// can mount routes on the same server.
func (s *Server) Router() chi.Router { return s.router }

// SetDraining makes /readyz answer 503, so load balancers stop sending new
// work while in-flight solves finish.
func (s *Server) SetDraining() {
	s.draining.Store(true)
	s.drainSet.Do(func() { close(s.drain) })
}

// Draining returns a channel closed once the server starts draining, so
// a request that waits (GET /v1/jobs/{id}?wait=) answers at once and
// does not hold up the shutdown.
func (s *Server) Draining() <-chan struct{} { return s.drain }

// WriteJSON writes v as a JSON body with a trailing newline. v must be
// encodable (the service's own documents); solve responses are written
// as Runner.Run encoded them (Response.Wire).
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	WriteMedia(w, status, MediaJSON, append(b, '\n'))
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	if s.notReady(w, r) {
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "solve_slots": s.adm.slots.capacity, "solves_in_flight": s.adm.slots.inUse()})
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, VersionInfo())
}

// VersionInfo is what /version and `xflex version` report.
func VersionInfo() map[string]any {
	return map[string]any{"version": solver.Version, "go": runtime.Version(), "lp_backends": lpBackends()}
}

type problemInfo struct {
	Name           string `json:"name"`
	Path           string `json:"path"`
	Command        string `json:"command"`
	Summary        string `json:"summary"`
	RequestSchema  string `json:"request_schema"`
	ResponseSchema string `json:"response_schema"`
	// Example is the path of the problem's example request, when it has one.
	Example string `json:"example,omitempty"`
}

// uiFile serves one of the web page's files, or a 404 problem.
func uiFile(w http.ResponseWriter, r *http.Request) {
	if name := chi.URLParam(r, "file"); !ui.ServeFile(w, r, name) {
		SimpleProblem(w, r, http.StatusNotFound, "not_found", "Not found", "the web page has no file "+name)
	}
}

// examplePath is where a problem's example request is served.
func examplePath(p solver.Problem) string { return "/v1/examples/" + p.Name }

// exampleHandler serves one embedded example request (examples/).
func exampleHandler(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { WriteMedia(w, http.StatusOK, MediaJSON, b) }
}

func (s *Server) listProblems(w http.ResponseWriter, _ *http.Request) {
	var out []problemInfo
	for _, p := range s.runner.Problems() {
		info := problemInfo{
			Name: p.Name, Path: "/v1/" + p.Name, Command: p.Command(), Summary: p.Summary,
			RequestSchema: "/v1/schemas/" + p.RequestSchema, ResponseSchema: "/v1/schemas/" + p.ResponseSchema,
		}
		if _, ok := examples.Request(p.Command()); ok {
			info.Example = examplePath(p)
		}
		out = append(out, info)
	}
	WriteJSON(w, http.StatusOK, map[string]any{"problems": out})
}

func (s *Server) listSchemas(w http.ResponseWriter, _ *http.Request) {
	names := s.runner.Schemas().Names()
	sort.Strings(names)
	type entry struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	}
	out := make([]entry, len(names))
	for i, n := range names {
		out[i] = entry{Name: n, URL: "/v1/schemas/" + n}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"schemas": out})
}

func (s *Server) getSchema(w http.ResponseWriter, r *http.Request) {
	b, ok := s.runner.Schemas().Raw(chi.URLParam(r, "name"))
	if !ok {
		SimpleProblem(w, r, http.StatusNotFound, "not_found", "Unknown schema", "no schema named "+chi.URLParam(r, "name"))
		return
	}
	setAnswerHeaders(w.Header(), "application/schema+json")
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// jsonContentType accepts application/json and any application/*+json,
// with parameters (charset) ignored.
func jsonContentType(h string) bool {
	mt, _, err := mime.ParseMediaType(h)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// AdmitBody admits a request to the memory budget, only then reads its
// JSON body under the server's limits, and waits for a solve slot (see
// admission.go). It writes the 415, 413, 503 (with
// Retry-After), 408 or 400 problem itself and returns ok=false on
// failure; on success the caller must call done once the response is
// written, which gives the slot and memory back. Exported for other front
// ends mounted on the same router (asynchronous jobs), so everything that
// buffers a body goes through the same admission.
func (s *Server) AdmitBody(w http.ResponseWriter, r *http.Request) (body []byte, done func(), ok bool) {
	t, body, ok := s.admitBody(w, r)
	if !ok {
		return nil, nil, false
	}
	return body, t.release, true
}

// admitBody is AdmitBody returning the admitted request's ticket, whose
// release is done.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request) (*ticket, []byte, bool) {
	if !jsonContentType(r.Header.Get("Content-Type")) {
		SimpleProblem(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported media type",
			"send the request as Content-Type: application/json")
		return nil, nil, false
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		s.tooLarge(w, r)
		return nil, nil, false
	}
	t, err := s.adm.admit(r.Context(), r.ContentLength)
	if err != nil {
		s.refuseUnread(w, r, err)
		return nil, nil, false
	}
	body, err := s.readBody(w, r, t)
	if err == nil {
		t.holdBody(len(body))
		err = t.takeSlot(r.Context())
	}
	if err != nil {
		t.release()
		s.refuse(w, r, err)
		return nil, nil, false
	}
	return t, body, true
}

// readBody reads the body within ReadBodyTimeout: into one buffer of its
// Content-Length, or, for a chunked body, reserving memory as it comes.
// It reads to EOF, which is what makes the server watch the connection
// (and cancel the request's context) should the client leave mid-solve;
// the read deadline is lifted afterwards, since that watch is a read too.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, t *ticket) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadBodyTimeout)) // unsupported only by tests' recorders
	body, err := readAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r, t)
	if err != nil {
		// The deadline stays: the server reads what is left of the body
		// before it answers, which must not wait forever either.
		return nil, err
	}
	_ = rc.SetReadDeadline(time.Time{})
	return body, nil
}

// readAll reads src to EOF: into one buffer of the request's
// Content-Length, or, without one, through a reservingReader.
func readAll(src io.Reader, r *http.Request, t *ticket) ([]byte, error) {
	if r.ContentLength < 0 {
		return io.ReadAll(&reservingReader{ctx: r.Context(), t: t, r: src})
	}
	body := make([]byte, r.ContentLength)
	if _, err := io.ReadFull(src, body); err != nil {
		return nil, err
	}
	// One more read meets EOF (the server cuts a body at its
	// Content-Length), which starts the server's watch on the connection.
	if _, err := src.Read(make([]byte, 1)); err != io.EOF {
		return nil, fmt.Errorf("read body: at its Content-Length: %v", err)
	}
	return body, nil
}

// refuse answers a request that was not admitted or whose body could not
// be read; a client that left gets nothing. The body's own errors are
// told apart first: any failed body read also cancels the request's
// context.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.Is(err, errOverloaded):
		w.Header().Set("Retry-After", s.adm.retryAfter())
		SimpleProblem(w, r, http.StatusServiceUnavailable, "overloaded", "Too many concurrent solves",
			"the memory for requests in flight ("+strconv.FormatInt(s.cfg.MaxInflightBytes, 10)+" bytes), or then "+
				s.adm.slotsTaken()+", stayed taken for "+s.cfg.QueueWait.String()+
				"; retry after the number of seconds in Retry-After")
	case errors.As(err, &mbe):
		s.tooLarge(w, r)
	case errors.As(err, &ne) && ne.Timeout():
		SimpleProblem(w, r, http.StatusRequestTimeout, "timeout", "Request body too slow",
			"the body was not received within "+s.cfg.ReadBodyTimeout.String())
	case r.Context().Err() != nil: // the client left (a failed body read cancels the context too)
	default:
		SimpleProblem(w, r, http.StatusBadRequest, "malformed", "Unreadable body", err.Error())
	}
}

func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request) {
	s.WriteError(w, r, &solver.Error{Kind: solver.KindTooLarge,
		Detail: "request body exceeds " + strconv.FormatInt(s.cfg.MaxBodyBytes, 10) + " bytes"})
}

// WriteError writes a solver error as a problem document.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, e *solver.Error) {
	if e.Kind == solver.KindInternal {
		logIDs(s.log.Error(), r.Context()).Err(e).Msg("solve failed")
	}
	WriteProblem(w, FromError(e, r.URL.Path, RequestID(r.Context())))
}

// solveHandler answers POST /v1/{problem}: the JSON response, or with
// Accept: image/svg+xml the answer's picture (Runner.Picture of the body
// and the JSON response). The Accept header is judged before the body is
// read, so a 406 costs no solve; errors are problem+json whatever it asks.
func (s *Server) solveHandler(p solver.Problem) http.HandlerFunc {
	offers := Offers(p.Picture != nil)
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		w.Header().Add("Vary", "Accept")
		media := Negotiate(r.Header.Get("Accept"), offers...)
		if media == "" {
			NotAcceptable(w, r, offers)
			return
		}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		resp, ran := s.solve(ww, r, p, media, arrival)
		s.metrics.observeSolve(p.Name, ww.Status(), resp, ran, time.Since(arrival))
	}
}

// solve admits and solves one request to p and writes the answer in the
// negotiated media. It returns the response (nil when an error document
// was written) and whether the request reached the solver, for the
// metrics.
func (s *Server) solve(w http.ResponseWriter, r *http.Request, p solver.Problem, media string, arrival time.Time) (*solver.Response, bool) {
	t, body, ok := s.admitBody(w, r)
	if !ok {
		return nil, false
	}
	defer t.release()
	ctx := solver.WithMemoryGate(solver.WithArrival(r.Context(), arrival), t.topUp)
	resp, err := s.runner.Run(ctx, p.Name, body)
	out := []byte(nil)
	if err == nil {
		out = resp.Wire
		if media == MediaSVG {
			out, err = s.runner.Picture(p.Name, body, resp.Wire)
		}
	}
	if err != nil {
		var xe *solver.Error
		if !errors.As(err, &xe) {
			xe = &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err}
		}
		if xe.Kind == solver.KindOverloaded {
			w.Header().Set("Retry-After", s.adm.retryAfter())
		}
		s.WriteError(w, r, xe)
		return nil, true
	}
	WriteMedia(w, http.StatusOK, media, out)
	return resp, true
}

// WriteMedia writes an encoded body of the given media type (a JSON
// response or an SVG picture).
func WriteMedia(w http.ResponseWriter, status int, media string, b []byte) {
	setAnswerHeaders(w.Header(), media)
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
