//go:build linux

package faults

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// extractResult is the part of `bua --json extract` these tests read.
type extractResult struct {
	Title    string `json:"title"`
	Elements []struct {
		UID  string `json:"uid"`
		Name string `json:"name"`
	} `json:"elements"`
}

func extract(t *testing.T, tab string) extractResult {
	t.Helper()
	r := run(t, shared, 30*time.Second, "--json", "extract", "--tab", tab)
	mustOK(t, "extract", r)
	var res extractResult
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func (e extractResult) uid(t *testing.T, name string) string {
	t.Helper()
	for _, el := range e.Elements {
		if el.Name == name {
			return el.UID
		}
	}
	t.Fatalf("no element named %q on %q", name, e.Title)
	return ""
}

// TestNavigationDuringClick: the page leaves while a click is under way,
// from fixtures in testdata/sites/faults: on the button's mousedown (the
// navigation starts between the press and the release), on its click to a
// page that answers 1.5 s late (the click's settle waits for the commit),
// and on a timer while the click still waits for a disabled button to be
// enabled. The click answers with a clear result or code, never a hang or
// an unexplained internal_error; the next extract reads the new page, and
// the old page's uids are element_stale.
func TestNavigationDuringClick(t *testing.T) {
	exclusive(t)
	strayBefore := strays(t, sharedHome)
	tests := []struct {
		page  string
		codes []string // acceptable outcomes: "ok" or an error code
	}{
		{"nav-mousedown.html", []string{"ok"}},
		{"nav-click-slow.html", []string{"ok"}},
		{"nav-timer.html", []string{"element_stale", "element_not_found"}},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			tab := openTab(t, shared, siteURL("faults/"+tt.page))
			before := extract(t, tab)
			goUID, stayUID := before.uid(t, "Go"), before.uid(t, "Stay")
			r := <-start(shared, 60*time.Second, "--json", "click", "--tab", tab, "--uid", goUID)
			got := "ok"
			if r.Code != 0 {
				e := harness.Failure(t, r.Result)
				got = e.Error.Code
				t.Logf("click: %s %q", e.Error.Code, e.Error.Message)
			}
			if !slices.Contains(tt.codes, got) {
				t.Errorf("click: exit %d, %s: want one of %v\n%s", r.Code, got, tt.codes, r.Output())
			}
			if r.took > 10*time.Second {
				t.Errorf("click took %s: want an answer well before its 30 s deadline", r.took.Round(time.Millisecond))
			}
			var after extractResult
			if !waitFor(5*time.Second, func() bool { after = extract(t, tab); return after.Title == "Landed" }) {
				t.Fatalf("extract after the click reads %q, want the page it navigated to", after.Title)
			}
			stale := run(t, shared, 30*time.Second, "--json", "click", "--tab", tab, "--uid", stayUID)
			if e := harness.Failure(t, stale); e.Error.Code != "element_stale" || stale.Code != 1 {
				t.Errorf("click on the old page's uid: exit %d, %s %q: want exit 1, element_stale", stale.Code, e.Error.Code, e.Error.Message)
			}
			t.Logf("click answered %s in %s", got, r.took.Round(time.Millisecond))
		})
	}
	everyAnswered(t, shared, sharedHome, strayBefore)
}
