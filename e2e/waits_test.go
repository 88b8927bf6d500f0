package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// These tests prove wait_for's text, state and url, go_back and go_forward,
// and handle_dialog in real Chromium with the real extension, on the
// fixtures under testdata/sites/waits/ and testdata/sites/dialogs.html.

// on runs action on tab and returns its raw result, or fails the test.
func on(t *testing.T, tab int, typ string, fields map[string]any) map[string]any {
	t.Helper()
	a := map[string]any{"type": typ, "tabId": tab}
	for k, v := range fields {
		a[k] = v
	}
	var r map[string]any
	mustRequest(t, a, &r)
	return r
}

// refused runs action on tab, which must fail with code, and returns the
// error and how long the command took.
func refused(t *testing.T, tab int, typ string, fields map[string]any, code string) (*errorBody, time.Duration) {
	t.Helper()
	a := map[string]any{"type": typ, "tabId": tab}
	for k, v := range fields {
		a[k] = v
	}
	start := time.Now()
	_, e, _ := request(t, a)
	took := time.Since(start)
	if e == nil || e.Code != code {
		t.Fatalf("%s %v: got %+v, want %s", typ, fields, e, code)
	}
	return e, took
}

func TestWaitFor_SpinnerGoesAway(t *testing.T) {
	tab := openTab(t, "waits/spinner.html?ms=1200")
	if got := evaluate(t, tab, "return !!document.querySelector('.spinner')"); got != true {
		t.Fatalf("the spinner is not there to wait for (%v)", got)
	}
	start := time.Now()
	on(t, tab, "wait_for", map[string]any{"selector": ".spinner", "state": "detached"})
	took := time.Since(start)
	if got := evaluate(t, tab, "return [!!document.querySelector('.spinner'), document.getElementById('status').textContent].join()"); got != "false,Saved" {
		t.Errorf("after the wait: spinner present, status = %v; want it gone and Saved", got)
	}
	// The spinner was there when the wait began, so it waited for it.
	if took < 300*time.Millisecond {
		t.Errorf("the wait ended after %v, before the spinner could have gone", took)
	}
	on(t, tab, "wait_for", map[string]any{"text": "Saved", "timeoutMs": 1000})
	on(t, tab, "wait_for", map[string]any{"selector": "#status", "text": "Saved"})

	// States of an element in the DOM that is never shown.
	on(t, tab, "wait_for", map[string]any{"selector": "#hidden", "state": "attached", "timeoutMs": 1000})
	on(t, tab, "wait_for", map[string]any{"selector": "#hidden", "state": "hidden", "timeoutMs": 1000})
	e, took := refused(t, tab, "wait_for", map[string]any{"selector": "#hidden", "timeoutMs": 800}, "timeout")
	if want := `selector "#hidden" still not visible after 800 ms (it is attached but hidden)`; !strings.Contains(e.Message, want) {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	if took > 5*time.Second {
		t.Errorf("an 800 ms wait answered after %v", took)
	}

	// A spinner that stays: the timeout says what was still not true.
	stuck := openTab(t, "waits/spinner.html?ms=600000")
	e, _ = refused(t, stuck, "wait_for", map[string]any{"selector": ".spinner", "state": "detached", "timeoutMs": 1000}, "timeout")
	if want := `selector ".spinner" still not detached after 1 s (it is visible)`; !strings.Contains(e.Message, want) {
		t.Errorf("message %q, want %q", e.Message, want)
	}
}

func TestWaitFor_TextThatAppearsLate(t *testing.T) {
	tab := openTab(t, "waits/late-text.html?ms=1000")
	start := time.Now()
	// Whitespace in the page ("Done:\n  3 rows") is collapsed.
	on(t, tab, "wait_for", map[string]any{"text": "Done: 3 rows"})
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("text that appears after 1 s was found after %v", took)
	}
	// "Loading report" is visibility:hidden now: hidden, yet still attached.
	on(t, tab, "wait_for", map[string]any{"text": "Loading report", "state": "hidden", "timeoutMs": 1000})
	on(t, tab, "wait_for", map[string]any{"text": "Loading report", "state": "attached", "timeoutMs": 1000})
	on(t, tab, "wait_for", map[string]any{"selector": "#out", "text": `/done: \d+ rows/i`, "timeoutMs": 1000})
	e, _ := refused(t, tab, "wait_for", map[string]any{"text": "Done", "selector": "#loading", "timeoutMs": 700}, "timeout")
	if want := `text "Done" in selector "#loading" still not visible after 700 ms`; !strings.Contains(e.Message, want) {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	e, _ = refused(t, tab, "wait_for", map[string]any{"text": "Never shown", "timeoutMs": 1000}, "timeout")
	if want := `text "Never shown" still not visible after 1 s (it is not in the page)`; !strings.Contains(e.Message, want) {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	e, _ = refused(t, tab, "wait_for", map[string]any{"text": "/(/"}, "invalid_action")
	if !strings.Contains(e.Message, `text "/(/" is not a valid regular expression`) {
		t.Errorf("message %q", e.Message)
	}
}

func TestWaitFor_URL(t *testing.T) {
	tab := openTab(t, "waits/history-a.html")
	evaluate(t, tab, "setTimeout(() => { location.href = 'history-b.html' }, 500); return 1")
	on(t, tab, "wait_for", map[string]any{"url": "**/waits/history-b.html"})
	if got := evaluate(t, tab, "return document.title"); got != "History B" {
		t.Errorf("after the URL wait the title is %v", got)
	}
	// A same-document change (pushState) counts too, matched by a regex.
	evaluate(t, tab, "setTimeout(() => history.pushState({}, '', '?step=3'), 300); return 1")
	on(t, tab, "wait_for", map[string]any{"url": `/[?&]step=\d$/`})
	e, took := refused(t, tab, "wait_for", map[string]any{"url": "**/never.html", "timeoutMs": 700}, "timeout")
	if want := `the tab's URL still does not match "**/never.html" after 700 ms (it is ` + siteURL("waits/history-b.html?step=3") + ")"; e.Message != want && !strings.Contains(e.Message, want) {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	if took > 5*time.Second {
		t.Errorf("a 700 ms wait answered after %v", took)
	}
}

// A wait the caller gives up on stops at once in the extension: the page
// counts the wait's polls (document.querySelector(".spinner")), and they
// stop when the CLI that asked hangs up, though the wait had 60 s to go.
func TestWaitFor_StopsOnCancel(t *testing.T) {
	tab := openTab(t, "waits/spinner.html?ms=600000")
	evaluate(t, tab, `const q = document.querySelector.bind(document); window.polls = 0;
		document.querySelector = (s) => { if (s === ".spinner") window.polls++; return q(s); }; return 1`)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "wait-for", ".spinner", "--state", "detached", "--timeout", "60s", "--tab", fmt.Sprint(tab))
	if r.Code == 0 {
		t.Fatalf("the wait for a spinner that stays ended ok: %s", r.Output())
	}
	polls := func() float64 { n, _ := evaluate(t, tab, "return window.polls").(float64); return n }
	before := polls()
	if before < 2 {
		t.Fatalf("the page counted %v polls while the wait ran", before)
	}
	time.Sleep(800 * time.Millisecond) // eight poll intervals
	if after := polls(); after != before {
		t.Errorf("the wait polled %v more times after its caller hung up", after-before)
	}
	t.Logf("%v polls while the wait ran, none after the cancel", before)
}

// go_back and go_forward, asserting what Playwright's
// tests/page/page-history.spec.ts asserts: "page.goBack should work" (back
// and forward across documents, and null with no entry forward) and
// "page.goBack should work with HistoryAPI" (pushState entries).
func TestHistory_BackAndForward(t *testing.T) {
	tab := openTab(t, "waits/history-a.html")
	on(t, tab, "click", map[string]any{"selector": "#to-b"})
	var page map[string]any
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &page)
	uid := ""
	for _, el := range page["elements"].([]any) {
		if m := el.(map[string]any); m["name"] == "Finish" {
			uid = m["uid"].(string)
		}
	}
	if uid == "" {
		t.Fatalf("no Finish link in page B's extract")
	}
	r := on(t, tab, "go_back", nil)
	if r["moved"] != true || !strings.HasSuffix(fmt.Sprint(r["url"]), "/waits/history-a.html") {
		t.Errorf("go_back = %v, want moved to history-a.html", r)
	}
	if got := evaluate(t, tab, "return document.title"); got != "History A" {
		t.Errorf("after go_back the title is %v", got)
	}
	r = on(t, tab, "go_forward", nil)
	if r["moved"] != true || !strings.HasSuffix(fmt.Sprint(r["url"]), "/waits/history-b.html") {
		t.Errorf("go_forward = %v, want moved to history-b.html", r)
	}
	// The uid from before go_back is stale, as after navigate.
	refused(t, tab, "click", map[string]any{"uid": uid}, "element_stale")
	r = on(t, tab, "go_forward", nil)
	if r["moved"] != false {
		t.Errorf("go_forward at the end of the history = %v, want moved false", r)
	}
	if got := evaluate(t, tab, "return location.pathname"); got != "/waits/history-b.html" {
		t.Errorf("after a go_forward with nowhere to go the tab is at %v", got)
	}

	// The History API: same-document entries.
	on(t, tab, "navigate", map[string]any{"url": siteURL("waits/history-a.html")})
	on(t, tab, "click", map[string]any{"selector": "#push"})
	path := func() any { return evaluate(t, tab, "return location.pathname") }
	if got := path(); got != "/waits/second.html" {
		t.Fatalf("after two pushState the path is %v", got)
	}
	for _, step := range []struct{ typ, want string }{
		{"go_back", "/waits/first.html"},
		{"go_back", "/waits/history-a.html"},
		{"go_forward", "/waits/first.html"},
	} {
		start := time.Now()
		if r := on(t, tab, step.typ, nil); r["moved"] != true {
			t.Errorf("%s = %v", step.typ, r)
		}
		if got := path(); got != step.want {
			t.Errorf("%s: path %v, want %s", step.typ, got, step.want)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s to a same-document entry took %v", step.typ, took)
		}
	}
}

// Dialogs outside evaluate are left open (docs/protocol.md#dialogs) and
// answered with handle_dialog, asserting what Playwright's
// tests/page/page-dialog.spec.ts asserts: "should fire" (an alert's type
// and message), "should allow accepting prompts" (the answer comes back),
// "should dismiss the prompt" (null), "should accept the confirm prompt"
// (true), "should dismiss the confirm prompt" (false).
func TestDialogs_HandleDialog(t *testing.T) {
	tab := openTab(t, "dialogs.html")
	result := func() any { return evaluate(t, tab, "return document.getElementById('result').textContent") }
	for _, tc := range []struct {
		button, dialogType, message string
		accept                      bool
		promptText                  *string
		want                        string
	}{
		{"alert", "alert", "yo", true, nil, "alert:null"},
		{"prompt", "prompt", "question?", true, strPtr("answer!"), `prompt:"answer!"`},
		{"prompt", "prompt", "question?", false, nil, "prompt:null"},
		{"confirm", "confirm", "boolean?", true, nil, "confirm:true"},
		{"confirm", "confirm", "boolean?", false, nil, "confirm:false"},
	} {
		// The click opens the dialog and fails at once, naming it.
		e, took := refused(t, tab, "click", map[string]any{"selector": "#" + tc.button}, "invalid_action")
		article := "a"
		if tc.dialogType == "alert" {
			article = "an"
		}
		want := fmt.Sprintf("%s %s %q is open on tab %d (it opened during click): answer it with handle_dialog", article, tc.dialogType, tc.message, tab)
		if !strings.Contains(e.Message, want) || e.Reason != "dialog_opened" {
			t.Errorf("%s: error %q (reason %q), want %q, reason dialog_opened", tc.button, e.Message, e.Reason, want)
		}
		if took > 5*time.Second {
			t.Errorf("%s: the click met its dialog and answered after %v", tc.button, took)
		}
		t.Logf("%s: the click that opened it failed after %v (the whole bua request command)", tc.button, took.Round(time.Millisecond))
		// Any other action meets it before it runs.
		e, took = refused(t, tab, "extract", nil, "invalid_action")
		if !strings.Contains(e.Message, "so extract did not run") || e.Reason != "dialog_open" || took > 5*time.Second {
			t.Errorf("%s: extract with the dialog open: %q (reason %q) after %v", tc.button, e.Message, e.Reason, took)
		}
		fields := map[string]any{"accept": tc.accept}
		if tc.promptText != nil {
			fields["promptText"] = *tc.promptText
		}
		r := on(t, tab, "handle_dialog", fields)
		if r["dialogType"] != tc.dialogType || r["message"] != tc.message || r["accepted"] != tc.accept {
			t.Errorf("%s: handle_dialog = %v", tc.button, r)
		}
		if got := result(); got != tc.want {
			t.Errorf("%s accept=%v: page result %v, want %s", tc.button, tc.accept, got, tc.want)
		}
	}
	e, _ := refused(t, tab, "handle_dialog", map[string]any{"accept": true}, "invalid_action")
	if want := fmt.Sprintf("no dialog is open on tab %d", tab); !strings.Contains(e.Message, want) {
		t.Errorf("handle_dialog with none open: %q, want %q", e.Message, want)
	}
}

// A beforeunload dialog stops a navigation away until it is answered;
// accepting it lets the navigation go on.
func TestDialogs_BeforeUnload(t *testing.T) {
	tab := openTab(t, "dialogs.html")
	on(t, tab, "click", map[string]any{"selector": "#guard"})
	e, took := refused(t, tab, "navigate", map[string]any{"url": siteURL("waits/history-a.html")}, "invalid_action")
	if !strings.Contains(e.Message, "a beforeunload") || e.Reason != "dialog_opened" || took > 5*time.Second {
		t.Fatalf("navigate away from a guarded page: %q (reason %q) after %v", e.Message, e.Reason, took)
	}
	if r := on(t, tab, "handle_dialog", map[string]any{"accept": true}); r["dialogType"] != "beforeunload" {
		t.Errorf("handle_dialog = %v", r)
	}
	on(t, tab, "wait_for", map[string]any{"url": "**/waits/history-a.html"})
	on(t, tab, "wait_for", map[string]any{"text": "Page A"})
}

// TestFlows_WaitsAndDialogs runs flows/waits-dialogs.yaml: a spinner and
// late text waited out, history walked, and a confirm the flow's
// `dialogs: accept` answers, recorded in the report.
func TestFlows_WaitsAndDialogs(t *testing.T) {
	out, code, rep, dir := runFlow(t, "waits-dialogs.yaml")
	if code != 0 || len(rep.Flows) != 1 || rep.Flows[0].Status != "passed" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var full struct {
		Flows []struct {
			Steps []struct {
				Kind    string `json:"kind"`
				Dialogs []struct {
					Type, Message, How string
				} `json:"dialogs"`
			} `json:"steps"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(data, &full); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range full.Flows[0].Steps {
		for _, d := range st.Dialogs {
			got = append(got, fmt.Sprintf("%s: %s %q %s", st.Kind, d.Type, d.Message, d.How))
		}
	}
	if want := []string{`click: confirm "Are you sure?" accepted`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dialogs in the report: %q, want %q", got, want)
	}
	if !regexp.MustCompile(`accepted confirm "Are you sure\?"`).MatchString(out) {
		t.Errorf("the run's output does not say which dialog it answered:\n%s", out)
	}
}

func strPtr(s string) *string { return &s }
