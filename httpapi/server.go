// Package httpapi is xflex's HTTP front end: a chi router that exposes every
// problem as POST /v1/{problem}, the embedded JSON Schemas, health and
// version endpoints, and the middleware every request goes through (request
// id, access log, panic recovery, body limit, content-type check, a bounded
// number of concurrent solves).
//
// Solving itself is delegated to solver.Runner, the same code path as
// `xflex solve`, so the CLI prints exactly what the endpoint returns.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/solver"
)

// Config holds the server's limits.
type Config struct {
	// MaxBodyBytes limits a request body (413 beyond). Default 16 MiB.
	MaxBodyBytes int64
	// MaxConcurrent bounds simultaneous solves. Default runtime.NumCPU().
	MaxConcurrent int
	// QueueWait is how long a request waits for a solve slot before 503.
	// Default 1 s.
	QueueWait time.Duration
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
	return c
}

// Server is the HTTP API. Create it with New; serve Handler().
type Server struct {
	cfg      Config
	runner   *solver.Runner
	log      zerolog.Logger
	slots    chan struct{}
	draining atomic.Bool
	router   chi.Router
}

// New builds the server and its routes.
func New(cfg Config, runner *solver.Runner, log zerolog.Logger) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, runner: runner, log: log, slots: make(chan struct{}, cfg.MaxConcurrent)}
	r := chi.NewRouter()
	r.Use(requestID, accessLog(log), recoverer(log))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		SimpleProblem(w, r, http.StatusNotFound, "not_found", "Not found", "no route for "+r.URL.Path)
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		SimpleProblem(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed",
			r.Method+" is not allowed on "+r.URL.Path)
	})
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/version", s.version)
	r.Get("/v1/problems", s.listProblems)
	r.Get("/v1/schemas", s.listSchemas)
	r.Get("/v1/schemas/{name}", s.getSchema)
	for _, p := range runner.Problems() {
		r.Post("/v1/"+p.Name, s.solveHandler(p))
	}
	s.router = r
	return s
}

// Handler returns the root handler.
func (s *Server) Handler() http.Handler { return s.router }

// Router exposes the chi router so other packages (e.g. asynchronous jobs)
// can mount routes on the same server.
func (s *Server) Router() chi.Router { return s.router }

// SetDraining makes /readyz answer 503, so load balancers stop sending new
// work while in-flight solves finish.
func (s *Server) SetDraining() { s.draining.Store(true) }

// WriteJSON writes v as a JSON body with a trailing newline. v must be
// encodable (the service's own documents); solve responses are written
// as Runner.Run encoded them (Response.Wire).
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	writeBody(w, status, append(b, '\n'))
}

// writeBody writes an encoded JSON body.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if s.draining.Load() {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "solve_slots": cap(s.slots), "solves_in_flight": len(s.slots)})
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
}

func (s *Server) listProblems(w http.ResponseWriter, _ *http.Request) {
	var out []problemInfo
	for _, p := range s.runner.Problems() {
		out = append(out, problemInfo{
			Name: p.Name, Path: "/v1/" + p.Name, Command: p.Command(), Summary: p.Summary,
			RequestSchema: "/v1/schemas/" + p.RequestSchema, ResponseSchema: "/v1/schemas/" + p.ResponseSchema,
		})
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

// acquire waits up to QueueWait (or until the client leaves) for a solve slot.
func (s *Server) acquire(ctx context.Context) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(s.cfg.QueueWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (s *Server) release() { <-s.slots }

// ReadBody reads a JSON request body under the server's limits, writing the
// 415/413/400 problem itself and returning ok=false on failure. Exported for
// other front ends mounted on the same router (asynchronous jobs).
func (s *Server) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !jsonContentType(r.Header.Get("Content-Type")) {
		SimpleProblem(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported media type",
			"send the request as Content-Type: application/json")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.WriteError(w, r, &solver.Error{Kind: solver.KindTooLarge,
				Detail: "request body exceeds " + strconv.FormatInt(s.cfg.MaxBodyBytes, 10) + " bytes"})
			return nil, false
		}
		SimpleProblem(w, r, http.StatusBadRequest, "malformed", "Unreadable body", err.Error())
		return nil, false
	}
	return body, true
}

// WriteError writes a solver error as a problem document.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, e *solver.Error) {
	if e.Kind == solver.KindInternal {
		s.log.Error().Str("request_id", RequestID(r.Context())).Err(e).Msg("solve failed")
	}
	WriteProblem(w, FromError(e, r.URL.Path, RequestID(r.Context())))
}

func (s *Server) solveHandler(p solver.Problem) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		body, ok := s.ReadBody(w, r)
		if !ok {
			return
		}
		if !s.acquire(r.Context()) {
			if r.Context().Err() != nil {
				return
			}
			w.Header().Set("Retry-After", "1")
			SimpleProblem(w, r, http.StatusServiceUnavailable, "overloaded", "Too many concurrent solves",
				"all "+strconv.Itoa(cap(s.slots))+" solve slots are busy; retry shortly")
			return
		}
		defer s.release()
		resp, err := s.runner.Run(solver.WithArrival(r.Context(), arrival), p.Name, body)
		if err != nil {
			var xe *solver.Error
			if !errors.As(err, &xe) {
				xe = &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err}
			}
			s.WriteError(w, r, xe)
			return
		}
		writeBody(w, http.StatusOK, resp.Wire)
	}
}
