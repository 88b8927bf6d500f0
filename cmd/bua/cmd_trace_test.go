package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// traceFixture is one event of each kind, with page text that tries to
// drive the terminal and spans lines.
var traceFixture = []protocol.TraceEvent{
	{Kind: protocol.TraceNavigate, URL: "http://a.test/shop"},
	{Kind: protocol.TraceConsole, Level: "error", Text: "cart failed \x1b[31mRED\x1b[0m\n    at load (app.js:3:1)"},
	{Kind: protocol.TraceException, Text: "Uncaught TypeError: x is undefined", URL: "http://a.test/app.js"},
	{Kind: protocol.TraceRequest, Method: "POST", URL: "http://a.test/api/cart", Status: 500},
	{Kind: protocol.TraceRequest, Method: "GET", URL: "http://down.test/x", ErrorText: "net::ERR_NAME_NOT_RESOLVED"},
	{Kind: protocol.TraceDialog, Level: "confirm", Text: "Leave?"},
	{Kind: protocol.TraceDialog, Level: "confirm", Text: "Leave?", Answer: protocol.TraceDismissed, Action: "handle_dialog"},
	{Kind: protocol.TraceDialog, Level: "beforeunload", Answer: protocol.TraceAccepted, Action: "navigate"},
	{Kind: protocol.TraceAction, Action: "click", DurationMs: 42, Code: "element_not_found"},
}

