package httpapi

import (
	"context"
	"net/http"
)

// Admit admits work that has no request body to buffer but costs like a
// solve (drawing a finished job's picture): it waits, for the queue wait
// at most, for memory bytes of the memory budget (at most the whole
// budget) and then for a solve slot, fairly among tenants like every
// request (admission.go). On success the caller must call release once
// the work is done; on failure WriteRefusal answers the request.
func (s *Server) Admit(ctx context.Context, memory int64) (release func(), err error) {
	t, err := s.adm.admit(ctx, 0)
	if err != nil {
		return nil, err
	}
	if err = t.reserve(ctx, memory); err == nil {
		err = t.takeSlot(ctx)
	}
	if err != nil {
		t.release()
		return nil, err
	}
	return t.release, nil
}

// WriteRefusal answers a request whose Admit failed: 503 with
// Retry-After when the memory or a slot stayed taken, nothing when the
// client left.
func (s *Server) WriteRefusal(w http.ResponseWriter, r *http.Request, err error) {
	s.refuse(w, r, err)
}
