package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// timeoutBounds are the timeouts TestTimeoutGivesTheActionItsTime asks
// for. `click --timeout 3s` on a disabled button once gave up after
// 1.5 s, `--timeout 1s` after 0.2 s, because the ladder's margins came out
// of the caller's time; they now go on top (schema x-ladder), so the
// action waits all of it and the command answers within it plus
// protocol.LadderMargin (0.75 s).
var timeoutBounds = []time.Duration{time.Second, 3 * time.Second}

// TestTimeoutGivesTheActionItsTime clicks a disabled button, which never
// becomes actionable, with --timeout and with a flow step's timeout, and
// checks the click fails timeout after at least that long and less than a
// second more.
func TestTimeoutGivesTheActionItsTime(t *testing.T) {
	tab := openTab(t, "states.html")
	click := map[string]any{"type": "click", "tabId": tab, "selector": "button[disabled]"}
	for _, d := range timeoutBounds {
		t.Run(fmt.Sprintf("CLI%s", d), func(t *testing.T) {
			start := time.Now()
			e := wantError(t, click, "timeout", "--timeout", d.String())
			took := time.Since(start)
			wantContains(t, "message", e.Message, "is not enabled")
			wantWithin(t, "bua request --timeout "+d.String(), took, d)
		})
	}

	t.Run("FlowStep", func(t *testing.T) {
		flow := fmt.Sprintf(`name: step timeouts
steps:
  - navigate: %s
  - click: { selector: "button[disabled]" }
    timeout: 1s
    continue_on_error: true
  - click: { selector: "button[disabled]" }
    timeout: 3s
    continue_on_error: true
`, siteURL("states.html"))
		dir := t.TempDir()
		file := filepath.Join(dir, "timeouts.yaml")
		if err := os.WriteFile(file, []byte(flow), 0o600); err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(dir, "report.json")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "run", file, "--report", "json="+report)
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatalf("bua run: no report (%v), exit %d:\n%s", err, r.Code, r.Output())
		}
		var rep struct {
			Flows []struct {
				Steps []struct {
					Kind       string `json:"kind"`
					DurationMs int64  `json:"durationMs"`
					Error      *struct {
						Code string `json:"code"`
					} `json:"error"`
				} `json:"steps"`
			} `json:"flows"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		var clicks int
		for _, st := range rep.Flows[0].Steps {
			if st.Kind != "click" {
				continue
			}
			d := timeoutBounds[clicks]
			clicks++
			if st.Error == nil || st.Error.Code != "timeout" {
				t.Errorf("the click with timeout %s: error %+v, want timeout", d, st.Error)
			}
			wantWithin(t, "a flow step's click with timeout "+d.String(), time.Duration(st.DurationMs)*time.Millisecond, d)
		}
		if clicks != len(timeoutBounds) {
			t.Fatalf("%d click steps in the report, want %d:\n%s", clicks, len(timeoutBounds), data)
		}
	})
}

// wantWithin checks that what gave up after took, with timeout d: no
// sooner than d, and within d plus a second.
func wantWithin(t *testing.T, what string, took, d time.Duration) {
	t.Helper()
	if took < d || took >= d+time.Second {
		t.Errorf("%s failed after %s, want at least %s and less than %s", what, took.Round(time.Millisecond), d, d+time.Second)
	} else {
		t.Logf("%s failed after %s", what, took.Round(time.Millisecond))
	}
}
