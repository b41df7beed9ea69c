package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// resultMedia negotiates the media type of a job's result from the
// request's Accept: JSON (the default), or the SVG picture when the job's
// problem has one. It writes the 406 itself and returns "" when the
// caller accepts neither. Vary: Accept is set either way.
func (h *handlers) resultMedia(w http.ResponseWriter, r *http.Request, problem string) string {
	w.Header().Add("Vary", "Accept")
	offers := httpapi.Offers(h.svc.runner.HasPicture(problem))
	media := httpapi.Negotiate(r.Header.Get("Accept"), offers...)
	if media == "" {
		httpapi.NotAcceptable(w, r, offers)
	}
	return media
}

// picture draws a finished job's stored result: a solve's picture is
// what POST /v1/{problem} answers with Accept: image/svg+xml for the same
// request and response; a scenario's shows its variants side by side,
// base first, one captioned panel each. A stored input that fails its
// checksum marks its job failed (as when it is read for a solve).
func (h *handlers) picture(ctx context.Context, rec record, result []byte) ([]byte, error) {
	if rec.Kind == kindScenario {
		return h.scenarioPicture(ctx, rec)
	}
	input, err := h.inputOf(ctx, rec)
	if err != nil {
		return nil, err
	}
	return h.svc.runner.Picture(rec.Problem, input, result)
}

// inputOf reads a job's stored input; one that fails its checksum marks
// its job failed (as when it is read for a solve).
func (h *handlers) inputOf(ctx context.Context, rec record) ([]byte, error) {
	input, err := h.svc.st.input(ctx, h.svc.st.db, rec.ID)
	if errors.Is(err, errCorrupt) {
		h.svc.quarantine(ctx, rec, partInput)
	}
	return input, err
}

// panelGap separates a scenario's panels.
const panelGap = 24

// scenarioPicture draws each variant of scenario rec (its picture, on
// scales shared with the others where its problem has them, or a small
// panel saying why it has none) and lays them out side by side.
func (h *handlers) scenarioPicture(ctx context.Context, rec record) ([]byte, error) {
	kids, results, err := h.svc.st.childrenTx(ctx, h.svc.st.db, rec.ID, true)
	if err != nil {
		return nil, err
	}
	labels := make([]string, len(kids))
	inputs := make([][]byte, len(kids))
	answers := make([][]byte, len(kids))
	for i, k := range kids {
		labels[i] = k.Variant
		if k.Corrupt != "" {
			kids[i] = h.svc.quarantine(ctx, k, k.Corrupt)
			k = kids[i]
		}
		if results[i] == nil || !k.HasResult {
			continue
		}
		if inputs[i], err = h.inputOf(ctx, k); err != nil {
			return nil, fmt.Errorf("variant %s: %w", k.Variant, err)
		}
		answers[i] = results[i]
	}
	// The variants are drawn on shared scales (Runner.Pictures), so the
	// same length or time reads the same in every panel.
	panels, err := h.svc.runner.Pictures(rec.Problem, inputs, answers)
	if err != nil {
		return nil, err
	}
	for i, k := range kids {
		if panels[i] == nil {
			panels[i] = noResultPanel(k)
		}
	}
	title := fmt.Sprintf("%s scenario %s: %d variants", rec.Problem, rec.ID, len(kids))
	desc := title + " side by side, base first: " + strings.Join(labels, ", ")
	return sight.Labelled(title, desc, panelGap, labels, panels...)
}

// noResultPanel is the panel of a variant with no answer to draw: its
// state and, when it failed, its error's title and detail.
func noResultPanel(k record) []byte {
	line := "variant " + k.Variant + ": " + string(k.State) + ", no answer"
	detail := ""
	if k.Error != nil {
		detail = k.Error.Title + ": " + k.Error.Detail
	}
	d := sight.New(360, 60, line, strings.TrimSpace(line+". "+detail))
	d.Rect(0, 0, 360, 60, sight.Style{Class: "no-result", Fill: "none", Stroke: sight.Other, Dash: "4 2"})
	d.Text(10, 24, line, sight.Style{Fill: sight.Ink})
	d.Text(10, 44, detail, sight.Style{Fill: sight.Ink, Size: 10})
	return d.Bytes()
}

