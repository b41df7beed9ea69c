package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/jobs"
)

// fakeTerminal is a terminal of a given width for the progress bar and the
// tables: an mpb.ConsoleWriter that keeps every frame mpb flushes, and a
// writer that says it is a terminal (isTerminal).
type fakeTerminal struct {
	width  int
	broken bool

	mu     sync.Mutex
	buf    bytes.Buffer
	frames []string
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *fakeTerminal) ReadFrom(r io.Reader) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.ReadFrom(r)
}

func (f *fakeTerminal) IsTerminal() bool               { return true }
func (f *fakeTerminal) GetTermSize() (int, int, error) { return f.width, 24, nil }

// Flush ends a frame; it fails once broken is set (a closed terminal).
func (f *fakeTerminal) Flush(lines int) error {
	f.cut()
	if f.broken {
		return errors.New("write /dev/pts/0: input/output error")
	}
	return nil
}

// waitFrames waits until n frames were flushed: mpb renders on its own
// goroutine, so a test that wants a frame per status waits for each.
func (f *fakeTerminal) waitFrames(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		f.mu.Lock()
		got := len(f.frames)
		f.mu.Unlock()
		if got >= n {
			return
		}
	}
	t.Fatalf("%d frames drawn, want %d", len(f.frames), n)
}

// rows is every row written (each frame's lines) and all the output.
func (f *fakeTerminal) rows() ([]string, string) {
	f.cut()
	f.mu.Lock()
	defer f.mu.Unlock()
	var rows []string
	for _, fr := range f.frames {
		rows = append(rows, strings.Split(strings.TrimSuffix(fr, "\n"), "\n")...)
	}
	return rows, strings.Join(f.frames, "")
}

// cut ends the current frame.
func (f *fakeTerminal) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buf.Len() > 0 {
		f.frames = append(f.frames, f.buf.String())
		f.buf.Reset()
	}
}

// longStatuses are the statuses of a scenario job with the longest details
// a solver sends: every redraw's text is wider than 60 columns.
func longStatuses(start time.Time) []solveStatus {
	obj, bound, frac := 123456789.123, 987654321.987, 0.25
	done, total := 3, 32
	p := jobs.Progress{Phase: "bisection-with-a-long-phase-name", Objective: &obj, Bound: &bound,
		VariantsDone: &done, VariantsTotal: &total}
	running := solveStatus{State: "running", Progress: p, Started: start, Budget: 90 * time.Second}
	withFraction := running
	withFraction.Progress.Fraction = &frac
	withFraction.Progress.BudgetUsed = progress.F(0.5)
	final := withFraction
	final.State, final.Done, final.OK, final.Elapsed = "succeeded", true, true, 61*time.Second
	return []solveStatus{{State: "queued", Progress: jobs.Progress{Phase: "queued"}}, running, withFraction, final}
}

// TestBarFitsTerminal: on a 60-column terminal (and narrower ones) no
// redraw of the bar is wider than the terminal, however long the text;
// the bar keeps its minimum width, and the last frame shows the end.
func TestBarFitsTerminal(t *testing.T) {
	for _, width := range []int{60, 40, 24} {
		term := &fakeTerminal{width: width}
		d := newDisplay(term, false, true)
		if _, ok := d.(*barDisplay); !ok {
			t.Fatalf("display on a terminal is %T, want a bar", d)
		}
		statuses := longStatuses(time.Now().Add(-30 * time.Second))
		for i, s := range statuses[:len(statuses)-1] {
			d.update(s)
			term.waitFrames(t, i+1)
		}
		d.finish(statuses[len(statuses)-1])
		rows, all := term.rows()
		if len(rows) < len(statuses) {
			t.Fatalf("width %d: %d rows drawn for %d statuses: %q", width, len(rows), len(statuses), all)
		}
		for _, r := range rows {
			if w := runewidth.StringWidth(r); w > width {
				t.Errorf("width %d: a redraw is %d columns wide: %q", width, w, r)
			}
			if !strings.Contains(r, "[") {
				t.Errorf("width %d: a redraw lost its bar: %q", width, r)
			}
		}
		last := rows[len(rows)-1]
		if width == 60 && (!strings.Contains(last, "100%") || !strings.Contains(last, "1m1s  succeeded")) {
			t.Errorf("last frame %q, want 100%% and the final state with the elapsed time", last)
		}
	}
}

