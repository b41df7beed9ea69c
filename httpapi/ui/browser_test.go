package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/examples"
	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the README's screenshots (docs/ui-*.png) from the browser test")

// minInkShare is the share of a picture's pixels that must differ from
// its background: an empty or blank picture has none, the smallest
// example's picture (a few bars with labels) has several per cent.
const minInkShare = 0.02

// chromium finds the browser, or skips the test where there is none; on
// CI (CI=true) a missing browser fails instead, so the test cannot go
// silently unrun there.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; scripts/install-deps.sh --test installs it (apt package chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium): the browser test is skipped; with CI=true it fails")
	return ""
}

// noPicture is jobtest's sleep problem without its picture: the page
// must say the server draws none (406) and log no error.
func noPicture() solver.Problem {
	p := jobtest.Problem()
	p.Name, p.Picture = "test/nopicture", nil
	return p
}

// posts counts the POST requests a test server answered, by path: a
// solve is a POST /v1/{problem} or a POST /v1/jobs.
type posts struct {
	mu     sync.Mutex
	byPath map[string]int
}

func (p *posts) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			p.mu.Lock()
			p.byPath[r.URL.Path]++
			p.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// take returns the counts so far and starts again from none.
func (p *posts) take() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.byPath
	p.byPath = map[string]int{}
	return out
}

// startServer serves the whole API (solves, examples, jobs on a fresh
// SQLite store, the page) on loopback for one test; beside the real
// problems it has jobtest's sleep problem, a job that runs as long as
// asked (for the cancel button). It counts the POST requests it answers.
func startServer(t *testing.T, cfg httpapi.Config) (*httptest.Server, *solver.Runner, *posts) {
	t.Helper()
	set, err := jobtest.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	runner, err := solver.NewRunnerWithSchemas(append(problems.All(), jobtest.Problem(), noPicture()), time.Minute, set)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(cfg, runner, zerolog.Nop())
	stop, err := jobs.Setup(context.Background(), jobs.Config{Store: "sqlite:" + filepath.Join(t.TempDir(), "jobs.db")},
		runner, api, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	counted := &posts{byPath: map[string]int{}}
	srv := httptest.NewServer(counted.wrap(api.Handler()))
	t.Cleanup(func() {
		srv.Close()
		_ = stop(context.Background())
	})
	return srv, runner, counted
}

// consoleErrors collects what the page logs as an error: console.error
// calls, uncaught exceptions, and the browser's own error entries (a
// Content-Security-Policy refusal, a missing file). The browser's "Failed
// to load resource: 4xx" network entries are not counted: the page gets
// 406 and 422 answers on purpose and shows them itself.
type consoleErrors struct {
	mu   sync.Mutex
	msgs []string
}

func (c *consoleErrors) read(ctx context.Context) {
	for m, err := range chromedp.Console(ctx) {
		if err != nil {
			return
		}
		if (m.Type == chromedp.ConsoleError && m.Source != "network") || m.IsException() {
			c.mu.Lock()
			c.msgs = append(c.msgs, m.String()+" "+m.URL)
			c.mu.Unlock()
		}
	}
}

func (c *consoleErrors) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// newBrowser starts headless Chromium with the flags this closed network
// needs (no background, component or sync traffic, no QUIC) and a fresh
// profile, bounded by timeout, and starts collecting console errors.
func newBrowser(t *testing.T, timeout time.Duration) (context.Context, *consoleErrors) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	// The browser lives as long as bctx; the steps share a deadline.
	ctx, cancelTime := context.WithTimeout(bctx, timeout)
	errs := &consoleErrors{}
	done := make(chan struct{})
	go func() { defer close(done); errs.read(ctx) }()
	t.Cleanup(func() { cancelTime(); <-done; cancelBrowser(); cancelAlloc() })
	return ctx, errs
}

// do runs browser steps, failing the test with what on error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one browser action and returns its value.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// js evaluates an expression in the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return get(t, ctx, expr, chromedp.Evaluate[T](expr))
}

