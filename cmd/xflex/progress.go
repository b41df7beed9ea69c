package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/mattn/go-runewidth"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/xflex/xflex/jobs"
)

// The progress of a solve the CLI waits for (`xflex jobs wait`, `xflex
// jobs submit --wait`, `xflex solve`) is shown on stderr: a bar on a
// terminal, drawn by github.com/vbauerster/mpb/v8; a plain line per change
// of state or phase elsewhere (jobs only: logs and CI keep a record, and
// `xflex solve` in a script stays silent); nothing with --quiet.
//
// mpb rather than github.com/schollz/progressbar/v3 (v3.19.1), measured on
// this bar (a 3 s budget, 12 updates, details as long as a scenario's) in
// a 60-column pty: progressbar wrapped every redraw (25 of 25 rows wider
// than 60 columns, up to 78) because it shrinks only the bar, never the
// text, and it reads the terminal width from an *os.File only, so no test
// can set it; mpb kept every redraw within 60 columns (0 of 22 wider) by
// truncating decorators to the width left, and reads the width through
// its ConsoleWriter interface, which a test implements. Its ETA helpers
// estimate from the rate of increments; ours comes from the budget
// (timeLeft), which bounds the solve.

// solveStatus is what a display shows of a solve at one moment.
type solveStatus struct {
	// State is a job state (queued, running, succeeded, failed,
	// cancelled) or, for `xflex solve`, "solving" and then the answer's
	// meta.status.
	State    string
	Progress jobs.Progress
	// Started is when the solve started (zero while queued), on this
	// machine's clock; Budget is the solve's budget, zero when unknown.
	Started time.Time
	Budget  time.Duration
	// Elapsed is the solve's final duration once it ended, else zero (the
	// display measures it from Started).
	Elapsed time.Duration
	// Done and OK say that the solve ended, and whether it succeeded.
	Done, OK bool
}

// jobStatus is the status of job j as polled at now. The budget is
// estimated from budget_used (the share of the budget elapsed, which the
// server reports) and the time since started_at: exact when the client and
// the server share a clock, as on one host.
func jobStatus(j jobs.Job, now time.Time) solveStatus {
	s := solveStatus{State: string(j.State), Progress: j.Progress, Done: j.State.Terminal(), OK: j.State == jobs.StateSucceeded}
	if j.StartedAt == nil {
		return s
	}
	s.Started = *j.StartedAt
	if j.FinishedAt != nil {
		s.Elapsed = max(j.FinishedAt.Sub(s.Started), 0)
	}
	if u := j.Progress.BudgetUsed; u != nil && *u > 0 && *u < 1 && !s.Done {
		s.Budget = time.Duration(float64(max(now.Sub(s.Started), 0)) / *u)
	}
	return s
}

// fraction is the share of the solve done, and whether it is known: the
// solver's own fraction, else the share of the budget used.
func (s solveStatus) fraction() (float64, bool) {
	p := s.Progress
	switch {
	case s.OK:
		return 1, true
	case p.Fraction != nil:
		return min(max(*p.Fraction, 0), 1), true
	case p.BudgetUsed != nil:
		return min(max(*p.BudgetUsed, 0), 1), true
	}
	return 0, false
}

// percent is the fraction as "42%", or "?%" when unknown.
func (s solveStatus) percent() string {
	if f, ok := s.fraction(); ok {
		return fmt.Sprintf("%3.0f%%", f*100)
	}
	return " ?%"
}

// details names the state and what the solver reported: phase, scenario
// variants, objective and bound.
func (s solveStatus) details() string {
	p := s.Progress
	var b strings.Builder
	b.WriteString(s.State)
	if p.Phase != "" && p.Phase != s.State {
		b.WriteString(" " + p.Phase)
	}
	if p.VariantsTotal != nil && p.VariantsDone != nil {
		fmt.Fprintf(&b, " variants %d/%d", *p.VariantsDone, *p.VariantsTotal)
	}
	if p.Objective != nil {
		fmt.Fprintf(&b, " obj %.6g", *p.Objective)
	}
	if p.Bound != nil {
		fmt.Fprintf(&b, " bound %.6g", *p.Bound)
	}
	return b.String()
}

// timeText is the time the solve has run and, while it runs with a known
// budget, the time left before the budget ends (the latest the answer
// comes): "1.2s, 0.8s left". Empty before the solve starts.
func (s solveStatus) timeText(now time.Time) string {
	if s.Started.IsZero() {
		return ""
	}
	elapsed := s.Elapsed
	if !s.Done {
		elapsed = max(now.Sub(s.Started), 0)
	}
	t := roundDuration(elapsed).String()
	if !s.Done && s.Budget > 0 {
		t += ", " + roundDuration(max(s.Budget-elapsed, 0)).String() + " left"
	}
	return t
}

// roundDuration rounds d for display: to the millisecond under a second,
// to 0.1 s under a minute, to the second above.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// line is the status as one line of text, for logs: "running bisection
// obj 1.25 bound 2  42%  1.2s, 0.8s left".
func (s solveStatus) line(now time.Time) string {
	parts := []string{s.details(), strings.TrimSpace(s.percent())}
	if t := s.timeText(now); t != "" {
		parts = append(parts, t)
	}
	return strings.Join(parts, "  ")
}

