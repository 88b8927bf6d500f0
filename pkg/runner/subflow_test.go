package runner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// signInFlow is a sub-flow that reads the login page it exists to fill in.
const signInFlow = `
name: sign in
steps:
  - extract: {}
    as: page
  - type: { uid: "${{ uid(page, 'textbox', 'Email') }}", text: ada@example.com }
`

// TestRun_SubFlowInheritsObstacles: a sub-flow without its own `obstacles`
// keeps its caller's policy, so a sign-in sub-flow goes on past the login
// wall its caller continues on; each key the sub-flow sets wins.
func TestRun_SubFlowInheritsObstacles(t *testing.T) {
	wall := func(conf string) protocol.ExtractResult {
		p := loginPage()
		p.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.Confidence(conf), Message: "sign-in form"}
		return p
	}
	for _, tc := range []struct {
		name, caller, sub, conf string
		status                  report.Status
	}{
		{"CallerContinues", "obstacles: { high: continue }", "", "high", report.StatusPassed},
		{"DefaultStops", "", "", "high", report.StatusBlocked},
		{"OwnKeyWins", "obstacles: { high: continue }", "obstacles: { high: stop }", "high", report.StatusBlocked},
		{"OtherKeysInherited", "obstacles: { high: continue }", "obstacles: { low: stop }", "high", report.StatusPassed},
		{"OwnOtherKeyApplies", "obstacles: { high: continue }", "obstacles: { low: stop }", "low", report.StatusBlocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(wall(tc.conf)))
			rec, _ := runFlow(t, fake, "name: caller\n"+tc.caller+"\nsteps:\n  - run: signin.yaml\n", "signin.yaml", tc.sub+"\n"+signInFlow)
			wantStatus(t, rec, tc.status)
			if typed := strings.Contains(strings.Join(fake.Types(), ","), "type"); typed != (tc.status == report.StatusPassed) {
				t.Errorf("requests %v: the sub-flow typed = %v, want %v", fake.Types(), typed, tc.status == report.StatusPassed)
			}
		})
	}
}

// deadlines records how long each request had before its deadline.
type deadlines struct {
	mu  sync.Mutex
	got []time.Duration
}

func (d *deadlines) handler(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.got = append(d.got, time.Until(dl))
	d.mu.Unlock()
	return map[string]any{"ok": true}, nil
}

// TestRun_SubFlowInheritsStepTimeout: a sub-flow without its own
// defaults.timeout gives its actions its caller's; its own wins.
func TestRun_SubFlowInheritsStepTimeout(t *testing.T) {
	for _, tc := range []struct {
		name, sub string
		want      time.Duration
	}{
		{"Caller", "", 2 * time.Minute},
		{"Own", "defaults: { timeout: 45s }", 45 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &deadlines{}
			fake := runnertest.New().On(protocol.ActionClick, d.handler)
			rec, _ := runFlow(t, fake, "name: caller\ndefaults: { timeout: 2m }\nsteps:\n  - click: \"#a\"\n  - run: sub.yaml\n",
				"sub.yaml", "name: sub\n"+tc.sub+"\nsteps:\n  - click: \"#b\"\n")
			wantStatus(t, rec, report.StatusPassed)
			if len(d.got) != 2 {
				t.Fatalf("%d clicks, want 2", len(d.got))
			}
			// The ladder's margin rides on top of the step's timeout
			// (protocol.WithTimeout).
			if got := d.got[1] - protocol.LadderMargin; got > tc.want || got < tc.want-10*time.Second {
				t.Errorf("the sub-flow's click had %s, want about %s (the caller's click had %s)", got.Round(time.Second), tc.want, d.got[0].Round(time.Second))
			}
		})
	}
}

// TestRun_SubFlowOwnTimeout: a sub-flow's own `timeout` bounds it, inside
// its caller's; without one, the caller's bounds it.
func TestRun_SubFlowOwnTimeout(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionClick, runnertest.Hang())
	start := time.Now()
	rec, _ := runFlow(t, fake, "name: caller\ntimeout: 5s\nsteps:\n  - run: sub.yaml\n", "sub.yaml", "name: sub\ntimeout: 300ms\nsteps:\n  - click: \"#never\"\n")
	took := time.Since(start)
	wantStatus(t, rec, report.StatusFailed)
	if !strings.Contains(rec.Error, "sub-flow sub.yaml timeout 300ms exceeded") {
		t.Errorf("error = %q, want the sub-flow's own timeout named", rec.Error)
	}
	if took > 3*time.Second {
		t.Errorf("took %s: the sub-flow's 300ms timeout did not bound it", took)
	}
}