// jsAwait evaluates an expression whose value is a promise and returns
// what it resolves to.
func jsAwait[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return get(t, ctx, expr, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// act clicks sel (or, with sel "", runs script) and waits until the
// page has finished the action it started; it returns the status's
// state (idle, done, error) and text.
func act(t *testing.T, ctx context.Context, sel, script string) (string, string) {
	t.Helper()
	before := js[string](t, ctx, `document.body.dataset.finished`)
	if sel != "" {
		do(t, ctx, "click "+sel, chromedp.Click(chromedp.CSS(sel)))
	} else {
		js[any](t, ctx, script)
	}
	do(t, ctx, "wait after "+sel+script, chromedp.Poll[chromedp.Void](
		fmt.Sprintf(`document.body.dataset.finished !== %q`, before), chromedp.WithPollingTimeout(40*time.Second)))
	return js[string](t, ctx, `document.getElementById("status").dataset.state`), text(t, ctx, "#status")
}

// choose selects a problem and loads its example.
func choose(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	act(t, ctx, "", fmt.Sprintf(`(() => { const s = document.getElementById("problem");
		s.value = %q; s.dispatchEvent(new Event("change")); })()`, name))
	if st, msg := act(t, ctx, "#load-example", ""); st != "idle" {
		t.Fatalf("load the example of %s: %s %s", name, st, msg)
	}
}

// setValue replaces a field's text as typing would (an input event).
func setValue(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	js[any](t, ctx, fmt.Sprintf(`(() => { const e = document.getElementById(%q);
		e.value = %s; e.dispatchEvent(new Event("input")); })()`, id, jsString(value)))
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// checkPicture checks the picture pane shows a rendered picture: an
// inline SVG with a non-empty box, and a screenshot of it with a
// meaningful share of non-background pixels; and that it fits the page
// (checkFits), returning what checkFits measured.
func checkPicture(t *testing.T, ctx context.Context, what string) fit {
	t.Helper()
	if st := js[string](t, ctx, `document.getElementById("picture").dataset.state`); st != "shown" {
		t.Fatalf("%s: no picture shown: %q", what, text(t, ctx, "#picture-caption"))
	}
	box := js[struct{ W, H, NW float64 }](t, ctx, `(() => { const i = document.querySelector("#picture-svg > svg"),
		r = i.getBoundingClientRect(); return {W: r.width, H: r.height, NW: i.width.baseVal.value}; })()`)
	if box.W < minBox || box.H < minBox || box.NW == 0 {
		t.Fatalf("%s: picture box %.0fx%.0f, own width %.0f", what, box.W, box.H, box.NW)
	}
	if box.W > box.NW+0.5 {
		t.Errorf("%s: picture shown %.0f px wide, larger than its own %.0f", what, box.W, box.NW)
	}
	share := inkShare(t, visiblePicture(t, ctx, "#picture-svg > svg"))
	if share < minInkShare {
		t.Fatalf("%s: only %.3f of the picture's pixels differ from its background (want >= %.2f)", what, share, minInkShare)
	}
	fit := checkFits(t, ctx, what, "#picture-svg > svg")
	if strings.HasPrefix(what, "xschedule/simulate") && len(fit.Scales["utilisation"]) != 2 {
		t.Errorf("%s: utilisation panels on the shared scale: %v, want X-Schedule's and DRF's", what, fit.Scales)
	}
	if strings.HasPrefix(what, "xflex/plan") && (len(fit.Scales["utilisation"]) != 2 || len(fit.Scales["time"]) != 2) {
		t.Errorf("%s: utilisation panels on the shared scales: %v, want X-Flex's and DRF's on utilisation and time", what, fit.Scales)
	}
	if strings.HasPrefix(what, "flex") && len(fit.Scales["time"]) != 3 {
		t.Errorf("%s: schedules on the shared time scale: %v, want Flex's, FIFO's and Fair's", what, fit.Scales)
	}
	t.Logf("%s: picture %.0fx%.0f on the page (own width %.0f), %.1f%% of its pixels drawn, smallest text %.1f px (box %.1f px), %d panels, shared scales %v",
		what, box.W, box.H, box.NW, 100*share, fit.MinFont, fit.MinBox, fit.Panels, fit.Scales)
	return fit
}

// minBox is the least width and height of a picture on the page, in CSS
// px (the test sleep problem's, the smallest, is 100 by 40).
const minBox = 30

// minTextPx is the smallest rendered text a picture may show.
const minTextPx = 11

// fit is what checkFits measured of a picture on the page.
type fit struct {
	// Outside lists the panels (the picture itself first) whose box
	// passes the viewport's left or right edge, as "left..right".
	Outside []string
	Panels  int
	// MinFont is the smallest text's size in CSS px (its font size times
	// its screen transform's scale); MinBox the smallest height of an
	// unrotated text's getBoundingClientRect.
	MinFont, MinBox float64
	// Scales maps each shared scale (class scale-NAME on tick labels) to
	// its panels' largest tick values, one per panel drawing it.
	Scales map[string][]float64
	Width  float64
}

// checkFits measures a picture (the SVG at sel) in the DOM: every panel
// inside the viewport's width, no text under minTextPx, and panels that
// share a scale topped at the same tick.
func checkFits(t *testing.T, ctx context.Context, what, sel string) fit {
	t.Helper()
	f := js[fit](t, ctx, fmt.Sprintf(`(() => {
		const root = document.querySelector(%q), vw = document.documentElement.clientWidth;
		const panels = [root, ...root.querySelectorAll("svg.panel")];
		const out = [];
		for (const p of panels) {
			const r = p.getBoundingClientRect();
			if (r.left < -0.5 || r.right > vw + 0.5) out.push(r.left.toFixed(1) + ".." + r.right.toFixed(1));
		}
		let minFont = 1e9, minBox = 1e9;
		for (const e of root.querySelectorAll("text")) {
			if (!e.textContent.trim()) continue;
			const m = e.getScreenCTM();
			minFont = Math.min(minFont, parseFloat(getComputedStyle(e).fontSize) * Math.hypot(m.a, m.b));
			const r = e.getBoundingClientRect();
			if (!e.getAttribute("transform") && r.height > 0) minBox = Math.min(minBox, r.height);
		}
		const scales = {};
		for (const p of panels) {
			const top = {};
			for (const e of p.querySelectorAll('text[class*="scale-"]')) {
				if (e.closest("svg") !== p) continue;
				for (const c of e.classList) if (c.startsWith("scale-")) top[c.slice(6)] = Math.max(top[c.slice(6)] ?? -1e308, Number(e.textContent));
			}
			for (const [k, v] of Object.entries(top)) (scales[k] ??= []).push(v);
		}
		return {Outside: out, Panels: panels.length - 1, MinFont: minFont, MinBox: minBox, Scales: scales, Width: vw};
	})()`, sel))
	if len(f.Outside) > 0 {
		t.Errorf("%s: %d panel(s) pass the %.0f px viewport: %v", what, len(f.Outside), f.Width, f.Outside)
	}
	if f.MinFont < minTextPx || f.MinBox < minTextPx {
		t.Errorf("%s: smallest text %.1f px (box %.1f px) at a %.0f px viewport, want >= %d", what, f.MinFont, f.MinBox, f.Width, minTextPx)
	}
	for name, tops := range f.Scales {
		for _, v := range tops {
			if v != tops[0] {
				t.Errorf("%s: panels sharing scale %q top at %v, want one value", what, name, tops)
				break
			}
		}
	}
	return f
}

// visiblePicture screenshots the viewport with the picture (sel)
// scrolled into view and crops it to the part of the picture the pane
// shows.
func visiblePicture(t *testing.T, ctx context.Context, sel string) image.Image {
	t.Helper()
	r := js[struct{ X, Y, W, H, Scale float64 }](t, ctx, fmt.Sprintf(`(() => {
		const i = document.querySelector(%q); i.scrollIntoView({block: "center"});
		const a = i.getBoundingClientRect(), b = i.parentElement.getBoundingClientRect();
		const x = Math.max(a.left, b.left, 0), y = Math.max(a.top, b.top, 0);
		const r = Math.min(a.right, b.right, innerWidth), btm = Math.min(a.bottom, b.bottom, innerHeight);
		return {X: x, Y: y, W: r - x, H: btm - y, Scale: devicePixelRatio}; })()`, sel))
	shot := get(t, ctx, "screenshot", chromedp.CaptureScreenshot())
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	px := func(v float64) int { return int(v * r.Scale) }
	crop := image.Rect(px(r.X), px(r.Y), px(r.X+r.W), px(r.Y+r.H))
	if crop.Dx() < minBox || crop.Dy() < minBox {
		t.Fatalf("the visible picture is %v", crop)
	}
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(crop)
}

// inkShare is the share of an image's pixels that differ from its
// top-left pixel (the background).
func inkShare(t *testing.T, img image.Image) float64 {
	t.Helper()
	r := img.Bounds()
	bg := colourAt(img, r.Min.X, r.Min.Y)
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if colourAt(img, x, y) != bg {
				ink++
			}
		}
	}
	return float64(ink) / float64(r.Dx()*r.Dy())
}

func colourAt(img image.Image, x, y int) [3]uint32 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint32{r >> 8, g >> 8, b >> 8}
}