// maxWith bounds ?with=: the jobs a picture shares its scales with (each
// request draws every one of them twice, Runner.Pictures).
const maxWith = 8

// withJobs reads ?with=ID,ID,...: the finished solve jobs of rec's
// problem, visible to the caller, whose answers the picture of rec shares
// its scales with, as their inputs and results; nil for none. Anything
// else there is a solver error pointing at /query/with (a job the caller
// may not see is "no job", as for GET /v1/jobs/{id}).
func (h *handlers) withJobs(r *http.Request, rec record) (inputs, answers [][]byte, err error) {
	q := r.URL.Query().Get("with")
	if q == "" {
		return nil, nil, nil
	}
	ids := strings.Split(q, ",")
	if len(ids) > maxWith {
		return nil, nil, solver.Invalid("/query/with", "%d jobs; at most %d share a picture's scales", len(ids), maxWith)
	}
	if rec.Kind == kindScenario {
		return nil, nil, solver.Invalid("/query/with", "job %s is a scenario, whose variants already share their scales", rec.ID)
	}
	for _, id := range ids {
		o, err := h.svc.st.get(r.Context(), id)
		if errors.Is(err, errNotFound) || (err == nil && (o.ParentID != "" || !visible(r, o))) {
			return nil, nil, solver.Invalid("/query/with", "no job %q", id)
		}
		if err != nil {
			return nil, nil, err
		}
		if o.Problem != rec.Problem || o.Kind == kindScenario || !o.State.Terminal() || !o.HasResult || o.Corrupt != "" {
			return nil, nil, solver.Invalid("/query/with", "job %s is not a finished %s solve with an answer", id, rec.Problem)
		}
		in, err := h.inputOf(r.Context(), o)
		if err != nil {
			return nil, nil, err
		}
		res, err := h.svc.st.result(r.Context(), o.ID)
		if errors.Is(err, errCorrupt) {
			h.svc.quarantine(r.Context(), o, partResult)
		}
		if err != nil {
			return nil, nil, err
		}
		inputs, answers = append(inputs, in), append(answers, res)
	}
	return inputs, answers, nil
}

// sharedPicture draws rec's answer on the scales it shares with the
// answers of ?with= (Runner.Pictures, as a scenario's variants): the
// page's comparison of past jobs asks for each job's picture this way.
// Without ?with= it is the job's own picture, drawn once and stored
// (drawOnce); with it, the draw depends on the jobs named, so it is
// not stored, but it goes through the same admission as a solve,
// charged for every answer it draws twice.
func (h *handlers) sharedPicture(r *http.Request, rec record, result []byte) ([]byte, error) {
	inputs, answers, err := h.withJobs(r, rec)
	if err != nil || inputs == nil {
		if err == nil {
			return h.drawOnce(r, rec, result)
		}
		return nil, err
	}
	input, err := h.inputOf(r.Context(), rec)
	if err != nil {
		return nil, err
	}
	inputs, answers = append([][]byte{input}, inputs...), append([][]byte{result}, answers...)
	var n int64
	for i := range inputs {
		n += int64(len(inputs[i]) + len(answers[i]))
	}
	release, err := h.api.Admit(r.Context(), 2*n*drawBytesPerByte)
	if err != nil {
		return nil, &refusedError{err}
	}
	defer release()
	svgs, err := h.svc.runner.Pictures(rec.Problem, inputs, answers)
	if err != nil {
		return nil, err
	}
	return svgs[0], nil
}

// writePicture answers a finished job's result as its picture (on scales
// shared with ?with='s jobs, if any).
func (h *handlers) writePicture(w http.ResponseWriter, r *http.Request, rec record, result []byte) {
	svg, err := h.sharedPicture(r, rec, result)
	if err != nil {
		h.writeDrawError(w, r, err)
		return
	}
	httpapi.WriteMedia(w, http.StatusOK, httpapi.MediaSVG, svg)
}
