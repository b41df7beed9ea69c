package httpapi

import (
	"context"
	"net/http"
	"sync"
)

// readiness holds the checks other front ends add to /readyz (the job
// store's write probe): the server is ready only while each passes.
type readiness struct {
	mu     sync.Mutex
	checks []namedCheck
}

type namedCheck struct {
	name  string
	check func(context.Context) error
}

// AddReadinessCheck makes /readyz answer 503 naming name and the error
// while check fails. check must be cheap or cache its verdict: load
// balancers poll /readyz often.
func (s *Server) AddReadinessCheck(name string, check func(context.Context) error) {
	s.ready.mu.Lock()
	defer s.ready.mu.Unlock()
	s.ready.checks = append(s.ready.checks, namedCheck{name, check})
}

// notReady runs the checks in the order added and writes the 503 of the
// first that fails; it returns false when all pass.
func (s *Server) notReady(w http.ResponseWriter, r *http.Request) bool {
	s.ready.mu.Lock()
	checks := append([]namedCheck(nil), s.ready.checks...)
	s.ready.mu.Unlock()
	for _, c := range checks {
		if err := c.check(r.Context()); err != nil {
			WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not_ready", "check": c.name, "detail": err.Error()})
			return true
		}
	}
	return false
}
