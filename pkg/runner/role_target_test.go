package runner

import (
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// A role target in a flow reaches the action as {role, name, nth}, with
// expressions in name and nth interpolated as for any other param.
func TestRoleTargetStep(t *testing.T) {
	fake := runnertest.New()
	rec, _ := runFlow(t, fake, `
name: role targets
vars:
  label: Sign in
  which: 1
steps:
  - click: { role: button, name: "${{ vars.label }}", nth: "${{ vars.which }}" }
  - type: { role: textbox, name: "/^e-?mail$/i", text: ada }
  - wait_for: { role: heading, timeoutMs: 500 }
`)
	wantStatus(t, rec, report.StatusPassed)
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	click := reqs[0]
	if click.Type != protocol.ActionClick || click.Role != "button" || click.Name != "Sign in" || click.Nth == nil || *click.Nth != 1 || click.UID != "" || click.Selector != "" {
		t.Errorf("click = %+v", click)
	}
	if typ := reqs[1]; typ.Role != "textbox" || typ.Name != "/^e-?mail$/i" || typ.Nth != nil || typ.Text == nil || *typ.Text != "ada" {
		t.Errorf("type = %+v", typ)
	}
	if w := reqs[2]; w.Role != "heading" || w.Name != "" || w.TimeoutMs == nil || *w.TimeoutMs != 500 {
		t.Errorf("wait_for = %+v", w)
	}
}
