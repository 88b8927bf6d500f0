package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/protocol"
)

// getTrace reads tabID's trace ring from sinceSeq on.
func getTrace(t *testing.T, tabID, sinceSeq int) (protocol.TraceResult, json.RawMessage) {
	t.Helper()
	var r protocol.TraceResult
	raw, e, code := request(t, map[string]any{"type": "get_trace", "tabId": tabID, "sinceSeq": sinceSeq})
	if e != nil {
		t.Fatalf("get_trace: exit %d, %s: %s", code, e.Code, e.Message)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("get_trace result %s: %v", raw, err)
	}
	return r, raw
}

// traceUntil polls tabID's trace until ok says it holds what the test
// waits for (CDP events reach the extension a moment after the page
// acts), or 15 s pass.
func traceUntil(t *testing.T, tabID int, ok func(protocol.TraceResult) bool) (protocol.TraceResult, json.RawMessage) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, raw := getTrace(t, tabID, 0)
		if ok(r) || time.Now().After(deadline) {
			return r, raw
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTraceRecordsWhatThePageDid: one click on the fixture logs, throws,
// fetches a 404, a 500 (with a secret header and body) and a refused
// request, opens a dialog and navigates; each shows up in get_trace with
// its fields, beside bua's own actions, and no header, body, cookie or
// typed text does.
func TestTraceRecordsWhatThePageDid(t *testing.T) {
	start := float64(time.Now().UnixMilli())
	// A port that was just free: the page's request to it is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	refused := fmt.Sprintf("http://127.0.0.1:%d/refused", port)
	page := fmt.Sprintf("trace/?refused=%d", port) // the server redirects index.html to its directory
	tab := openTab(t, page)
	const typed = "typed-secret-4711"
	mustRequest(t, map[string]any{"type": "type", "tabId": tab, "selector": "#name", "text": typed}, nil)
	// The page's alert may open while the click settles: the click then
	// answers invalid_action naming it (reason dialog_opened), having run.
	clickCode := ""
	if _, e, _ := request(t, map[string]any{"type": "click", "tabId": tab, "selector": "#go"}); e != nil {
		if e.Code != "invalid_action" || !strings.Contains(e.Message, "trace-fixture: dialog") {
			t.Fatalf("click: %s: %s", e.Code, e.Message)
		}
		clickCode = e.Code
	}

	find := func(r protocol.TraceResult, kind string, match func(protocol.TraceEvent) bool) *protocol.TraceEvent {
		for i := range r.Events {
			if r.Events[i].Kind == kind && match(r.Events[i]) {
				return &r.Events[i]
			}
		}
		return nil
	}
	isNext := func(e protocol.TraceEvent) bool { return strings.HasSuffix(e.URL, "/trace/next.html") }
	// The page's alert stays open until answered (docs/protocol.md#dialogs):
	// answer it once the trace has it, and the page goes on to navigate.
	traceUntil(t, tab, func(r protocol.TraceResult) bool {
		return find(r, protocol.TraceDialog, func(e protocol.TraceEvent) bool { return e.Text == "trace-fixture: dialog" }) != nil
	})
	mustRequest(t, map[string]any{"type": "handle_dialog", "tabId": tab, "accept": true}, nil)
	// The trace itself says when the page has left: a wait_for sent while
	// the navigation commits can fail on the old document's context.
	traceUntil(t, tab, func(r protocol.TraceResult) bool { return find(r, protocol.TraceNavigate, isNext) != nil })
	mustRequest(t, map[string]any{"type": "wait_for", "tabId": tab, "selector": "#arrived", "timeoutMs": 15000}, nil)
	r, raw := traceUntil(t, tab, func(r protocol.TraceResult) bool {
		return find(r, protocol.TraceNavigate, isNext) != nil && find(r, protocol.TraceAction, func(e protocol.TraceEvent) bool { return e.Action == "wait_for" }) != nil
	})
	t.Logf("trace:\n%s", raw)

	checks := []struct {
		what  string
		kind  string
		match func(protocol.TraceEvent) bool
	}{
		{"console.log with its object", protocol.TraceConsole, func(e protocol.TraceEvent) bool {
			return e.Level == "log" && e.Text == "trace-fixture: hello {a: 1}"
		}},
		{"console.error", protocol.TraceConsole, func(e protocol.TraceEvent) bool {
			return e.Level == "error" && e.Text == "trace-fixture: boom"
		}},
		{"the uncaught exception, with the page's URL", protocol.TraceException, func(e protocol.TraceEvent) bool {
			return strings.Contains(e.Text, "Error: trace-fixture: uncaught") && e.URL == siteURL(page)
		}},
		{"the 404", protocol.TraceRequest, func(e protocol.TraceEvent) bool {
			return e.Status == 404 && e.Method == "GET" && e.URL == siteURL("trace/missing.json") && e.ErrorText == ""
		}},
		{"the 500, a POST", protocol.TraceRequest, func(e protocol.TraceEvent) bool {
			return e.Status == 500 && e.Method == "POST" && e.URL == siteURL("trace/data.json?status=500")
		}},
		{"the refused request", protocol.TraceRequest, func(e protocol.TraceEvent) bool {
			return e.Status == 0 && e.Method == "GET" && e.URL == refused && strings.Contains(e.ErrorText, "ERR_CONNECTION_REFUSED")
		}},
		{"the alert", protocol.TraceDialog, func(e protocol.TraceEvent) bool {
			return e.Level == "alert" && e.Text == "trace-fixture: dialog"
		}},
		{"the navigation to next.html", protocol.TraceNavigate, isNext},
		{"bua's type, without its text", protocol.TraceAction, func(e protocol.TraceEvent) bool {
			return e.Action == "type" && e.Code == "" && e.Text == "" && e.DurationMs >= 0
		}},
		{"bua's click, with the code it answered", protocol.TraceAction, func(e protocol.TraceEvent) bool { return e.Action == "click" && e.Code == clickCode }},
		{"bua's wait_for", protocol.TraceAction, func(e protocol.TraceEvent) bool { return e.Action == "wait_for" && e.Code == "" }},
	}
	for _, c := range checks {
		if find(r, c.kind, c.match) == nil {
			t.Errorf("no %s event for %s", c.kind, c.what)
		}
	}
	for _, secret := range []string{typed, "HEADER-SECRET-7x1", "BODY-SECRET-3k8", "COOKIE-SECRET-9q2", "Authorization", "Bearer"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the trace holds %q", secret)
		}
	}
	// Order and time: seqs strictly increase, times lie within the test.
	end := float64(time.Now().UnixMilli())
	for i, e := range r.Events {
		if i > 0 && e.Seq != r.Events[i-1].Seq+1 {
			t.Errorf("seq %d follows %d", e.Seq, r.Events[i-1].Seq)
		}
		if e.T < start-1000 || e.T > end+1000 {
			t.Errorf("event %d at %.0f, outside the test's [%.0f, %.0f]", e.Seq, e.T, start, end)
		}
	}
	if r.Dropped != 0 || r.NextSeq != r.Events[len(r.Events)-1].Seq+1 || r.TabID == nil || *r.TabID != tab {
		t.Errorf("dropped %d, nextSeq %d, tabId %v after %d events", r.Dropped, r.NextSeq, r.TabID, len(r.Events))
	}

	// sinceSeq: nothing new; then only what came after.
	if again, _ := getTrace(t, tab, r.NextSeq); len(again.Events) != 0 || again.NextSeq != r.NextSeq {
		t.Errorf("get_trace sinceSeq=nextSeq returned %d events, nextSeq %d", len(again.Events), again.NextSeq)
	}
	evaluate(t, tab, `console.warn("after"); return 1`)
	newer, _ := traceUntil(t, tab, func(x protocol.TraceResult) bool { return x.NextSeq >= r.NextSeq+2 })
	var tail []string
	for _, e := range newer.Events {
		if e.Seq >= r.NextSeq {
			tail = append(tail, e.Kind+":"+e.Level+e.Action)
		}
	}
	if strings.Join(tail, " ") != "console:warning action:evaluate" {
		t.Errorf("events after the first read: %v, want the warning, then the evaluate", tail)
	}

	// The CLI prints it, one line per event.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "trace", "--tab", fmt.Sprint(tab))
	clickLine := regexp.MustCompile(`(?m)^\S+ action +ok +click `)
	if clickCode != "" {
		clickLine = regexp.MustCompile(`(?m)^\S+ action +` + clickCode + ` +click `)
	}
	for _, want := range []string{"request    404      GET " + siteURL("trace/missing.json"), "console    error    trace-fixture: boom"} {
		if out.Code != 0 || !strings.Contains(out.Stdout, want) {
			t.Errorf("bua trace: exit %d, no line with %q:\n%s%s", out.Code, want, out.Stdout, out.Stderr)
		}
	}
	if !clickLine.MatchString(out.Stdout) {
		t.Errorf("bua trace: no line matching %s for the click:\n%s", clickLine, out.Stdout)
	}

	// A closed tab's ring goes with it.
	mustRequest(t, map[string]any{"type": "close_tab", "tabId": tab}, nil)
	wantError(t, map[string]any{"type": "get_trace", "tabId": tab}, "tab_not_found")
}

