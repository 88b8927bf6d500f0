//go:build linux

package person

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// siteURL is path on the fixture server, e.g. siteURL("person/card.html").
func siteURL(path string) string { return fmt.Sprintf("http://127.0.0.1:%d/%s", sitePort, path) }

// bua runs the CLI with --browser user, the person's Chrome only: a
// request with no user extension connected fails rather than launching a
// managed browser (pkg/bridge LaunchPolicyFor).
func bua(t *testing.T, args ...string) harness.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return buaCmd.Run(ctx, append([]string{"--browser", "user"}, args...)...)
}

// mustOK fails t unless r exited 0.
func mustOK(t *testing.T, what string, r harness.Result) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("%s: exit %d\n%s", what, r.Code, r.Output())
	}
}

// daemonStatus is the part of `bua status --json` the tests read.
type daemonStatus struct {
	URL         string `json:"url"`
	UserPaired  bool   `json:"userPaired"`
	Connections []struct {
		Kind        string    `json:"kind"`
		ConnectedAt time.Time `json:"connectedAt"`
	} `json:"connections"`
	Managed struct {
		Running bool `json:"running"`
	} `json:"managed"`
	InFlight int `json:"inFlight"` // requests sent to an extension and not yet answered
}

func status(t *testing.T) daemonStatus {
	t.Helper()
	r := bua(t, "status", "--json")
	var st daemonStatus
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.URL == "" {
		t.Fatalf("status --json: exit %d, %v\n%s", r.Code, err, r.Output())
	}
	return st
}

// userSince is when the user extension's connection began, or the zero
// time when none is connected.
func (s daemonStatus) userSince() time.Time {
	for _, c := range s.Connections {
		if c.Kind == "user" {
			return c.ConnectedAt
		}
	}
	return time.Time{}
}

// event is one line of `bua events --json` (bridge.EventRecord).
type event struct {
	Kind  string `json:"kind"`
	Event struct {
		Type         string `json:"type"`
		TabID        int    `json:"tabId"`
		Reason       string `json:"reason"`
		Domain       string `json:"domain"`
		ActionCount  int    `json:"actionCount"`
		ObstacleType string `json:"obstacleType"` // handoff_requested
		Outcome      string `json:"outcome"`      // handoff_resolved
		EndedCount   int    `json:"endedCount"`   // global_stop
	} `json:"event"`
}

// events reads the daemon's event log.
func events(t *testing.T) []event {
	t.Helper()
	r := bua(t, "events", "--json")
	mustOK(t, "events", r)
	var out []event
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var e event
		if line != "" && json.Unmarshal([]byte(line), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits up to d for an event of typ on tab and returns it.
func waitEvent(t *testing.T, d time.Duration, typ string, tab int) event {
	t.Helper()
	var found event
	ok := poll(d, func() bool {
		for _, e := range events(t) {
			if e.Event.Type == typ && e.Event.TabID == tab {
				found = e
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no %s event for tab %d within %s: events %+v", typ, tab, d, events(t))
	}
	return found
}

// countEvents counts the log's events of typ on tab.
func countEvents(t *testing.T, typ string, tab int) int {
	t.Helper()
	n := 0
	for _, e := range events(t) {
		if e.Event.Type == typ && e.Event.TabID == tab {
			n++
		}
	}
	return n
}

// openTab opens url with `bua open` in the BUA window and returns the tab
// id and its window id; the tab is closed when t ends.
func openTab(t *testing.T, url string) (tab, window int) {
	t.Helper()
	r := bua(t, "--json", "open", url)
	mustOK(t, "open "+url, r)
	var res struct {
		TabID    int `json:"tabId"`
		WindowID int `json:"windowId"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil || res.TabID == 0 {
		t.Fatalf("open: %v\n%s", err, r.Stdout)
	}
	t.Cleanup(func() { bua(t, "close", strconv.Itoa(res.TabID)) })
	return res.TabID, res.WindowID
}

// tabOf reads the tab id from a `bua --json open` result.
func tabOf(t *testing.T, r harness.Result) int {
	t.Helper()
	var res struct {
		TabID int `json:"tabId"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil || res.TabID == 0 {
		t.Fatalf("open: %v\n%s", err, r.Stdout)
	}
	return res.TabID
}

// ended is a bua run started with start: its result and when it exited.
type ended struct {
	harness.Result
	at time.Time
}

// start runs bua (with --browser user, as bua does) in the background; the
// channel gets its result when it exits.
func start(t *testing.T, args ...string) <-chan ended {
	t.Helper()
	ch := make(chan ended, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		r := buaCmd.Run(ctx, append([]string{"--browser", "user"}, args...)...)
		ch <- ended{r, time.Now()}
	}()
	return ch
}

// waitInFlight waits until the daemon has n requests in flight.
func waitInFlight(t *testing.T, n int) {
	t.Helper()
	var got int
	if !poll(10*time.Second, func() bool { got = status(t).InFlight; return got == n }) {
		t.Fatalf("in flight = %d, want %d", got, n)
	}
}