// TestTraceText: one line per event: time, kind, level or status, text or
// URL, with control characters escaped and a stack kept on one line.
func TestTraceText(t *testing.T) {
	h, ext := startFake(t)
	ext.Trace(5, traceFixture...)
	r := runCLI(t, h, "", "trace", "--tab", "5")
	if r.code != 0 {
		t.Fatalf("trace: exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	want := []string{
		`navigation -        http://a.test/shop`,
		`console    error    cart failed \x1b[31mRED\x1b[0m ⏎ at load (app.js:3:1)`,
		`exception  uncaught Uncaught TypeError: x is undefined (http://a.test/app.js)`,
		`request    500      POST http://a.test/api/cart`,
		`request    failed   GET http://down.test/x: net::ERR_NAME_NOT_RESOLVED`,
		`dialog     confirm  Leave?`,
		`dialog     confirm  Leave?: dismissed by handle_dialog`,
		`dialog     beforeunload accepted by navigate`,
		`action     element_not_found click 42ms`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), r.stdout)
	}
	stamp := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} `)
	for i, l := range lines {
		if !stamp.MatchString(l) {
			t.Errorf("line %d %q does not start with a time", i, l)
			continue
		}
		if got := l[13:]; got != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, got, want[i])
		}
	}
	if strings.Contains(r.stdout, "\x1b") {
		t.Error("a raw escape reached the terminal")
	}
	if r.stderr != "" {
		t.Errorf("stderr %q, want nothing (no events were dropped)", r.stderr)
	}
	// get_trace went to the tab asked for, from the start of its ring.
	reqs := ext.Requests()
	last := reqs[len(reqs)-1]
	if last.Type != protocol.ActionGetTrace || last.TabID == nil || *last.TabID != 5 || last.SinceSeq == nil || *last.SinceSeq != 0 {
		t.Errorf("sent %+v, want get_trace {tabId 5, sinceSeq 0}", last)
	}
}

// TestTraceJSON: --json prints get_trace's result; dropped events are
// counted there and, in text, noted on stderr.
func TestTraceJSON(t *testing.T) {
	h, ext := startFake(t)
	for i := 0; i < protocol.TraceMaxEvents+100; i++ {
		ext.Trace(3, protocol.TraceEvent{Kind: protocol.TraceConsole, Level: "log", Text: fmt.Sprint("m", i)})
	}
	r := runCLI(t, h, "", "trace", "--tab", "3", "--json")
	var res protocol.TraceResult
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
		t.Fatalf("trace --json: exit %d, %q", r.code, r.stdout)
	}
	if len(res.Events) != protocol.TraceMaxEvents || res.Dropped != 100 || res.NextSeq != protocol.TraceMaxEvents+101 || res.Events[0].Text != "m100" {
		t.Errorf("got %d events from %q, dropped %d, nextSeq %d", len(res.Events), res.Events[0].Text, res.Dropped, res.NextSeq)
	}
	r = runCLI(t, h, "", "trace", "--tab", "3")
	if !strings.Contains(r.stderr, "100 older events were dropped") {
		t.Errorf("stderr %q, want the dropped note", r.stderr)
	}
	if r := runCLI(t, h, "", "trace", "extra"); r.code != exitUsage {
		t.Errorf("trace extra: exit %d, want usage", r.code)
	}
}

// lockedBuffer is a bytes.Buffer the follow goroutine writes while the
// test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTraceFollow: --follow --json prints each event once as NDJSON, as it
// comes, asking with sinceSeq = the last nextSeq, and exits 0 on Ctrl-C.
func TestTraceFollow(t *testing.T) {
	h, ext := startFake(t)
	ext.Trace(4, protocol.TraceEvent{Kind: protocol.TraceConsole, Level: "log", Text: "before"})
	var out, errb lockedBuffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "BUA_HOME" {
				return h.Dirs.Config
			}
			return ""
		},
		Now: time.Now,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"bua", "trace", "--tab", "4", "--follow", "--json", "--interval", "20ms"}, env)
	}()
	waitFor := func(n int) []protocol.TraceEvent {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var evs []protocol.TraceEvent
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if l == "" {
					continue
				}
				var ev protocol.TraceEvent
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("not one event per line: %q: %v", l, err)
				}
				evs = append(evs, ev)
			}
			if len(evs) >= n || time.Now().After(deadline) {
				return evs
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if evs := waitFor(1); len(evs) != 1 || evs[0].Text != "before" {
		t.Fatalf("first poll printed %+v, want the event already there", evs)
	}
	ext.Trace(4, protocol.TraceEvent{Kind: protocol.TraceConsole, Level: "log", Text: "a"}, protocol.TraceEvent{Kind: protocol.TraceConsole, Level: "log", Text: "b"})
	waitFor(3)
	// Two polls with nothing new (each asks from nextSeq 4, after b), then
	// the next event: waited for, not slept, so a loaded machine polls as
	// often as an idle one here.
	polls := func(since int) (n int) {
		for _, a := range ext.Requests() {
			if a.Type == protocol.ActionGetTrace && *a.SinceSeq == since {
				n++
			}
		}
		return n
	}
	for end := time.Now().Add(10 * time.Second); polls(4) < 2 && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	ext.Trace(4, protocol.TraceEvent{Kind: protocol.TraceRequest, Method: "GET", URL: "http://a.test/gone", Status: 404})
	evs := waitFor(4)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("Ctrl-C ended the follow with exit %d (stderr %q), want 0", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--follow did not end on Ctrl-C")
	}
	var texts []string
	for i, ev := range evs {
		if ev.Seq != i+1 {
			t.Errorf("event %d has seq %d: printed twice or skipped", i, ev.Seq)
		}
		texts = append(texts, ev.Text+ev.URL)
	}
	if strings.Join(texts, ",") != "before,a,b,http://a.test/gone" {
		t.Errorf("followed %v", texts)
	}
	// Every poll after the first asked from the last nextSeq: 0, then 2
	// (after "before") until a and b came, then 4 (at least the two quiet
	// polls and the one that brought the request), then 5 (after it) until
	// the Ctrl-C. A poll with nothing new keeps its sinceSeq.
	var sinces strings.Builder
	for _, a := range ext.Requests() {
		if a.Type == protocol.ActionGetTrace {
			fmt.Fprintf(&sinces, "%d,", *a.SinceSeq)
		}
	}
	if !regexp.MustCompile(`^0,(2,)+4,4,(4,)+(5,)*$`).MatchString(sinces.String()) {
		t.Errorf("sinceSeq of the polls: %s want 0, then 2 until a and b came, then 4 at least three times, then 5", sinces.String())
	}
}

// TestTraceFollowTimeout: the global --timeout ends a follow, exit 0.
func TestTraceFollowTimeout(t *testing.T) {
	h, ext := startFake(t)
	ext.Trace(0, protocol.TraceEvent{Kind: protocol.TraceNavigate, URL: "http://a.test/"})
	start := time.Now()
	r := runCLI(t, h, "", "trace", "--follow", "--interval", "20ms", "--timeout", "300ms")
	if r.code != 0 || !strings.Contains(r.stdout, "navigation -        http://a.test/") {
		t.Fatalf("trace --follow --timeout: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the follow took %s to end after a 300ms --timeout", took)
	}
}

// TestFakeTracesActions: the fake extension records each action it
// serves, as the extension does, so runner tests can read a trace.
func TestFakeTracesActions(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeElementNotFound, Message: "no #x"}
	})
	runCLI(t, h, "", "press", "Enter", "--tab", "2")
	runCLI(t, h, "", "click", "#x", "--tab", "2")
	r := runCLI(t, h, "", "trace", "--tab", "2", "--json")
	var res protocol.TraceResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	var got []string
	for _, ev := range res.Events {
		got = append(got, ev.Kind+":"+ev.Action+":"+ev.Code)
	}
	if strings.Join(got, " ") != "action:press_key: action:click:element_not_found" {
		t.Errorf("trace of the fake: %v", got)
	}
}