// TestTraceFloodStaysBounded: a page that logs 20,000 messages leaves at
// most 500 events and 256 KiB in its tab's ring, counts the rest as
// dropped, and keeps seqs consistent: first by count (short messages),
// then by bytes (messages near the 1,000-character text limit).
func TestTraceFloodStaysBounded(t *testing.T) {
	tab := openTab(t, "trace/flood.html")
	check := func(phase string, total int) protocol.TraceResult {
		t.Helper()
		r, raw := traceUntil(t, tab, func(r protocol.TraceResult) bool { return r.NextSeq > total })
		if r.NextSeq <= total {
			t.Fatalf("%s: nextSeq %d after %d messages: the trace did not see them all", phase, r.NextSeq, total)
		}
		bytes := 0
		for i, e := range r.Events {
			b, _ := json.Marshal(e)
			bytes += len(b)
			if i > 0 && e.Seq != r.Events[i-1].Seq+1 {
				t.Errorf("%s: seq %d follows %d", phase, e.Seq, r.Events[i-1].Seq)
			}
			if utf8.RuneCountInString(e.Text) > 1000 {
				t.Errorf("%s: event %d's text has %d characters", phase, e.Seq, utf8.RuneCountInString(e.Text))
			}
		}
		if len(r.Events) > protocol.TraceMaxEvents || bytes > protocol.TraceMaxBytes {
			t.Errorf("%s: the ring holds %d events, %d bytes; bound %d, %d", phase, len(r.Events), bytes, protocol.TraceMaxEvents, protocol.TraceMaxBytes)
		}
		if r.Dropped <= 0 || r.Dropped+len(r.Events) != r.NextSeq-1 || r.Events[len(r.Events)-1].Seq != r.NextSeq-1 {
			t.Errorf("%s: dropped %d + %d held != nextSeq %d - 1", phase, r.Dropped, len(r.Events), r.NextSeq)
		}
		t.Logf("%s: %d events, %d bytes of JSON (%d on the wire), dropped %d, nextSeq %d", phase, len(r.Events), bytes, len(raw), r.Dropped, r.NextSeq)
		return r
	}

	// evaluate's own action event lands after the page's messages.
	if n := evaluate(t, tab, "return flood(10000, 10)"); n != float64(10000) {
		t.Fatalf("flood returned %v", n)
	}
	short := check("10,000 short messages", 10000)
	if len(short.Events) != protocol.TraceMaxEvents {
		t.Errorf("short messages: %d events held, want the count bound %d", len(short.Events), protocol.TraceMaxEvents)
	}

	if n := evaluate(t, tab, "return flood(10000, 2000)"); n != float64(10000) {
		t.Fatalf("flood returned %v", n)
	}
	long := check("10,000 long messages", 20000)
	if len(long.Events) >= protocol.TraceMaxEvents {
		t.Errorf("long messages: %d events held: the byte bound should bind first", len(long.Events))
	}
	// The ring still works after the flood: a new event comes in at nextSeq.
	evaluate(t, tab, `console.error("after the flood"); return 1`)
	after, _ := traceUntil(t, tab, func(r protocol.TraceResult) bool { return r.NextSeq >= long.NextSeq+2 })
	found := false
	for _, e := range after.Events {
		if e.Kind == protocol.TraceConsole && e.Text == "after the flood" && e.Seq >= long.NextSeq {
			found = true
		}
	}
	if !found {
		t.Errorf("no \"after the flood\" event at or after seq %d", long.NextSeq)
	}
}

