// Package progress prints the flow engine's events (pkg/runner/event) as
// the progress lines of `bua run`: a line per flow run and per step, its
// mark (ok, FAIL, BLOCKED, ...) painted on a colour terminal, and on a
// terminal a running step's line redrawn in place when it ends.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/bua-dev/bua/pkg/iostreams"
	"github.com/bua-dev/bua/pkg/runner/event"
)

// Printer is an event.Sink that writes progress lines to a writer.
type Printer struct {
	w          io.Writer
	tty, color bool
}

// New is a Printer writing to w. tty says w is a terminal, where a
// running step's line is shown and redrawn in place when it ends; color
// paints the marks (ok green, FAIL and the other failures red).
func New(w io.Writer, tty, color bool) *Printer {
	return &Printer{w: w, tty: tty, color: color}
}

// Emit prints events, in one write: a parallel run's flow reaches the
// writer whole.
func (p *Printer) Emit(events ...event.Event) {
	var b bytes.Buffer
	for _, ev := range events {
		p.format(&b, ev)
	}
	if b.Len() > 0 {
		_, _ = p.w.Write(b.Bytes())
	}
}

func (p *Printer) format(b *bytes.Buffer, ev event.Event) {
	switch ev := ev.(type) {
	case event.FlowStart:
		line := fmt.Sprintf("flow %s (%s)", ev.Name, ev.File)
		if ev.Attempt > 1 {
			line += fmt.Sprintf(", attempt %d", ev.Attempt)
		}
		if ev.Parallel {
			line += fmt.Sprintf(", worker %d", ev.Worker)
		}
		fmt.Fprintln(b, line)
	case event.StepStart:
		if p.tty {
			fmt.Fprintf(b, "%s… %s %s", strings.Repeat("  ", ev.Depth+1), ev.Path, ev.Label)
		}
	case event.StepEnd:
		p.stepEnd(b, ev)
	case event.FlowEnd:
		p.flowEnd(b, ev)
	case event.Rerun:
		fmt.Fprintf(b, "  rerunning %s (attempt %d of at most %d)\n", ev.Name, ev.Attempt, ev.Attempts)
	case event.Notice:
		fmt.Fprintln(b, ev.Text)
	}
}

func (p *Printer) stepEnd(b *bytes.Buffer, ev event.StepEnd) {
	prefix := ""
	if p.tty && !ev.Held {
		prefix = "\r\x1b[K"
	}
	line := fmt.Sprintf("%s%s%s %s %s (%s)", prefix, strings.Repeat("  ", ev.Depth+1), p.mark(ev.Status), ev.Path, ev.Label, event.FormatDuration(ev.Duration))
	if ev.Note != "" {
		line += " — " + ev.Note
	}
	if ev.Error != nil {
		// Whole: an assert's message may span lines, and its values
		// come after it.
		line += " — " + ev.Error.Code + ": " + indentLines(ev.Error.Message, strings.Repeat("  ", ev.Depth+2))
	}
	if ev.Mask != nil {
		line = ev.Mask(line)
	}
	fmt.Fprintln(b, line)
}

func (p *Printer) flowEnd(b *bytes.Buffer, ev event.FlowEnd) {
	line := fmt.Sprintf("%s %s %s (%s)", p.mark(ev.Status), ev.Name, ev.Status, event.FormatDuration(ev.Duration))
	// An invalid flow's error is its diagnostics, printed below: said once.
	if ev.Error != "" && len(ev.Diagnostics) == 0 {
		line += ": " + indentLines(ev.Error, "  ")
	} else if ev.Flaky {
		first, _, _ := strings.Cut(ev.FlakyNote, "\n")
		line += ", flaky: " + first
	}
	if ev.Hint != "" {
		line += "\n  hint: " + ev.Hint
	}
	fmt.Fprintln(b, line)
	for _, d := range ev.Diagnostics {
		fmt.Fprintln(b, "  "+strings.ReplaceAll(d, "\n", "\n  "))
	}
}

// mark is Mark, painted when p.color: a skip stays plain.
func (p *Printer) mark(status string) string {
	m := Mark(status)
	switch {
	case !p.color || status == "skipped":
		return m
	case status == "passed":
		return iostreams.Color(true, iostreams.Green, m)
	}
	return iostreams.Color(true, iostreams.Red, m)
}

// Mark is a status's mark on a progress line (the statuses are
// report.Status's): ok, --, BLOCKED, INVALID, UNAVAILABLE, else FAIL.
func Mark(status string) string {
	switch status {
	case "passed":
		return "ok"
	case "skipped":
		return "--"
	case "blocked":
		return "BLOCKED"
	case "invalid":
		return "INVALID"
	case "unavailable":
		return "UNAVAILABLE"
	}
	return "FAIL"
}

// indentLines is s with each line after the first indented by indent, so
// a multi-line error (an assert's interpolated message, then the values
// it read) prints whole under the line it starts on.
func indentLines(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}
