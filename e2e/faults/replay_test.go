//go:build linux

package faults

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// Replay-safe requests across a reconnect (docs/cancellation.md#reconnect,
// docs/decisions/replay-cache.md), in real Chromium with the real
// extension. faults/replay.html's counter button and input report each
// click and each input to the test's own server (actServer) with a
// synchronous request the server holds for ?ms=: the page is busy that
// long, so the click or the type is still in flight, its input landed,
// when the test sees the report and cuts the extension's connection
// (killConn) or stops its service worker (stopWorker). The caller gets the
// action's real answer after the reconnect, or, when the worker died
// mid-action, outcome_unknown ("may or may not have run"); the server
// counts one click, one typed text, never two.

// actServer serves testdata/sites/faults and counts the page's reports
// (/act?key=&what=&ms=), each answered ms later (at most 10 s).
type actServer struct {
	url string
	mu  sync.Mutex
	got map[string][]string // key -> what, in order
	hit chan string         // each report's key
}

func newActServer(t *testing.T) *actServer {
	t.Helper()
	s := &actServer{got: map[string][]string{}, hit: make(chan string, 64)}
	files := http.FileServer(http.Dir("../../testdata/sites/faults"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/act" {
			files.ServeHTTP(w, r)
			return
		}
		q := r.URL.Query()
		s.mu.Lock()
		s.got[q.Get("key")] = append(s.got[q.Get("key")], q.Get("what"))
		s.mu.Unlock()
		select {
		case s.hit <- q.Get("key"):
		default:
		}
		ms, _ := strconv.Atoi(q.Get("ms"))
		select {
		case <-time.After(time.Duration(min(max(ms, 0), 10000)) * time.Millisecond):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// reports lists what the page reported under key.
func (s *actServer) reports(key string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got[key])
}

// page opens faults/replay.html with its own key, its reports held ms,
// in a new tab of the shared browser, and returns the tab and the key.
func (s *actServer) page(t *testing.T, ms int) (tab, key string) {
	t.Helper()
	key = fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	return openTab(t, shared, fmt.Sprintf("%s/replay.html?key=%s&ms=%d", s.url, key, ms)), key
}

// landed waits up to 10 s for the page's first report under key: the
// action's input has landed, and the page is busy for the report's ms.
func (s *actServer) landed(t *testing.T, key string) time.Time {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case k := <-s.hit:
			if k == key {
				return time.Now()
			}
		case <-deadline:
			t.Fatalf("the page reported nothing under %s within 10 s", key)
		}
	}
}