// TestTraceRuntimeProbesStayQuiet: the page-side checks that betray a
// debugger with Runtime enabled (a logged Error's stack getter, a logged
// Proxy's traps, an object's getter) do not fire in a tab bua is attached
// to and tracing, while its console messages do reach the trace
// (docs/extension.md §Trace, "Runtime.enable and detection").
func TestTraceRuntimeProbesStayQuiet(t *testing.T) {
	tab := openTab(t, "trace/probe.html")
	r, _ := traceUntil(t, tab, func(r protocol.TraceResult) bool {
		n := 0
		for _, e := range r.Events {
			if e.Kind == protocol.TraceConsole {
				n++
			}
		}
		return n >= 30 // ten rounds of the three probes
	})
	var levels []string
	for _, e := range r.Events {
		if e.Kind == protocol.TraceConsole && len(levels) < 3 {
			levels = append(levels, e.Level+":"+e.Text)
		}
	}
	if len(levels) < 3 || !strings.HasPrefix(levels[0], "debug:Error: probe") {
		t.Fatalf("the probes' messages did not reach the trace as expected: %q", levels)
	}
	var out struct {
		Detected []string `json:"detected"`
		Probes   int      `json:"probes"`
	}
	raw, _ := json.Marshal(evaluate(t, tab, "return {detected: window.detected, probes: window.probes}"))
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Probes < 10 || len(out.Detected) != 0 {
		t.Errorf("after %d probe rounds the page detected %v", out.Probes, out.Detected)
	}
}

