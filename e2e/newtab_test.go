package e2e

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clickResult is click's and press_key's result: the tab acted on, and the
// tab the input opened, if any (result.ok newTabId).
type clickResult struct {
	OK       bool `json:"ok"`
	TabID    int  `json:"tabId"`
	NewTabID int  `json:"newTabId"`
}

// TestClickNewTab: a click that opens a tab (a target=_blank link, with and
// without rel=noopener, and a window.open from a click handler) answers the
// new tab as newTabId, once its page committed; the next action can read it
// by that id at once, and the clicked tab stays the current one. A link
// that stays in its tab reports none.
func TestClickNewTab(t *testing.T) {
	tab := openTab(t, "nav/newtab.html")
	for _, tc := range []struct{ selector, query string }{
		{"#blank", ""},
		{"#opener", "?opener"},
		{"#open", "?open"},
	} {
		t.Run(strings.TrimPrefix(tc.selector, "#"), func(t *testing.T) {
			var r clickResult
			clicked := time.Now()
			mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": tc.selector}, &r)
			t.Logf("click %s answered newTabId %d after %v", tc.selector, r.NewTabID, time.Since(clicked).Round(time.Millisecond))
			if r.TabID != tab || r.NewTabID <= 0 || r.NewTabID == tab {
				t.Fatalf("click %s = %+v, want tabId %d and a newTabId of its own", tc.selector, r, tab)
			}
			closeLater(t, r.NewTabID)
			// The clicked tab stays the current one: the next action
			// without a tabId still goes there.
			var cur struct {
				Value string `json:"value"`
				TabID int    `json:"tabId"`
			}
			mustRequest(t, map[string]any{"type": "evaluate", "expression": "return location.pathname"}, &cur)
			if cur.TabID != tab || cur.Value != "/nav/newtab.html" {
				t.Errorf("the next action without tabId went to tab %d (%s), want the clicked tab %d", cur.TabID, cur.Value, tab)
			}
			start := time.Now()
			var x struct {
				Markdown string `json:"markdown"`
				URL      string `json:"url"`
			}
			mustRequest(t, map[string]any{"type": "extract", "tabId": r.NewTabID}, &x)
			if !strings.Contains(x.Markdown, "The new tab") || !strings.HasSuffix(x.URL, "/nav/target.html"+tc.query) {
				t.Errorf("extract of the new tab %d: url %q, markdown %q", r.NewTabID, x.URL, x.Markdown)
			}
			took := time.Since(start)
			t.Logf("the first extract of the new tab %d took %v", r.NewTabID, took.Round(time.Millisecond))
			if took > 2*time.Second {
				t.Errorf("the first extract of the new tab took %v", took)
			}
			if _, ok := hasTab(getTabs(t), r.NewTabID); !ok {
				t.Errorf("get_tabs does not list the new tab %d", r.NewTabID)
			}
		})
	}
	t.Run("same tab", func(t *testing.T) {
		res, e, _ := request(t, map[string]any{"type": "click", "tabId": tab, "selector": "#same"})
		if e != nil {
			t.Fatalf("click #same: %s: %s", e.Code, e.Message)
		}
		var m map[string]any
		_ = json.Unmarshal(res, &m)
		if _, ok := m["newTabId"]; ok {
			t.Errorf("a link that stays in its tab reported %s", res)
		}
		if got := evaluate(t, tab, "return location.search"); got != "?same" {
			t.Errorf("after the click the tab shows %v, want ?same", got)
		}
	})
}

// TestPressKeyNewTab: Enter on a focused target=_blank link opens a tab,
// reported as press_key's newTabId.
func TestPressKeyNewTab(t *testing.T) {
	tab := openTab(t, "nav/newtab.html")
	evaluate(t, tab, `document.querySelector("#blank").focus(); return document.activeElement.id`)
	var r clickResult
	mustRequest(t, map[string]any{"type": "press_key", "tabId": tab, "key": "Enter"}, &r)
	if r.NewTabID <= 0 || r.NewTabID == tab {
		t.Fatalf("press_key Enter on a target=_blank link = %+v, want a newTabId", r)
	}
	closeLater(t, r.NewTabID)
	if got := evaluate(t, r.NewTabID, "return document.title"); got != "The new tab" {
		t.Errorf("the new tab's title is %v", got)
	}
}