// killConn cuts the extension's WebSocket to the shared daemon from the
// outside, as a network failure would: `ss -K` destroys the browser's TCP
// socket to the daemon's port (the kernel's SOCK_DESTROY, which needs
// root, as CI runs), so both ends see a reset and neither says goodbye.
// bua has no test hook for it, so none ships. It returns when it cut.
func killConn(t *testing.T) time.Time {
	t.Helper()
	_, port, err := net.SplitHostPort(status(t, shared).Listen)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	out, err := exec.Command("ss", "-K", "-t", "dst", "127.0.0.1", "dport", "=", ":"+port).CombinedOutput()
	if err != nil {
		t.Fatalf("ss -K (iproute2, root and a kernel with INET_DIAG_DESTROY): %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "127.0.0.1:"+port) {
		t.Fatalf("ss -K cut no connection to the daemon's port %s: is the extension connected?\n%s", port, out)
	}
	return at
}

// storedEntry is one replay-cache entry in the extension's
// chrome.storage.session: its state, its action's answer (nil while it has
// none) and what it costs there (getBytesInUse: its key and its JSON).
type storedEntry struct {
	State  string `json:"state"`
	Answer string `json:"answer"`
	Bytes  int    `json:"bytes"`
}

// replayStorage reads the replay cache from the extension's
// chrome.storage.session through the test's DevTools session on its
// service worker: every entry by key, and the bytes the whole area uses.
func replayStorage(t *testing.T, cdp *harness.CDP) (map[string]storedEntry, int) {
	t.Helper()
	sw, ok := workerTarget(t, cdp)
	if !ok {
		t.Fatal("the extension's service worker is not running")
	}
	sess, err := cdp.Attach(sw.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	defer cdp.Call("", "Target.detachFromTarget", map[string]any{"sessionId": sess})
	res, err := cdp.Call(sess, "Runtime.evaluate", map[string]any{
		"expression": `(async () => {
			const s = chrome.storage.session, all = await s.get(null), entries = {};
			for (const k of Object.keys(all).filter((k) => k.startsWith("replay:"))) {
				entries[k] = { state: all[k].state, answer: all[k].answer || "", bytes: await s.getBytesInUse(k) };
			}
			return { entries, total: await s.getBytesInUse(null) };
		})()`,
		"awaitPromise": true, "returnByValue": true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Value struct {
				Entries map[string]storedEntry `json:"entries"`
				Total   int                    `json:"total"`
			} `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	return r.Result.Value.Entries, r.Result.Value.Total
}

// resentCount counts the daemon log's requests re-sent after a reconnect.
func resentCount(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedHome, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "request re-sent after a reconnect")
}

// TestReplay_DropMidClick: the extension's connection is cut while a
// click is in flight, its input landed (the page is busy with it); the
// extension reconnects, the daemon re-sends the click, the extension joins
// the click still running, and the caller gets its ok. The page counts
// exactly one click, in each of the runs.
func TestReplay_DropMidClick(t *testing.T) {
	exclusive(t)
	srv := newActServer(t)
	strayBefore, resentBefore := strays(t, sharedHome), resentCount(t)
	const runs = 3
	for i := range runs {
		tab, key := srv.page(t, 2000)
		click := start(shared, 60*time.Second, "--json", "click", "--tab", tab, "#inc")
		landed := srv.landed(t, key)
		dropped := killConn(t)
		r := <-click
		mustOK(t, fmt.Sprintf("click %d across a dropped connection", i+1), r.Result)
		back, ok := reconnectedAfter(t, shared, dropped, 10*time.Second)
		if !ok {
			t.Fatal("the extension did not reconnect within 10 s of the drop")
		}
		if got := srv.reports(key); !slices.Equal(got, []string{"click"}) {
			t.Fatalf("run %d: the page reported %q, want exactly one click", i+1, got)
		}
		t.Logf("run %d: cut %s after the click landed; reconnected %s after the cut; answered %s after the reconnect (the rest of the page's 2 s)",
			i+1, dropped.Sub(landed).Round(time.Millisecond), back.Round(time.Millisecond), r.ended.Sub(dropped.Add(back)).Round(time.Millisecond))
	}
	if n := resentCount(t) - resentBefore; n != runs {
		t.Errorf("daemon.log has %d requests re-sent after a reconnect, want %d", n, runs)
	}
	everyAnswered(t, shared, sharedHome, strayBefore)

	// What the cache costs in chrome.storage.session: the clicks' entries
	// hold their answers; none is larger than x-replay lets an answer be.
	entries, total := replayStorage(t, sharedCDP(t))
	var clicks []int
	for key, e := range entries {
		if e.Bytes > 16384+512 {
			t.Errorf("%s takes %d bytes of chrome.storage.session: more than a 16 KB answer and its bookkeeping", key, e.Bytes)
		}
		var resp struct {
			Result map[string]any `json:"result"`
		}
		if e.State == "answered" && json.Unmarshal([]byte(e.Answer), &resp) == nil && len(resp.Result) == 2 && resp.Result["ok"] == true {
			clicks = append(clicks, e.Bytes)
		}
	}
	if len(entries) == 0 || len(entries) > 256 || len(clicks) < runs {
		t.Fatalf("chrome.storage.session holds %d replay entries, %d of them answered {ok, tabId}: want the %d clicks among at most 256", len(entries), len(clicks), runs)
	}
	t.Logf("chrome.storage.session: %d replay entries, %d bytes in all; an answered click's entry takes %v bytes", len(entries), total, clicks)
}

// TestReplay_DropMidType: the same for a type: the text goes in once, and
// the caller gets ok. The page is quick (300 ms), so the type usually
// ends while the extension is away and is answered from its replay cache.
func TestReplay_DropMidType(t *testing.T) {
	exclusive(t)
	srv := newActServer(t)
	strayBefore := strays(t, sharedHome)
	tab, key := srv.page(t, 300)
	typing := start(shared, 60*time.Second, "--json", "type", "--tab", tab, "#q", "hello")
	srv.landed(t, key)
	dropped := killConn(t)
	r := <-typing
	mustOK(t, "type across a dropped connection", r.Result)
	back, ok := reconnectedAfter(t, shared, dropped, 10*time.Second)
	if !ok {
		t.Fatal("the extension did not reconnect within 10 s of the drop")
	}
	if got := srv.reports(key); !slices.Equal(got, []string{"type:hello"}) {
		t.Fatalf("the page reported %q, want the text once", got)
	}
	value := run(t, shared, 30*time.Second, "eval", "--tab", tab, "return document.querySelector('#q').value")
	mustOK(t, "eval", value)
	if v := strings.TrimSpace(value.Stdout); v != "hello" {
		t.Errorf("the input holds %q, want hello", v)
	}
	t.Logf("type: reconnected %s after the cut; answered %s after the reconnect", back.Round(time.Millisecond), r.ended.Sub(dropped.Add(back)).Round(time.Millisecond))
	everyAnswered(t, shared, sharedHome, strayBefore)
}

// TestReplay_WorkerRestartMidClick: the extension's service worker is
// stopped while a click is in flight, its input landed, and started again
// at once (as the next event would). The restarted worker reconnects as
// the same instance, the daemon re-sends the click, and the worker finds
// the click's started mark in chrome.storage.session with no answer: it
// answers outcome_unknown ("may or may not have run") rather than click
// again. The page counts one click; the tab works on.
func TestReplay_WorkerRestartMidClick(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	srv := newActServer(t)
	waker := siteURL("form.html?replay-waker")
	openTab(t, shared, waker)
	tab, key := srv.page(t, 2000)
	click := start(shared, 60*time.Second, "--json", "click", "--tab", tab, "#inc")
	srv.landed(t, key)
	stopped := stopWorker(t, cdp)
	startWorker(t, cdp, waker)
	r := <-click
	back, ok := reconnectedAfter(t, shared, stopped, 10*time.Second)
	if !ok {
		t.Fatal("the worker did not reconnect within 10 s")
	}
	answer := "ok"
	if r.Code != 0 {
		e := harness.Failure(t, r.Result)
		if e.Error.Code != "internal_error" || e.Error.Reason != "outcome_unknown" || !strings.Contains(e.Error.Message, "may or may not") {
			t.Fatalf("click after a worker restart: exit %d, %s (%s) %q: want ok, or internal_error outcome_unknown", r.Code, e.Error.Code, e.Error.Reason, e.Error.Message)
		}
		answer = e.Error.Message
	}
	if got := srv.reports(key); !slices.Equal(got, []string{"click"}) {
		t.Fatalf("the page reported %q, want exactly one click: the click ran again", got)
	}
	count := run(t, shared, 30*time.Second, "eval", "--tab", tab, "return document.querySelector('#count').value")
	mustOK(t, "eval after the restart", count)
	if v := strings.TrimSpace(count.Stdout); v != "1" {
		t.Fatalf("the counter reads %s after the restart, want 1", v)
	}
	var marks []int // entries still marked started: the click's, cut short
	entries, _ := replayStorage(t, cdp)
	for _, e := range entries {
		if e.State == "started" {
			marks = append(marks, e.Bytes)
		}
	}
	if len(marks) == 0 {
		t.Errorf("no started mark left in chrome.storage.session for the click the worker restart cut short")
	}
	t.Logf("worker reconnected %s after it was stopped; answered %s after that: %s; a started mark takes %v bytes of chrome.storage.session",
		back.Round(time.Millisecond), r.ended.Sub(stopped.Add(back)).Round(time.Millisecond), answer, marks)
}
