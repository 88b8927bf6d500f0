package progress_test

import (
	"testing"

	"github.com/bua-dev/bua/pkg/runner"
	"github.com/bua-dev/bua/pkg/runner/progress"
)

// TestMark: every status the runner gives a flow or a step has its mark,
// the printer reading the statuses by their text.
func TestMark(t *testing.T) {
	for st, want := range map[runner.Status]string{
		runner.StatusPassed: "ok", runner.StatusSkipped: "--", runner.StatusFailed: "FAIL",
		runner.StatusBlocked: "BLOCKED", runner.StatusInvalid: "INVALID", runner.StatusUnavailable: "UNAVAILABLE",
		runner.StatusInterrupted: "FAIL",
	} {
		if got := progress.Mark(string(st)); got != want {
			t.Errorf("Mark(%s) = %q, want %q", st, got, want)
		}
	}
}