// BenchmarkNavigateMany navigates to a page with 150 images and 200 console
// lines, the load the trace's event sources weigh on most: the figures in
// docs/extension.md §Trace ("Why webRequest").
func BenchmarkNavigateMany(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "trace/many.html?n=0")
	samples := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		nav := fmt.Sprintf(`{"type":"navigate","tabId":%d,"url":%q}`, tab, siteURL(fmt.Sprintf("trace/many.html?n=%d", i+1)))
		start := time.Now()
		benchRequest(b, cl, nav)
		samples = append(samples, time.Since(start))
	}
	reportMedian(b, samples)
}

// TestTraceNamesWorkerSource: an action that fails with internal_error (a
// navigate to a port nobody listens on) leaves its stack in the trace, and
// `bua trace` prints its frames by the extension's source file and line
// (src/actions/nav.js, where the error is thrown), not by the bundle
// Chrome runs: the daemon maps them through worker.js.map (pkg/stackmap).
func TestTraceNamesWorkerSource(t *testing.T) {
	tab := openTab(t, "index.html")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	wantError(t, map[string]any{"type": "navigate", "tabId": tab, "url": "http://" + dead + "/"}, "internal_error")
	r, raw := traceUntil(t, tab, func(r protocol.TraceResult) bool {
		for _, e := range r.Events {
			if e.Kind == protocol.TraceAction && e.Action == "navigate" && e.Code == "internal_error" {
				return true
			}
		}
		return false
	})
	var stack string
	for _, e := range r.Events {
		if e.Kind == protocol.TraceAction && e.Action == "navigate" && e.Code == "internal_error" {
			stack = e.Text
		}
	}
	if !regexp.MustCompile(`at \S+ \(src/actions/nav\.js:\d+:\d+\)`).MatchString(stack) || strings.Contains(stack, "worker.js") {
		t.Fatalf("the navigate's stack in the trace does not name src/actions/nav.js (or still names worker.js):\n%s", raw)
	}
	out := mustCLI(t, "trace", "--tab", fmt.Sprint(tab)).Stdout
	if !regexp.MustCompile(`internal_error navigate \d+ms: .* at \S+ \(src/actions/nav\.js:\d+:\d+\)`).MatchString(out) {
		t.Errorf("bua trace does not print the navigate's stack by source file:\n%s", out)
	}
	t.Logf("bua trace:\n%s", out)
}

// TestTraceNamesPageSource: a page that spoils what extract's page script
// calls (getComputedStyle) fails the read with internal_error, and the
// trace's stack names the page module the script failed in
// (src/page/...), through the script's own map.
func TestTraceNamesPageSource(t *testing.T) {
	tab := openTab(t, "index.html")
	evalString(t, tab, "window.getComputedStyle = function () { throw new Error('spoilt by the page'); }; return 'ok'")
	wantError(t, map[string]any{"type": "extract", "tabId": tab}, "internal_error")
	r, raw := traceUntil(t, tab, func(r protocol.TraceResult) bool {
		for _, e := range r.Events {
			if e.Kind == protocol.TraceAction && e.Action == "extract" && e.Code == "internal_error" {
				return true
			}
		}
		return false
	})
	var stack string
	for _, e := range r.Events {
		if e.Kind == protocol.TraceAction && e.Action == "extract" && e.Code == "internal_error" {
			stack = e.Text
		}
	}
	if !regexp.MustCompile(`at \S+ \(src/page/[a-z-]+\.js:\d+:\d+\)`).MatchString(stack) || !strings.Contains(stack, "src/actions/extract.js:") || strings.Contains(stack, "bua-page-") {
		t.Fatalf("the extract's stack in the trace does not name its page module and src/actions/extract.js:\n%s", raw)
	}
	t.Logf("stack:\n%s", stack)
}