// saveScreenshot writes docs/NAME.png of the element sel, with
// -update-screenshots.
func saveScreenshot(t *testing.T, ctx context.Context, sel, name string) {
	t.Helper()
	if !*updateScreenshots {
		return
	}
	shot := get(t, ctx, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(sel)))
	if err := os.WriteFile(filepath.Join("..", "..", "docs", name+".png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUIEndToEnd drives the page in headless Chromium: every problem's
// example solved synchronously with its picture, a schema error shown
// at its pointer beside the editor with its line marked, a syntax error
// located, a job followed to its end, a scenario with its variants side
// by side, the job list, and no console error throughout.
func TestUIEndToEnd(t *testing.T) {
	ctx, console := newBrowser(t, 300*time.Second)
	srv, runner, counted := startServer(t, httpapi.Config{})
	do(t, ctx, "open /ui/", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
	names := js[[]string](t, ctx, `[...document.querySelectorAll("#problem option")].map(o => o.value)`)
	if len(names) != len(runner.Problems()) {
		t.Fatalf("the page offers %v, the server has %d problems", names, len(runner.Problems()))
	}
	for _, name := range names {
		if strings.HasPrefix(name, "test/") {
			continue
		}
		t.Run("sync/"+strings.ReplaceAll(name, "/", "-"), func(t *testing.T) { solveExample(t, ctx, runner, name) })
	}
	t.Run("one solve", func(t *testing.T) { oneSolve(t, ctx, counted) })
	t.Run("scenario file", func(t *testing.T) { scenarioFile(t, ctx, "1280") })
	t.Run("plan scenario", func(t *testing.T) { planScenario(t, ctx) })
	t.Run("form", func(t *testing.T) { schemaForm(t, ctx) })
	t.Run("compare", func(t *testing.T) { compare(t, ctx) })
	t.Run("no picture", func(t *testing.T) { withoutPicture(t, ctx) })
	t.Run("file", func(t *testing.T) { loadFile(t, ctx) })
	t.Run("labels", func(t *testing.T) { labelled(t, ctx) })
	t.Run("keyboard", func(t *testing.T) { keyboard(t, ctx) })
	t.Run("schema error", func(t *testing.T) { schemaError(t, ctx) })
	t.Run("syntax error", func(t *testing.T) { syntaxError(t, ctx) })
	t.Run("job", func(t *testing.T) { runJob(t, ctx) })
	t.Run("scenario", func(t *testing.T) { runScenario(t, ctx) })
	t.Run("cancel", func(t *testing.T) { cancelJob(t, ctx) })
	// At 800 px the panes stack; every picture must still fit.
	do(t, ctx, "800 px wide", chromedp.EmulateViewport(800, 900))
	for _, name := range names {
		if strings.HasPrefix(name, "test/") {
			continue
		}
		t.Run("800/"+strings.ReplaceAll(name, "/", "-"), func(t *testing.T) {
			choose(t, ctx, name)
			if st, msg := act(t, ctx, "#run-sync", ""); st != "done" {
				t.Fatalf("%s: status %s: %s", name, st, msg)
			}
			checkPicture(t, ctx, name+" at 800 px")
			if name == "xflex/plan" {
				pipeline(t, ctx, "800", false)
			}
		})
	}
	t.Run("800/scenario file", func(t *testing.T) { scenarioFile(t, ctx, "800") })
	do(t, ctx, "1280 px wide", chromedp.EmulateViewport(1280, 900))
	t.Run("token", func(t *testing.T) { withToken(t, ctx) })
	if errs := console.list(); len(errs) > 0 {
		t.Errorf("the console logged %d error(s):\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

func solveExample(t *testing.T, ctx context.Context, runner *solver.Runner, name string) {
	choose(t, ctx, name)
	if st, msg := act(t, ctx, "#run-sync", ""); st != "done" {
		t.Fatalf("%s: status %s: %s", name, st, msg)
	}
	answer := text(t, ctx, "#response")
	if !strings.Contains(answer, `"meta"`) || !strings.Contains(answer, `"result"`) {
		t.Fatalf("%s: the JSON pane shows %.200q", name, answer)
	}
	checkPicture(t, ctx, name)
	p, _ := runner.Lookup(name)
	downloads := js[[]string](t, ctx, `["dl-json", "dl-svg", "dl-png"].map(id => { const a = document.getElementById(id);
		return a.hidden || !a.href.startsWith("blob:") ? "" : a.download; })`)
	if want := []string{p.Command() + "-answer.json", p.Command() + "-picture.svg", p.Command() + "-picture.png"}; fmt.Sprint(downloads) != fmt.Sprint(want) {
		t.Errorf("%s: downloads offered %q, want %q", name, downloads, want)
	}
	saveScreenshot(t, ctx, "#picture", "ui-"+p.Command())
	if name == "xflex/plan" {
		pipeline(t, ctx, "1280", true)
	} else if n := js[int](t, ctx, `document.querySelectorAll("#pipeline .stage").length`); n != 0 || !js[bool](t, ctx, `document.getElementById("pipeline").hidden`) {
		t.Errorf("%s: a pipeline of %d stages shown for an answer that is not a plan", name, n)
	}
}

// pipeline checks the X-Flex plan's pipeline view above the picture: its
// four stages in order, each with its status and the summary's figures,
// the three endpoint stages with their request to download; with rerun,
// it sends X-Select's request to /v1/xselect from the page and checks the
// answer is the plan's, then saves a screenshot of the view.
func pipeline(t *testing.T, ctx context.Context, width string, rerun bool) {
	t.Helper()
	type stage struct {
		ID, Status, Text, Download string
	}
	stages := js[[]stage](t, ctx, `[...document.querySelectorAll("#pipeline .stage")].map(e => ({ID: e.dataset.stage,
		Status: e.dataset.status, Text: e.textContent, Download: e.querySelector("a.stage-request")?.download ?? ""}))`)
	var ids []string
	for _, s := range stages {
		ids = append(ids, s.ID)
	}
	if fmt.Sprint(ids) != "[xsize mix xselect simulate]" {
		t.Fatalf("%s px: pipeline stages %v, want xsize, mix, xselect, simulate", width, ids)
	}
	if js[bool](t, ctx, `document.getElementById("pipeline").hidden`) {
		t.Fatalf("%s px: the pipeline is hidden", width)
	}
	below := js[bool](t, ctx, `document.getElementById("pipeline").getBoundingClientRect().bottom <= document.getElementById("picture").getBoundingClientRect().top + 0.5`)
	if !below {
		t.Errorf("%s px: the pipeline is not above the picture", width)
	}
	// The example's stages all finish: X-Size and X-Select prove their
	// optimum, the simulation runs to its horizon.
	want := []struct {
		status, download string
		figures          []string
	}{
		{"optimal", "xflex-plan-xsize-request.json", []string{"3 of K 3", "ε", "% over exact fit"}},
		{"done", "", []string{"applications3", "containers asked"}},
		{"optimal", "xflex-plan-xselect-request.json", []string{"λ1.333", "bound1.333", "gap0"}},
		{"feasible", "xflex-plan-simulate-request.json", []string{"X-Flex 104 · DRF 104", "ratio X-Flex / DRF1", "ceiling1"}},
	}
	for i, w := range want {
		s := stages[i]
		if s.Status != w.status || s.Download != w.download {
			t.Errorf("%s px: stage %s status %q download %q, want %q and %q", width, s.ID, s.Status, s.Download, w.status, w.download)
		}
		for _, f := range w.figures {
			if !strings.Contains(s.Text, f) {
				t.Errorf("%s px: stage %s lacks %q: %q", width, s.ID, f, s.Text)
			}
		}
	}
	outside := js[int](t, ctx, `[...document.querySelectorAll("#pipeline .stage")].filter(e => {
		const r = e.getBoundingClientRect(); return r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5; }).length`)
	if outside > 0 {
		t.Errorf("%s px: %d stage(s) pass the viewport's edge", width, outside)
	}
	if !rerun {
		return
	}
	js[any](t, ctx, `document.querySelector('#pipeline .stage[data-stage="xselect"] button.stage-rerun').click()`)
	do(t, ctx, "stage re-run", chromedp.Poll[chromedp.Void](
		`["same", "different", "error"].includes(document.querySelector('#pipeline .stage[data-stage="xselect"] output').dataset.state)`,
		chromedp.WithPollingTimeout(30*time.Second)))
	if got := text(t, ctx, `#pipeline .stage[data-stage="xselect"] output`); !strings.Contains(got, "the same result as in the plan") {
		t.Errorf("X-Select re-run at its endpoint: %q", got)
	}
	saveScreenshot(t, ctx, "#pipeline", "ui-xflex-plan-pipeline")
}

// schemaError breaks one nested field of cmmf's example and checks the
// page shows the server's pointer beside the editor, marks the line
// that holds the field, and flags the editor invalid; the line button
// selects that line.
func schemaError(t *testing.T, ctx context.Context) {
	choose(t, ctx, "cmmf")
	ex, _ := examples.Request("cmmf")
	broken := strings.Replace(string(ex), `"weight": 2`, `"weight": -1`, 1)
	if broken == string(ex) {
		t.Fatal(`cmmf's example no longer has "weight": 2; pick another field to break`)
	}
	setValue(t, ctx, "request", broken)
	if st, msg := act(t, ctx, "#run-sync", ""); st != "error" || !strings.Contains(msg, "422") {
		t.Fatalf("broken request: status %s: %s", st, msg)
	}
	errs := text(t, ctx, "#request-errors")
	if !strings.Contains(errs, "/users/3/weight") || !strings.Contains(errs, "line 12") {
		t.Errorf("errors beside the editor: %q, want the pointer /users/3/weight at line 12", errs)
	}
	marked := text(t, ctx, "#request-editor mark.error-line")
	invalid := js[string](t, ctx, `document.getElementById("request").getAttribute("aria-invalid")`)
	beside := js[bool](t, ctx, `(() => { const e = document.getElementById("request-editor").getBoundingClientRect(),
		l = document.getElementById("request-errors").getBoundingClientRect();
		return l.width > 0 && l.left >= e.right && l.top < e.bottom; })()`)
	if !strings.Contains(marked, `"weight": -1`) || invalid != "true" || !beside {
		t.Errorf("marked line %q, aria-invalid %q, error list beside the editor %v", marked, invalid, beside)
	}
	saveScreenshot(t, ctx, "#solve", "ui-error")
	do(t, ctx, "go to the line", chromedp.Click(chromedp.CSS("#request-errors button.line")))
	selected := js[string](t, ctx, `(() => { const a = document.activeElement;
		return a.id + ":" + a.value.slice(a.selectionStart, a.selectionEnd); })()`)
	if !strings.HasPrefix(selected, "request:") || !strings.Contains(selected, `"weight": -1`) {
		t.Errorf("the line button selected %q", selected)
	}
}

// syntaxError checks a request that is not JSON is located by line
// before anything is sent.
func syntaxError(t *testing.T, ctx context.Context) {
	setValue(t, ctx, "request", "{\n  \"users\": [\n    {\"name\": \"a\",}\n  ]\n}\n")
	if st, _ := act(t, ctx, "#run-sync", ""); st != "error" {
		t.Errorf("malformed request: status %s", st)
	}
	if errs := text(t, ctx, "#request-errors"); !strings.Contains(errs, "not valid JSON") || !strings.Contains(errs, "line 3") {
		t.Errorf("syntax error shown as %q, want it located at line 3", errs)
	}
}

// runJob runs an example as a job: the page follows it to its end and
// shows its answer and picture, and the job list has it.
func runJob(t *testing.T, ctx context.Context) {
	choose(t, ctx, "cmmf")
	// A number no float64 holds: the job is refused at /input/users/3/weight,
	// which the page shows at that field's line in the request, judging
	// the number as written (not as JavaScript's Infinity, sent as null).
	ex, _ := examples.Request("cmmf")
	setValue(t, ctx, "request", strings.Replace(string(ex), `"weight": 2`, `"weight": 1e400`, 1))
	if st, msg := act(t, ctx, "#run-job", ""); st != "error" || !strings.Contains(msg, "422") {
		t.Fatalf("job with 1e400: status %s: %s", st, msg)
	}
	if errs := text(t, ctx, "#request-errors"); !strings.Contains(errs, "line 12 /users/3/weight number 1e400 is out of range") {
		t.Errorf("job with 1e400: errors %q, want 1e400 out of range at /users/3/weight, line 12", errs)
	}
	choose(t, ctx, "cmmf")
	if st, msg := act(t, ctx, "#run-job", ""); st != "done" || !strings.Contains(msg, "succeeded") {
		t.Fatalf("job: status %s: %s", st, msg)
	}
	checkPicture(t, ctx, "job")
	do(t, ctx, "actual size", chromedp.Click(chromedp.CSS("#picture-size")))
	if w := js[[2]float64](t, ctx, `(() => { const i = document.querySelector("#picture-svg > svg");
		return [i.getBoundingClientRect().width, i.width.baseVal.value]; })()`); w[0] != w[1] {
		t.Errorf("Actual size shows the picture %v px wide, its own width is %v", w[0], w[1])
	}
	do(t, ctx, "fitted size", chromedp.Click(chromedp.CSS("#picture-size")))
	do(t, ctx, "job list", chromedp.Poll[chromedp.Void](`document.querySelectorAll("#job-list tbody tr").length > 0`,
		chromedp.WithPollingTimeout(10*time.Second)))
}

// runScenario runs a scenario of three variants (one a JSON Patch): the
// comparison shows one column per variant (the base first) and the
// picture their panels, on one scale.
func runScenario(t *testing.T, ctx context.Context) {
	choose(t, ctx, "cmmf")
	js[any](t, ctx, `document.getElementById("scenario").open = true`)
	setValue(t, ctx, "variants", `[{"name": "divisible", "patch": {"divisible": true}},
		{"name": "no-gpu", "patch": {"machine_types": [{"name": "standard", "count": 10,
		"attributes": {"memory_gb": 7, "gpu": false, "net_gbps": 1}}]}},
		{"name": "more-standard", "patch": [{"op": "replace", "path": "/machine_types/0/count", "value": 40}]}]`)
	if st, msg := act(t, ctx, "#run-scenario", ""); st != "done" {
		t.Fatalf("scenario: status %s: %s", st, msg)
	}
	heads := js[[]string](t, ctx, `[...document.querySelectorAll("#comparison thead th")].map(e => e.textContent)`)
	if want := []string{"figure", "base", "divisible", "no-gpu", "more-standard"}; fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("comparison columns %v, want %v", heads, want)
	}
	// The variants' bars share one scale (more-standard's longest bar
	// sets it), which checkPicture finds equal in every panel.
	if f := checkPicture(t, ctx, "scenario"); len(f.Scales["machines"]) != 4 {
		t.Errorf("scenario panels on the machines scale: %v, want the base's and 3 variants'", f.Scales)
	}
	saveScreenshot(t, ctx, "#result", "ui-scenario")
}

// cancelJob runs a job that would sleep 30 s, waits for the page to show
// it running with its progress, presses Cancel job, and checks the page
// ends on the cancelled job's best answer and its picture.
func cancelJob(t *testing.T, ctx context.Context) {
	js[any](t, ctx, fmt.Sprintf(`document.getElementById("problem").value = %q`, jobtest.Name))
	setValue(t, ctx, "request", `{"ms": 30000, "value": 4, "nodes": [{"name": "a", "cap": 5}, {"name": "b", "cap": 1},
		{"name": "c", "cap": 9}, {"name": "d", "cap": 2}]}`)
	before := js[string](t, ctx, `document.body.dataset.finished`)
	do(t, ctx, "run the long job", chromedp.Click(chromedp.CSS("#run-job")),
		chromedp.Poll[chromedp.Void](`!document.getElementById("cancel-job").disabled &&
			document.getElementById("status").textContent.includes("sleeping") &&
			document.getElementById("progress").value > 0`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.CSS("#cancel-job")),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.finished !== %q`, before),
			chromedp.WithPollingTimeout(20*time.Second)))
	st, msg := js[string](t, ctx, `document.getElementById("status").dataset.state`), text(t, ctx, "#status")
	if st != "done" || !strings.Contains(msg, "cancelled") {
		t.Fatalf("cancelled job: status %s: %s", st, msg)
	}
	if answer := text(t, ctx, "#response"); !strings.Contains(answer, `"cancelled"`) {
		t.Errorf("the cancelled job's answer: %.300q", answer)
	}
	checkPicture(t, ctx, "cancelled job")
}

// withToken opens the page on a server with tokens: without one the page
// says 401 and offers no problem; with a token typed into the field it
// lists the problems and solves, sending the token as Bearer.
func withToken(t *testing.T, ctx context.Context) {
	const token = "ui-test-token"
	path := filepath.Join(t.TempDir(), "tokens")
	const solveOnly = "ui-test-solve-only"
	line := "acme solve,jobs " + httpapi.HashToken(token) + "\nsolo solve " + httpapi.HashToken(solveOnly) + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := httpapi.LoadAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	srv, _, _ := startServer(t, httpapi.Config{Auth: auth})
	do(t, ctx, "open /ui/ with tokens", chromedp.Navigate(srv.URL+"/ui/"),
		chromedp.Poll[chromedp.Void](`document.body.dataset.finished === "1"`, chromedp.WithPollingTimeout(10*time.Second)))
	if msg := text(t, ctx, "#status"); !strings.Contains(msg, "401") {
		t.Fatalf("without a token the page says %q", msg)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#problem option").length`); n != 0 {
		t.Fatalf("without a token the page offers %d problems", n)
	}
	st, msg := act(t, ctx, "", fmt.Sprintf(`(() => { const e = document.getElementById("token");
		e.value = %q; e.dispatchEvent(new Event("change")); })()`, token))
	if st != "idle" || js[int](t, ctx, `document.querySelectorAll("#problem option").length`) == 0 {
		t.Fatalf("with the token: status %s %s", st, msg)
	}
	if st, msg := act(t, ctx, "#run-sync", ""); st != "done" {
		t.Fatalf("solve with the token: %s %s", st, msg)
	}
	if kept := js[string](t, ctx, `sessionStorage.getItem("xflex.token")`); kept != token {
		t.Errorf("sessionStorage holds %q", kept)
	}
	// A token without the jobs scope: Run now answers from POST
	// /v1/{problem} and says why there is no picture (drawing one would
	// solve a second time).
	act(t, ctx, "", fmt.Sprintf(`(() => { const e = document.getElementById("token");
		e.value = %q; e.dispatchEvent(new Event("change")); })()`, solveOnly))
	if st, msg := act(t, ctx, "#run-sync", ""); st != "done" || !strings.Contains(text(t, ctx, "#response"), `"result"`) {
		t.Fatalf("solve without the jobs scope: %s %s", st, msg)
	}
	if caption := text(t, ctx, "#picture-caption"); !strings.Contains(caption, "no jobs API") {
		t.Errorf("without the jobs scope the picture pane says %q", caption)
	}
}

// labelled checks every control has a name a screen reader reads: a
// label (or aria-label) for fields, text for buttons and links.
func labelled(t *testing.T, ctx context.Context) {
	unnamed := js[[]string](t, ctx, `[...document.querySelectorAll("input, select, textarea, button, a")]
		.filter(e => e.matches("input, select, textarea") ? e.labels.length === 0 && !e.getAttribute("aria-label")
			: e.textContent.trim() === "" && !e.getAttribute("aria-label"))
		.map(e => e.outerHTML.slice(0, 80))`)
	if len(unnamed) > 0 {
		t.Errorf("controls without a name: %v", unnamed)
	}
}

// keyboard drives the page from the keyboard alone: Tab from the problem
// to Load example, Enter to press it, Ctrl+Enter in the editor to run.
func keyboard(t *testing.T, ctx context.Context) {
	finished := func() string { return js[string](t, ctx, `document.body.dataset.finished`) }
	wait := func(before string) {
		do(t, ctx, "wait", chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.finished !== %q`, before),
			chromedp.WithPollingTimeout(20*time.Second)))
	}
	js[any](t, ctx, `document.getElementById("problem").value = "xsize"`)
	setValue(t, ctx, "request", "")
	do(t, ctx, "tab to Load example", chromedp.Focus(chromedp.CSS("#problem")), chromedp.KeyEvent("\t"))
	if id := js[string](t, ctx, `document.activeElement.id`); id != "load-example" {
		t.Fatalf("Tab from the problem went to %q", id)
	}
	before := finished()
	do(t, ctx, "press Enter", chromedp.KeyEvent("\r"))
	wait(before)
	if js[string](t, ctx, `document.getElementById("request").value`) == "" {
		t.Fatal("Enter on Load example loaded nothing")
	}
	before = finished()
	do(t, ctx, "Ctrl+Enter", chromedp.Focus(chromedp.CSS("#request")),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	wait(before)
	if st, msg := js[string](t, ctx, `document.getElementById("status").dataset.state`), text(t, ctx, "#status"); st != "done" {
		t.Errorf("Ctrl+Enter in the editor: status %s %s", st, msg)
	}
}

// withoutPicture solves a problem the server draws no picture for: the
// answer is shown, and the picture pane says why there is none.
func withoutPicture(t *testing.T, ctx context.Context) {
	js[any](t, ctx, `document.getElementById("problem").value = "test/nopicture"`)
	setValue(t, ctx, "request", `{"ms": 0, "value": 1}`)
	if st, msg := act(t, ctx, "#run-sync", ""); st != "done" {
		t.Fatalf("status %s: %s", st, msg)
	}
	caption := text(t, ctx, "#picture-caption")
	hidden := js[bool](t, ctx, `document.querySelector("#picture-svg svg") === null && document.getElementById("dl-svg").hidden`)
	if !strings.Contains(caption, "406") || !hidden {
		t.Errorf("no picture: caption %q, image and its download hidden %v", caption, hidden)
	}
}

// loadFile loads a request from a file through the file field: the
// editor then holds the file's text.
func loadFile(t *testing.T, ctx context.Context) {
	path := filepath.Join(t.TempDir(), "mine.json")
	want := "{\"resources\": [\"cpu\"]}\n"
	if err := os.WriteFile(path, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	before := js[string](t, ctx, `document.body.dataset.finished`)
	do(t, ctx, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{path}),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.finished !== %q`, before),
			chromedp.WithPollingTimeout(10*time.Second)))
	if got := js[string](t, ctx, `document.getElementById("request").value`); got != want {
		t.Errorf("the editor holds %q after loading the file, want %q", got, want)
	}
	if msg := text(t, ctx, "#status"); !strings.Contains(msg, "mine.json") {
		t.Errorf("status after loading the file: %q", msg)
	}
}

// oneSolve checks "Run now" solves once: one POST (a job, whose stored
// answer the picture is drawn from), no second solve for the picture.
func oneSolve(t *testing.T, ctx context.Context, counted *posts) {
	choose(t, ctx, "cmmf")
	counted.take()
	if st, msg := act(t, ctx, "#run-sync", ""); st != "done" {
		t.Fatalf("run now: status %s: %s", st, msg)
	}
	checkPicture(t, ctx, "run now")
	got := counted.take()
	solves := 0
	for path, n := range got {
		if path == "/v1/jobs" || path == "/v1/cmmf" {
			solves += n
		}
	}
	if solves != 1 {
		t.Errorf("Run now sent %v: %d solves, want exactly 1", got, solves)
	}
	saveScreenshot(t, ctx, "main", "ui-page")
}

// scenarioFile loads examples/scenario.json as it is (a whole POST
// /v1/jobs body) with the file field: the page splits it into the
// problem, the request and the variants; Run scenario solves it, the
// JSON Patch variant's two appended nodes included, and its picture fits.
func scenarioFile(t *testing.T, ctx context.Context, width string) {
	path, err := filepath.Abs(filepath.Join("..", "..", "examples", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	js[any](t, ctx, `document.getElementById("file").value = ""`)
	before := js[string](t, ctx, `document.body.dataset.finished`)
	do(t, ctx, "choose scenario.json", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{path}),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.finished !== %q`, before),
			chromedp.WithPollingTimeout(20*time.Second)))
	loaded := js[struct{ Problem, Status, Request, Variants string }](t, ctx, `({Problem: document.getElementById("problem").value,
		Status: document.getElementById("status").textContent, Request: document.getElementById("request").value,
		Variants: document.getElementById("variants").value})`)
	if loaded.Problem != "xselect" || !strings.Contains(loaded.Status, "2 variant") ||
		!strings.HasPrefix(strings.TrimSpace(loaded.Request), `{`) || strings.Contains(loaded.Request, `"variants"`) ||
		!strings.Contains(loaded.Variants, `"/nodes/-"`) {
		t.Fatalf("scenario.json loaded as %+v", loaded)
	}
	if st, msg := act(t, ctx, "#run-scenario", ""); st != "done" {
		t.Fatalf("scenario.json: status %s: %s", st, msg)
	}
	heads := js[[]string](t, ctx, `[...document.querySelectorAll("#comparison thead th")].map(e => e.textContent)`)
	if want := []string{"figure", "base", "more-big-nodes", "double-web"}; fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("comparison columns %v, want %v", heads, want)
	}
	// The JSON Patch variant's answer places containers on the two nodes
	// it appended.
	answer := jsAwait[string](t, ctx, `(async () => { const id = document.getElementById("status").textContent.split(" ")[1];
		const r = await fetch("/v1/jobs/" + id + "/variants/more-big-nodes/result"); return r.status + " " + await r.text(); })()`)
	if !strings.HasPrefix(answer, "200 ") || !strings.Contains(answer, `"c3"`) {
		t.Errorf("the JSON Patch variant's answer: %.300s", answer)
	}
	checkPicture(t, ctx, "scenario.json at "+width)
}

// planScenario loads examples/scenarios/xflex-plan.json (a scenario of
// X-Flex plans: K = 4, 6, 8 under two bound settings) as a file and runs
// it: a comparison column per variant, and one picture whose variants'
// panels fit the page and share their time, container and utilisation
// scales (checkFits fails panels of one scale that top apart).
func planScenario(t *testing.T, ctx context.Context) {
	path, err := filepath.Abs(filepath.Join("..", "..", "examples", "scenarios", "xflex-plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	js[any](t, ctx, `document.getElementById("file").value = ""`)
	before := js[string](t, ctx, `document.body.dataset.finished`)
	do(t, ctx, "choose xflex-plan.json", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{path}),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.finished !== %q`, before),
			chromedp.WithPollingTimeout(20*time.Second)))
	if p := js[string](t, ctx, `document.getElementById("problem").value`); p != "xflex/plan" {
		t.Fatalf("the plan scenario loaded as problem %q", p)
	}
	if st, msg := act(t, ctx, "#run-scenario", ""); st != "done" {
		t.Fatalf("plan scenario: status %s: %s", st, msg)
	}
	heads := js[[]string](t, ctx, `[...document.querySelectorAll("#comparison thead th")].map(e => e.textContent)`)
	if want := []string{"figure", "base", "k6", "k8", "k4-bound5", "k6-bound5", "k8-bound5"}; fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("comparison columns %v, want %v", heads, want)
	}
	f := checkPicture(t, ctx, "plan scenario")
	for _, sc := range []string{"time", "utilisation", "containers"} {
		if len(f.Scales[sc]) < 6 {
			t.Errorf("plan scenario: scale %q drawn by %d panels, want one or more per variant (6): %v", sc, len(f.Scales[sc]), f.Scales)
		}
	}
}

// schemaForm checks the fields generated from xsize's request schema (k,
// epsilon, budget_ms, seed) follow the editor, and that a field's change
// rewrites only its value in the editor's text.
func schemaForm(t *testing.T, ctx context.Context) {
	choose(t, ctx, "xsize")
	do(t, ctx, "fields", chromedp.Poll[chromedp.Void](`document.querySelector('#fields [data-pointer="/k"]') !== null`,
		chromedp.WithPollingTimeout(10*time.Second)))
	fields := js[[]string](t, ctx, `[...document.querySelectorAll("#fields [data-pointer]")].map(e => e.dataset.pointer)`)
	for _, want := range []string{"/k", "/epsilon", "/budget_ms", "/seed", "/baselines"} {
		if !strings.Contains(strings.Join(fields, " "), want) {
			t.Errorf("fields %v lack %s", fields, want)
		}
	}
	ex, _ := examples.Request("xsize")
	var req map[string]any
	if err := json.Unmarshal(ex, &req); err != nil {
		t.Fatal(err)
	}
	if k := js[string](t, ctx, `document.querySelector('#fields [data-pointer="/k"]').value`); k != fmt.Sprint(req["k"]) {
		t.Errorf("the k field shows %q, the example has k = %v", k, req["k"])
	}
	js[any](t, ctx, `(() => { const e = document.querySelector('#fields [data-pointer="/k"]');
		e.value = "2"; e.dispatchEvent(new Event("change")); })()`)
	got := js[string](t, ctx, `document.getElementById("request").value`)
	if want := strings.Replace(string(ex), fmt.Sprintf(`"k": %v`, req["k"]), `"k": 2`, 1); got != want || got == string(ex) {
		t.Errorf("after k = 2 in its field the editor holds:\n%s\nwant the example with only k changed", got)
	}
	setValue(t, ctx, "request", strings.Replace(got, `"k": 2`, `"k": 3`, 1))
	do(t, ctx, "field follows the editor", chromedp.Poll[chromedp.Void](
		`document.querySelector('#fields [data-pointer="/k"]').value === "3"`, chromedp.WithPollingTimeout(10*time.Second)))
}

// compare runs cmmf's example twice with different seeds as jobs, ticks
// both in the job list and compares them: a column per job, a CSV of the
// table, and both pictures, each fitting the page.
func compare(t *testing.T, ctx context.Context) {
	choose(t, ctx, "cmmf")
	var ids []string
	for _, seed := range []string{"1", "2"} {
		js[any](t, ctx, `(() => { const e = document.querySelector('#fields [data-pointer="/seed"]');
			e.value = "`+seed+`"; e.dispatchEvent(new Event("change")); })()`)
		if st, msg := act(t, ctx, "#run-job", ""); st != "done" {
			t.Fatalf("job: %s %s", st, msg)
		}
		ids = append(ids, js[string](t, ctx, `document.getElementById("status").textContent.split(" ")[1]`))
	}
	do(t, ctx, "job list", chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('#job-list input.pick[value=%q]') !== null`, ids[0]),
		chromedp.WithPollingTimeout(10*time.Second)))
	js[any](t, ctx, fmt.Sprintf(`[%q, %q].forEach(id => document.querySelector('#job-list input.pick[value="' + id + '"]').checked = true)`, ids[0], ids[1]))
	if st, msg := act(t, ctx, "#compare-jobs", ""); st != "done" {
		t.Fatalf("compare: %s %s", st, msg)
	}
	heads := js[[]string](t, ctx, `[...document.querySelectorAll("#compare-table thead th")].map(e => e.textContent)`)
	if len(heads) != 3 || heads[1] != ids[0] || heads[2] != ids[1] {
		t.Errorf("comparison heads %v, want figure and %v", heads, ids)
	}
	csv := js[string](t, ctx, `(() => { const a = document.getElementById("dl-csv");
		return a.href.startsWith("blob:") ? a.download + "\n" + a.csv : ""; })()`)
	if !strings.HasPrefix(csv, "compare-cmmf.csv\nfigure,"+ids[0]+","+ids[1]+"\r\n") || !strings.Contains(csv, "\r\nstatus,") {
		t.Errorf("CSV download:\n%s", csv)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("#compare-pictures figure svg").length`); n != 2 {
		t.Fatalf("%d pictures compared, want 2", n)
	}
	var fits [2]fit
	for i := range 2 {
		fits[i] = checkFits(t, ctx, "compared picture", fmt.Sprintf("#compare-pictures figure:nth-child(%d) > svg", i+1))
	}
	// The two pictures are drawn on shared scales (?with=): every scale
	// both draw tops at the same tick in both.
	shared := 0
	for name, tops := range fits[0].Scales {
		if other, ok := fits[1].Scales[name]; ok && len(tops) > 0 && len(other) > 0 {
			shared++
			if tops[0] != other[0] {
				t.Errorf("compared pictures top scale %q at %v and %v, want one value", name, tops, other)
			}
		}
	}
	if shared == 0 {
		t.Errorf("the compared pictures share no scale: %v and %v", fits[0].Scales, fits[1].Scales)
	}
	saveScreenshot(t, ctx, "#compare", "ui-compare")
}
