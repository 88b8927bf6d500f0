package runner

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestRun_UIDMissNamesRoles: in a flow, the step's error names the roles
// the page has, after the re-extract recovery read it again.
func TestRun_UIDMissNamesRoles(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(runnertest.Page("textbox", "Email", "link", "Forgot password?")))
	rec, _ := runFlow(t, fake, `
name: miss
steps:
  - extract: {}
    as: page
  - click: { uid: "${{ uid(page, 'button', '(?i)sign in') }}" }
`)
	wantStatus(t, rec, report.StatusFailed)
	e := rec.Steps[1].Error
	if e == nil || !strings.Contains(e.Message, "which has no button; the roles it has: link (1), textbox (1)") {
		t.Errorf("error = %+v, want the page's roles named", e)
	}
}