// TestCLI_ClickNewTab: bua click says where the click went: the tab it
// opened, by the handle the daemon gave it and its URL, and the command
// that names that handle acts there; a link that stays in the tab names
// the URL it navigated to. --json carries newTabId and its handle, and
// --quiet prints the new tab's id alone, for scripts.
func TestCLI_ClickNewTab(t *testing.T) {
	tab := cliOpen(t, "nav/newtab.html")
	handle := cliHandle(t, tab)
	r := mustCLI(t, "click", "--tab", handle, "#blank")
	m := regexp.MustCompile(`^ok: opened (t\d+) (\S+) \(act on it with --tab (t\d+)\)\n$`).FindStringSubmatch(r.Stdout)
	if m == nil || m[1] != m[3] || m[1] == handle || m[2] != siteURL("nav/target.html") {
		t.Fatalf("bua click printed %q, want the new tab named by a handle of its own and its URL %s", r.Stdout, siteURL("nav/target.html"))
	}
	newHandle := m[1]
	var tabs []tabInfo
	out := mustCLI(t, "tabs", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &tabs); err != nil {
		t.Fatal(err)
	}
	for _, tb := range tabs {
		if tb.Handle == newHandle {
			closeLater(t, tb.TabID)
		}
	}
	if got := cliEval(t, newHandle, "return document.title"); got != "The new tab" {
		t.Errorf("bua eval --tab %s: %q", newHandle, got)
	}

	var res struct {
		clickResult
		NewTabHandle string `json:"newTabHandle"`
		NewTabURL    string `json:"newTabUrl"`
	}
	out = mustCLI(t, "click", "--tab", tab, "--json", "#opener").Stdout
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.NewTabID <= 0 || res.NewTabHandle == "" || res.NewTabHandle == newHandle || res.NewTabURL != siteURL("nav/target.html?opener") {
		t.Fatalf("bua click --json printed %q, want a fresh newTabId, its handle and its URL", out)
	}
	closeLater(t, res.NewTabID)

	out = mustCLI(t, "click", "--tab", tab, "--quiet", "#open").Stdout
	id, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || id == res.NewTabID {
		t.Fatalf("bua click --quiet printed %q, want the new tab's id alone", out)
	}
	closeLater(t, id)

	// A link that stays in the tab: the click names where it went.
	if got, want := mustCLI(t, "click", "--tab", handle, "#same").Stdout, "ok: navigated to "+siteURL("nav/target.html?same")+" ("+handle+")\n"; got != want {
		t.Errorf("bua click #same printed %q, want %q", got, want)
	}
	if out := mustCLI(t, "click", "--tab", tab, "--quiet", "h1").Stdout; out != "" {
		t.Errorf("bua click --quiet on a heading printed %q", out)
	}
}

// TestFlowClickNewTab: a flow binds the click's result and acts on the tab
// it opened with tabId: ${{ c.newTabId }}.
func TestFlowClickNewTab(t *testing.T) {
	runSiteFlow(t, `name: Read the article a link opens in a new tab
steps:
  - open_tab: ${{ vars.base_url }}/nav/newtab.html
  - click: "#blank"
    as: c
  - assert: c.newTabId != c.tabId
  - extract: { tabId: "${{ c.newTabId }}" }
    as: article
  - assert: article.markdown contains "The new tab"
  - evaluate: "return document.title"
  - assert: last.value == "Opener"
    message: the flow's current tab is still the one it clicked in
  - close_tab: ${{ c.newTabId }}
`)
}
