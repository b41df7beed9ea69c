package solver

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
)

// Picture draws an answer of the named problem (API or CLI name) as an
// SVG document through the problem's PictureFunc: request is the body as
// sent and response the Runner's answer to it (Response.Wire). Every
// front end that offers pictures (the HTTP API's Accept: image/svg+xml,
// job results, `xflex solve --svg`) calls it, so they give the same
// bytes. An unknown problem is a KindUnknownProblem error, a problem
// without a picture KindNotAcceptable; a failure or panic of the drawing
// code, given an answer the Runner wrote, is a bug (KindInternal).
func (r *Runner) Picture(name string, request, response []byte) (svg []byte, err error) {
	p, ok := r.Lookup(name)
	if !ok {
		return nil, &Error{Kind: KindUnknownProblem, Detail: fmt.Sprintf("unknown problem %q", name)}
	}
	if p.Picture == nil {
		return nil, &Error{Kind: KindNotAcceptable, Detail: fmt.Sprintf("%s has no picture; ask for application/json", p.Name)}
	}
	defer func() {
		if v := recover(); v != nil {
			svg, err = nil, &Error{Kind: KindInternal, Detail: fmt.Sprintf("panic in %s picture: %v", p.Name, v),
				Err: fmt.Errorf("panic: %v\n%s", v, debug.Stack())}
		}
	}()
	svg, err = p.Picture(request, response)
	if err != nil {
		return nil, &Error{Kind: KindInternal, Detail: fmt.Sprintf("draw %s: %v", p.Name, err), Err: err}
	}
	return svg, nil
}

// Pictures draws answers of the named problem that are shown side by
// side (a scenario's variants): requests[i] and responses[i] as Picture
// takes them, nil responses[i] for none (its picture is nil). A problem
// with a SharedPictureFunc draws every answer twice: first to learn the
// top of each scale each needs, then all on the largest, so the same
// bar length or time is the same width in every picture; others are
// drawn once each, as Picture does.
func (r *Runner) Pictures(name string, requests, responses [][]byte) (svgs [][]byte, err error) {
	p, ok := r.Lookup(name)
	if !ok || p.PictureShared == nil {
		svgs = make([][]byte, len(responses))
		for i, resp := range responses {
			if resp != nil {
				if svgs[i], err = r.Picture(name, requests[i], resp); err != nil {
					return nil, err
				}
			}
		}
		return svgs, nil
	}
	defer func() {
		if v := recover(); v != nil {
			svgs, err = nil, &Error{Kind: KindInternal, Detail: fmt.Sprintf("panic in %s picture: %v", p.Name, v),
				Err: fmt.Errorf("panic: %v\n%s", v, debug.Stack())}
		}
	}()
	shared := map[string]float64{}
	for pass := range 2 {
		svgs = make([][]byte, len(responses))
		for i, resp := range responses {
			if resp == nil {
				continue
			}
			svg, tops, err := p.PictureShared(requests[i], resp, shared)
			if err != nil {
				return nil, &Error{Kind: KindInternal, Detail: fmt.Sprintf("draw %s: %v", p.Name, err), Err: err}
			}
			svgs[i] = svg
			for k, v := range tops {
				if cur, ok := shared[k]; pass == 0 && (!ok || v > cur) {
					shared[k] = v
				}
			}
		}
	}
	return svgs, nil
}

// HasPicture reports whether the named problem can draw its answers.
func (r *Runner) HasPicture(name string) bool {
	p, ok := r.Lookup(name)
	return ok && p.Picture != nil
}

// DecodePicture decodes what a PictureFunc is given: the request as a Req
// and the response's result as a Res, with its meta. Its error says which
// of the two did not decode ("request: …" or "response: …").
func DecodePicture[Req, Res any](request, response json.RawMessage) (Req, Res, Meta, error) {
	var req Req
	var resp struct {
		Result Res  `json:"result"`
		Meta   Meta `json:"meta"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		return req, resp.Result, resp.Meta, fmt.Errorf("request: %w", err)
	}
	if err := json.Unmarshal(response, &resp); err != nil {
		return req, resp.Result, resp.Meta, fmt.Errorf("response: %w", err)
	}
	return req, resp.Result, resp.Meta, nil
}
