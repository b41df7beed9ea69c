package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/xflex/xflex/jobs"
)

// How `xflex jobs` prints a job or a list: the JSON the server sent, byte
// for byte, with --json or when stdout is not a terminal (pipes, files,
// scripts); an aligned table on a terminal. Tables use text/tabwriter from
// the standard library: plain aligned columns (as kubectl and docker print
// them) need nothing more, and github.com/olekukonko/tablewriter (v1.1.5),
// whose borders and cell wrapping we do not want, would add six modules to
// the build (itself, olekukonko/cat, errors and ll, fatih/color and
// clipperhouse/displaywidth).

// wantJSON reports whether output to stdout is JSON.
func wantJSON(stdout io.Writer, asked bool) bool { return asked || !isTerminal(stdout) }

// writeJob prints a job body: as sent, or as a table when table is set
// and the body decodes.
func writeJob(w io.Writer, body []byte, table bool, now time.Time) {
	var j jobs.Job
	if !table || json.Unmarshal(body, &j) != nil || j.ID == "" {
		_, _ = w.Write(body)
		return
	}
	writeJobTable(w, j, now)
}

// writeJobList prints a GET /v1/jobs body: as sent, or as a table.
func writeJobList(w io.Writer, body []byte, table bool, now time.Time) {
	var l jobs.JobList
	if !table || json.Unmarshal(body, &l) != nil || l.Jobs == nil {
		_, _ = w.Write(body)
		return
	}
	writeListTable(w, l, now)
}

// writeJobTable prints one job as rows of name and value.
func writeJobTable(w io.Writer, j jobs.Job, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name, value string) {
		if value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", name, value)
		}
	}
	s := jobStatus(j, now)
	p := j.Progress
	row("id", j.ID)
	row("problem", j.Problem)
	row("kind", j.Kind)
	state := string(j.State)
	if j.CancelRequested && !s.Done {
		state += ", cancel requested"
	}
	row("state", state)
	if p.Phase != string(j.State) {
		row("phase", p.Phase)
	}
	if f, ok := s.fraction(); ok && !s.Done {
		row("progress", fmt.Sprintf("%.0f%%", f*100))
	}
	if p.VariantsTotal != nil && p.VariantsDone != nil {
		row("variants", fmt.Sprintf("%d of %d done", *p.VariantsDone, *p.VariantsTotal))
	}
	if p.Objective != nil {
		row("objective", fmt.Sprintf("%.6g", *p.Objective))
	}
	if p.Bound != nil {
		row("bound", fmt.Sprintf("%.6g", *p.Bound))
	}
	row("created", when(j.CreatedAt, now))
	if j.StartedAt != nil {
		row("started", when(*j.StartedAt, now))
	}
	if j.FinishedAt != nil {
		row("finished", when(*j.FinishedAt, now)+", ran "+s.timeText(now))
	}
	if e := j.Error; e != nil {
		row("error", strings.TrimSpace(fmt.Sprintf("%s (%d) %s", e.Title, e.Status, e.Detail)))
	}
	for _, v := range j.Variants {
		row("variant", v.Name+": "+jobStatus(jobs.Job{State: v.State, Progress: v.Progress}, now).details())
	}
	row("message", p.Message)
	row("tenant", j.Tenant)
	row("attempts", fmt.Sprint(j.Attempts))
	if j.State == jobs.StateSucceeded || j.Error != nil {
		row("result", "xflex jobs result "+j.ID)
	}
	if j.ExpiresAt != nil {
		row("expires", when(*j.ExpiresAt, now))
	}
	_ = tw.Flush()
}

// writeListTable prints a page of jobs, one a row, and how to get the next
// page.
func writeListTable(w io.Writer, l jobs.JobList, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROBLEM\tKIND\tSTATE\tPROGRESS\tCREATED\tRAN")
	for _, j := range l.Jobs {
		s := jobStatus(j, now)
		progress := "-"
		if f, ok := s.fraction(); ok {
			progress = fmt.Sprintf("%.0f%%", f*100)
		}
		ran := s.timeText(now)
		if s.Started.IsZero() {
			ran = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Problem, j.Kind, j.State, progress, ago(j.CreatedAt, now), ran)
	}
	_ = tw.Flush()
	if len(l.Jobs) == 0 {
		fmt.Fprintln(w, "no jobs")
	}
	if l.NextCursor != "" {
		fmt.Fprintf(w, "more: xflex jobs list --cursor %s\n", l.NextCursor)
	}
}

// when is t in local time to the second, with how long ago it was.
func when(t, now time.Time) string {
	return t.Local().Format("2006-01-02 15:04:05 MST") + " (" + ago(t, now) + ")"
}

// ago is how long before now t was ("3m10s ago"), or after ("in 23h").
func ago(t, now time.Time) string {
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		return "in " + (-d).String()
	}
	return d.String() + " ago"
}