// TestBarShowsBudget: the text after the bar gives the time elapsed and
// the time left in the budget.
func TestBarShowsBudget(t *testing.T) {
	term := &fakeTerminal{width: 100}
	d := newDisplay(term, false, true)
	start := time.Now().Add(-2 * time.Second)
	d.update(solveStatus{State: "running", Progress: jobs.Progress{Phase: "solving", BudgetUsed: progress.F(0.4)}, Started: start, Budget: 5 * time.Second})
	term.waitFrames(t, 1)
	// A later, staler estimate (7 s) does not replace the closer one.
	d.update(solveStatus{State: "running", Progress: jobs.Progress{Phase: "solving", BudgetUsed: progress.F(0.3)}, Started: start, Budget: 7 * time.Second})
	term.waitFrames(t, 2)
	d.finish(solveStatus{State: "failed", Done: true, Started: start, Elapsed: 3 * time.Second})
	rows, all := term.rows()
	if len(rows) < 3 || !strings.Contains(rows[0], "40%") || !strings.Contains(rows[0], "2s, 3s left  running solving") ||
		!strings.Contains(rows[1], "2s, 3s left") {
		t.Errorf("running frames %q, want 40%% and \"2s, 3s left\" (of 5 s) twice", all)
	}
	if last := rows[len(rows)-1]; !strings.Contains(last, "3s  failed") || strings.Contains(last, "left") {
		t.Errorf("final frame %q, want the elapsed time and no time left", last)
	}
}

// TestNoBarOffTerminal: a writer that is not a terminal gets lines without
// a bar (or nothing), and --quiet silences even a terminal.
func TestNoBarOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	statuses := longStatuses(time.Now())
	for _, c := range []struct {
		d     display
		lines bool
	}{{newDisplay(&buf, false, true), true}, {newDisplay(&buf, false, false), false}, {newDisplay(&fakeTerminal{width: 60}, true, true), false}} {
		buf.Reset()
		for _, s := range statuses {
			c.d.update(s)
		}
		c.d.finish(statuses[len(statuses)-1])
		switch {
		case !c.lines && buf.Len() > 0:
			t.Errorf("%T wrote %q, want nothing", c.d, buf.String())
		case c.lines && (strings.Count(buf.String(), "\n") != 3 || strings.ContainsAny(buf.String(), "[#\r\x1b")):
			t.Errorf("log lines %q, want one per state and no bar", buf.String())
		}
	}
	if d := newDisplay(&fakeTerminal{width: 60}, true, true); d != (nopDisplay{}) {
		t.Errorf("--quiet on a terminal: %T", d)
	}
}

func TestJobStatusBudget(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := jobs.Job{State: jobs.StateRunning, StartedAt: &start, Progress: jobs.Progress{BudgetUsed: progress.F(0.25)}}
	s := jobStatus(j, start.Add(3*time.Second))
	if s.Budget != 12*time.Second {
		t.Errorf("budget %s from 3 s at 25%%, want 12s", s.Budget)
	}
	if got := s.timeText(start.Add(3 * time.Second)); got != "3s, 9s left" {
		t.Errorf("time text %q", got)
	}
}

// TestSolveBar: `xflex solve` draws its bar on a terminal stderr, within
// the width, ending with the answer's status, and prints the same answer
// as without one; --quiet and a stderr that is not a terminal get nothing.
func TestSolveBar(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "cmmf.json")
	plain, errs, code := runCLI(t, "solve", "cmmf", example)
	if code != 0 || errs != "" {
		t.Fatalf("solve: exit %d, stderr %q", code, errs)
	}
	term := &fakeTerminal{width: 60}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"solve", "cmmf", example}, strings.NewReader(""), &out, term); code != 0 {
		t.Fatalf("solve on a terminal: exit %d", code)
	}
	if stripElapsed(out.Bytes()) != stripElapsed([]byte(plain)) {
		t.Errorf("the answer differs with a bar:\n%s\n%s", out.String(), plain)
	}
	rows, all := term.rows()
	if len(rows) == 0 || !regexp.MustCompile(`^100% \[#+\] [0-9.]+m?s  optimal( obj [0-9.e+-]+)?( bound [0-9.e+-]+)?$`).MatchString(rows[len(rows)-1]) {
		t.Errorf("bar %q, want a last frame at 100%% with the status and no solver phase", all)
	}
	for _, r := range rows {
		if runewidth.StringWidth(r) > 60 {
			t.Errorf("a redraw is wider than 60 columns: %q", r)
		}
	}
	quiet := &fakeTerminal{width: 60}
	if code := run(context.Background(), []string{"solve", "--quiet", "cmmf", example}, strings.NewReader(""), io.Discard, quiet); code != 0 {
		t.Fatalf("solve --quiet: exit %d", code)
	}
	if _, all := quiet.rows(); all != "" {
		t.Errorf("solve --quiet drew %q", all)
	}
}

// TestBarOnBrokenTerminal: when writing to the terminal fails, mpb stops
// rendering; the display's updates and finish return all the same, so a
// wait or a solve never hangs on its progress bar.
func TestBarOnBrokenTerminal(t *testing.T) {
	d := newDisplay(&fakeTerminal{width: 60, broken: true}, false, true)
	statuses := longStatuses(time.Now())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			for _, s := range statuses[:len(statuses)-1] {
				d.update(s)
			}
		}
		d.finish(statuses[len(statuses)-1])
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("updates block once the terminal fails")
	}
}
