package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestBuiltURL_SaysWhatItBuilt: an action the daemon refuses for a value
// an expression built names that value and its source, not only the
// schema's rule.
func TestBuiltURL_SaysWhatItBuilt(t *testing.T) {
	refuse := func(_ context.Context, a protocol.Action) (any, *protocol.Error) {
		return nil, a.Validate() // as the daemon does before sending
	}
	fake := runnertest.New().On(protocol.ActionNavigate, refuse).
		On(protocol.ActionClick, runnertest.Fail(protocol.CodeInvalidAction, "the target is not clickable"))
	for _, tc := range []struct {
		name, step string
		want       []string
	}{
		{"URL", `navigate: ${{ vars.base }}/x.html`, []string{
			"action.url: must be an absolute http(s) URL", `url "/x.html", built from "${{ vars.base }}/x.html"`}},
		{"NamesNoField", `click: { selector: "${{ vars.base }}#go", clickCount: 2 }`, []string{
			`the target is not clickable (selector "#go", built from "${{ vars.base }}#go")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, _ := runFlow(t, fake, "name: built\nvars: { base: \"\" }\nsteps:\n  - "+tc.step+"\n")
			wantStatus(t, rec, report.StatusFailed)
			for _, w := range tc.want {
				if !strings.Contains(rec.Error, w) {
					t.Errorf("error = %s\nwant it to hold %s", rec.Error, w)
				}
			}
		})
	}
}