// display shows the progress of one solve.
type display interface {
	// update shows s; finish shows the final s and ends the display.
	update(s solveStatus)
	finish(s solveStatus)
}

// newDisplay returns the display for w: a bar when w is a terminal, else
// a line per change of state or phase when lines is set, else nothing;
// nothing at all when quiet.
func newDisplay(w io.Writer, quiet, lines bool) display {
	switch {
	case quiet:
		return nopDisplay{}
	case isTerminal(w):
		return newBarDisplay(w)
	case lines:
		return &lineDisplay{w: w}
	}
	return nopDisplay{}
}

// isTerminal reports whether w is a terminal: an *os.File on one, or a
// writer that says so (a test's fake terminal).
func isTerminal(w io.Writer) bool {
	switch t := w.(type) {
	case interface{ IsTerminal() bool }:
		return t.IsTerminal()
	case *os.File:
		return isatty.IsTerminal(t.Fd()) || isatty.IsCygwinTerminal(t.Fd())
	}
	return false
}

type nopDisplay struct{}

func (nopDisplay) update(solveStatus) {}
func (nopDisplay) finish(solveStatus) {}

// lineDisplay writes a line when the state or phase changes, and the final
// status.
type lineDisplay struct {
	w    io.Writer
	last string
}

func (d *lineDisplay) update(s solveStatus) {
	key := s.State + "/" + s.Progress.Phase
	if key != d.last {
		fmt.Fprintln(d.w, s.line(time.Now()))
		d.last = key
	}
}

func (d *lineDisplay) finish(s solveStatus) { d.update(s) }

// Widths of the bar, in columns: it gets up to barMaxWidth, and the text
// after it is cut so that at least barMinWidth remain.
const (
	barMaxWidth = 30
	barMinWidth = 10
)

// barDisplay draws one bar with mpb: "42% [####......] 1.2s, 0.8s left
// running bisection obj 1.25". It renders once per update (manual
// refresh), so the line changes as often as the status is polled and a
// test sees every frame.
type barDisplay struct {
	p       *mpb.Progress
	bar     *mpb.Bar
	refresh chan any
	// stopped is closed when mpb shuts down, after finish or on its own
	// when writing to the terminal failed; refresh is then not read.
	stopped chan any

	mu     sync.Mutex
	status solveStatus
}

// barTotal is the bar's total: fractions are drawn in thousandths.
const barTotal = 1000

// newBarDisplay starts a bar on w. A w that implements mpb.ConsoleWriter
// is used as the terminal (its width included), else mpb's writer for w.
func newBarDisplay(w io.Writer) *barDisplay {
	d := &barDisplay{refresh: make(chan any), stopped: make(chan any)}
	opts := []mpb.ContainerOption{mpb.WithOutput(w), mpb.WithWidth(barMaxWidth), mpb.WithManualRefresh(d.refresh),
		mpb.WithShutdownNotifier(d.stopped), mpb.WithDebugOutput(io.Discard)}
	if cw, ok := w.(mpb.ConsoleWriter); ok {
		opts = append(opts, mpb.WithConsoleWriter(cw))
	}
	d.p = mpb.New(opts...)
	style := mpb.BarStyle().Lbound("[").Filler("#").Tip("#").Padding(".").Rbound("]")
	d.bar = d.p.New(barTotal, style,
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return d.current().percent() })),
		mpb.AppendDecorators(decor.Any(d.text)),
	)
	return d
}

func (d *barDisplay) current() solveStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.status
}

// text is what follows the bar, cut to leave the bar barMinWidth columns
// and its two spaces.
func (d *barDisplay) text(st decor.Statistics) string {
	s := d.current()
	t := s.details()
	if tt := s.timeText(time.Now()); tt != "" {
		t = tt + "  " + t
	}
	room := max(st.AvailableWidth-2-barMinWidth, 0)
	return runewidth.Truncate(t, room, "…")
}

// set stores s with the smallest budget estimate seen: a job's budget is
// estimated from a budget_used the server computed up to one heartbeat
// earlier, so every estimate is at least the budget and the smallest is
// the closest (and the share used stops at 1, giving none).
func (d *barDisplay) set(s solveStatus) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.status.Budget; b > 0 && !s.Done && (s.Budget == 0 || s.Budget > b) {
		s.Budget = b
	}
	d.status = s
}

func (d *barDisplay) update(s solveStatus) {
	d.set(s)
	f, _ := s.fraction()
	d.bar.SetCurrent(int64(f * barTotal * 0.999)) // below the total: the bar completes in finish
	select {
	case d.refresh <- time.Now():
	case <-d.stopped:
	}
}

// finish draws the final status and waits until mpb has written it: a
// complete bar for a success, the bar as it stood otherwise.
func (d *barDisplay) finish(s solveStatus) {
	d.set(s)
	if s.OK {
		d.bar.SetCurrent(barTotal)
	} else {
		f, _ := s.fraction()
		d.bar.SetCurrent(int64(f * barTotal * 0.999))
		d.bar.Abort(false)
	}
	d.p.Wait()
}
