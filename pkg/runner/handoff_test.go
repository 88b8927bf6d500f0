package runner

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

func captchaPage(tab int) protocol.ExtractResult {
	r := runnertest.Page("button", "I am human")
	r.TabID = &tab
	r.Obstacle = &protocol.Obstacle{Type: "captcha", Confidence: "high", Message: "A captcha is shown"}
	return r
}

func clearedPage(tab int) protocol.ExtractResult {
	r := runnertest.Page("button", "Buy")
	r.TabID = &tab
	return r
}

const handoffFlow = `name: shop
obstacles: { high: handoff, timeout: 150ms }
steps:
  - extract: {}
    as: page
  - click: ${{ uid(page, "button", "Buy") }}
`

// runHandoff runs handoffFlow against fake with the given gate, waits
// shortened to nothing.
func runHandoff(t *testing.T, fake *runnertest.Fake, gate func(context.Context) error) *report.FlowReport {
	t.Helper()
	f, err := flow.Load(filepath.Join(writeFlows(t, map[string]string{"main.yaml": handoffFlow}), "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Requester: fake, HandoffGate: gate, handoffSleep: func(ctx context.Context, d time.Duration) error {
		time.Sleep(time.Millisecond)
		return ctx.Err()
	}}
	return r.RunFlow(context.Background(), f)
}

func sentKinds(fake *runnertest.Fake) []string {
	var out []string
	for _, a := range fake.Requests() {
		k := string(a.Type)
		if a.State != "" {
			k += ":" + a.State
		}
		out = append(out, k)
	}
	return out
}

// TestHandoffPolicy: under obstacles {high: handoff} a captcha hands the
// tab over, the flow goes on with the page the person cleared (the `as`
// name rebound to it), and the report marks the step with how long it took.
func TestHandoffPolicy(t *testing.T) {
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Sequence(runnertest.Result(captchaPage(5)), runnertest.Result(captchaPage(5)), runnertest.Result(clearedPage(5))))
	rec := runHandoff(t, fake, nil)
	wantStatus(t, rec, report.StatusPassed)
	want := []string{"extract", "handoff:requested", "extract", "extract", "handoff:resolved", "click"}
	if got := sentKinds(fake); !slices.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	reqs := fake.Requests()
	if r := reqs[1]; r.TabID == nil || *r.TabID != 5 || r.ObstacleType != "captcha" {
		t.Fatalf("handoff request %+v, want tab 5 and the captcha", r)
	}
	if reqs[5].UID != "e0" {
		t.Fatalf("click %+v, want the cleared page's Buy (e0)", reqs[5])
	}
	h := rec.Steps[0].Handoff
	if h == nil || h.Outcome != "resolved" || h.TabID != 5 || h.Obstacle != "captcha" {
		t.Fatalf("step handoff %+v, want resolved captcha on tab 5", h)
	}
	if !strings.Contains(rec.Steps[0].Note, "handed over (captcha): resolved after") {
		t.Fatalf("note %q lacks the handoff", rec.Steps[0].Note)
	}
	var junit bytes.Buffer
	if err := (&report.SuiteReport{Flows: []*report.FlowReport{rec}}).WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), "step 1 handed over (captcha): resolved after") {
		t.Fatalf("JUnit lacks the handoff:\n%s", junit.String())
	}
}

// TestHandoffPolicy_Stops: the policy ends the flow blocked with the
// verdict when nobody can be handed the browser (no handoff is sent), and
// when the person does not clear the page in time (the tab is handed back
// abandoned).
func TestHandoffPolicy_Stops(t *testing.T) {
	t.Run("GateRefuses", func(t *testing.T) {
		fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(captchaPage(5)))
		rec := runHandoff(t, fake, func(context.Context) error {
			return errors.New("the managed browser is headless: nobody can see it")
		})
		wantStatus(t, rec, report.StatusBlocked)
		if got := sentKinds(fake); !slices.Equal(got, []string{"extract"}) {
			t.Fatalf("sent %v, want the extract only", got)
		}
		if !strings.Contains(rec.Error, "acts as stop: the managed browser is headless") {
			t.Fatalf("error %q does not say why it stopped", rec.Error)
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(captchaPage(5)))
		rec := runHandoff(t, fake, nil)
		wantStatus(t, rec, report.StatusBlocked)
		got := sentKinds(fake)
		if got[1] != "handoff:requested" || got[len(got)-1] != "handoff:abandoned" {
			t.Fatalf("sent %v, want requested ... abandoned", got)
		}
		if h := rec.Steps[0].Handoff; h == nil || h.Outcome != "abandoned" || h.WaitedMs < 150 {
			t.Fatalf("step handoff %+v, want abandoned after 150ms", h)
		}
		if !strings.Contains(rec.Error, "did not clear it within 150ms") || rec.Steps[0].Status != report.StatusBlocked {
			t.Fatalf("error %q / status %s, want blocked and the timeout named", rec.Error, rec.Steps[0].Status)
		}
	})
}
