package jobs

import (
	"context"
	"errors"
	"net/http"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
)

// drawBytesPerByte is the memory a picture's drawing is charged per byte
// it reads (drawnBytes): the same charge as a request body
// (httpapi.MemoryPerBodyByte), which covers what was measured: 8
// concurrent draws of a 29-variant tetris/assign scenario (about 20 MB of
// inputs and results) raised the server's RSS by about 50 MB each.
const drawBytesPerByte = httpapi.MemoryPerBodyByte

// refusedError is a draw that was not admitted (httpapi.Server.Admit's
// error), answered with WriteRefusal.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return "picture not admitted: " + e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// drawOnce returns finished job rec's picture: the stored one, or one
// drawn now and stored. Concurrent requests for the same job on this
// replica share one draw (singleflight), and the draw goes through the
// API's admission like a solve (a solve slot and its share of the memory
// budget, 503 with Retry-After when they stay taken), so picture requests
// cannot amplify: issue 28 saw 8 concurrent GETs of one scenario draw it
// 8 times at once, outside admission, RSS 60 MB to 2.26 GB.
func (h *handlers) drawOnce(r *http.Request, rec record, result []byte) ([]byte, error) {
	if svg, ok, err := h.svc.st.picture(r.Context(), rec.ID); err != nil || ok {
		return svg, err
	}
	ch := h.pictures.DoChan(rec.ID, func() (any, error) {
		// The draw outlives the request that started it (others wait for
		// it); the queue wait bounds its admission.
		return h.draw(context.WithoutCancel(r.Context()), rec, result)
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// draw admits, draws and stores rec's picture (another replica may have
// stored it first: then that one is used).
func (h *handlers) draw(ctx context.Context, rec record, result []byte) ([]byte, error) {
	if svg, ok, err := h.svc.st.picture(ctx, rec.ID); err != nil || ok {
		return svg, err
	}
	n, err := h.svc.st.drawnBytes(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	release, err := h.api.Admit(ctx, n*drawBytesPerByte)
	if err != nil {
		return nil, &refusedError{err}
	}
	defer release()
	svg, err := h.picture(ctx, rec, result)
	if err != nil {
		return nil, err
	}
	if err := h.svc.st.putPicture(ctx, rec.ID, svg); err != nil {
		// Served anyway; the next request draws it again.
		h.svc.log.Warn().Err(err).Str("job", rec.ID).Msg("store job picture")
	}
	return svg, nil
}

// writeDrawError answers a picture that could not be had: the refusal of
// admission (503 with Retry-After), or the error's problem document.
func (h *handlers) writeDrawError(w http.ResponseWriter, r *http.Request, err error) {
	var ref *refusedError
	var xe *solver.Error
	switch {
	case errors.As(err, &ref):
		h.api.WriteRefusal(w, r, ref.err)
	case errors.As(err, &xe):
		h.api.WriteError(w, r, xe)
	default:
		h.api.WriteError(w, r, &solver.Error{Kind: solver.KindInternal, Detail: err.Error(), Err: err})
	}
}
