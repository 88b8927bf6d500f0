package progress_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/progress"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestMark: every status the runner gives a flow or a step has its mark,
// the printer reading the statuses by their text.
func TestMark(t *testing.T) {
	for st, want := range map[report.Status]string{
		report.StatusPassed: "ok", report.StatusSkipped: "--", report.StatusFailed: "FAIL",
		report.StatusBlocked: "BLOCKED", report.StatusInvalid: "INVALID", report.StatusUnavailable: "UNAVAILABLE",
		report.StatusInterrupted: "FAIL",
	} {
		if got := progress.Mark(string(st)); got != want {
			t.Errorf("Mark(%s) = %q, want %q", st, got, want)
		}
	}
}

// TestPrinter_Terminal: on a terminal a running step shows a line that its
// end redraws in place; a held step (a parallel run's, printed after the
// fact) and a file have no line to redraw.
func TestPrinter_Terminal(t *testing.T) {
	start := event.StepStart{Depth: 0, Path: "1", Label: "click"}
	end := event.StepEnd{Depth: 0, Path: "1", Label: "click", Status: "passed", Duration: 1500 * time.Millisecond}
	for _, tc := range []struct {
		name string
		tty  bool
		held bool
		want string
	}{
		{"Terminal", true, false, "  … 1 click\r\x1b[K  ok 1 click (1.5s)\n"},
		{"Held", true, true, "  … 1 click  ok 1 click (1.5s)\n"},
		{"File", false, false, "  ok 1 click (1.5s)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := progress.New(&b, tc.tty, false)
			e := end
			e.Held = tc.held
			p.Emit(start)
			p.Emit(e)
			if b.String() != tc.want {
				t.Errorf("printed %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestPrinter_OneWrite: events emitted together reach the writer in one
// write, so a parallel run's flow does not interleave with another's; a
// step's line is masked whole.
func TestPrinter_OneWrite(t *testing.T) {
	var writes []string
	p := progress.New(writerFunc(func(b []byte) { writes = append(writes, string(b)) }), false, false)
	mask := func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }
	p.Emit(event.FlowStart{Name: "pay", File: "pay.yaml", Attempt: 2, Worker: 1, Parallel: true},
		event.StepEnd{Path: "1", Label: "log", Status: "passed", Note: "using s3cret", Mask: mask, Held: true},
		event.FlowEnd{Name: "pay", Status: "failed", Error: "x", Hint: "try again"})
	want := "flow pay (pay.yaml), attempt 2, worker 1\n  ok 1 log (0ms) — using ***\nFAIL pay failed (0ms): x\n  hint: try again\n"
	if len(writes) != 1 || writes[0] != want {
		t.Errorf("writes %q, want one: %q", writes, want)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }
