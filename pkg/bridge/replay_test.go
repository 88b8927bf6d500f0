package bridge_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Replay-safe requests across a reconnect (docs/cancellation.md#reconnect,
// docs/decisions/replay-cache.md): a connection that drops while an
// extension with the replay feature runs a request no longer fails it at
// once. The pool holds it until the same extension instance reconnects,
// re-sends it with the same id, and the caller gets the real answer; the
// action runs once. The fake extension (bridgetest, Options.Instance)
// keeps a replay cache as the real one does; the real one is proved in
// e2e/faults/replay_test.go.

// replayDaemon starts a daemon whose log the test reads, holding dropped
// requests for grace (0: the default).
func replayDaemon(t *testing.T, grace time.Duration) (*bridgetest.Harness, *syncbuf.Buffer) {
	t.Helper()
	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{ReconnectGrace: grace, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	return h, &logs
}

// counted is a click handler that counts its runs, takes d, and answers ok.
func counted(runs *atomic.Int32, d time.Duration) bridgetest.Handler {
	return func(a protocol.Action) (any, *protocol.Error) {
		runs.Add(1)
		time.Sleep(d) // a test fake standing in for the action's work on the page
		return bridgetest.OK(a)
	}
}

// assertResent checks that the fake got the request twice, with one id,
// the second time marked replay and with less of its deadline left.
func assertResent(t *testing.T, ext *bridgetest.Extension) {
	t.Helper()
	ids, replays, deadlines := ext.RequestIDs(), ext.Replays(), ext.Deadlines()
	if len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("request ids = %v, want the same id twice (sent, then re-sent after the reconnect)", ids)
	}
	if !slices.Equal(replays, []bool{false, true}) {
		t.Errorf("replay flags = %v, want [false true]", replays)
	}
	if deadlines[1] >= deadlines[0] {
		t.Errorf("deadlineMs = %v: the re-sent request must carry what is left of the deadline", deadlines)
	}
}

// TestReplay_AnsweredFromCache: the connection drops as the click starts;
// the click finishes while the extension is away; the extension
// reconnects, the pool re-sends the click, and the fake answers it from
// its replay cache. The caller gets ok, and the click ran once.
func TestReplay_AnsweredFromCache(t *testing.T) {
	h, logs := replayDaemon(t, 0)
	ext := h.ConnectWith(t, bridgetest.Options{Instance: "inst-a"})
	var runs atomic.Int32
	ext.Handle(protocol.ActionClick, ext.Reconnecting(t, 200*time.Millisecond, counted(&runs, 20*time.Millisecond)))

	t0 := time.Now()
	res, err := send(context.Background(), h, protocol.Click(protocol.Target{UID: "e1"}))
	if err != nil {
		t.Fatalf("click across a reconnect: %v", err)
	}
	took := time.Since(t0)
	if !strings.Contains(string(res), `"ok":true`) {
		t.Fatalf("result = %s", res)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the click ran %d times, want once", n)
	}
	assertResent(t, ext)
	if !strings.Contains(logs.String(), "request re-sent after a reconnect") {
		t.Errorf("daemon log does not say the request was re-sent:\n%s", logs.String())
	}
	if n := h.Daemon.Pool().Stats().InFlight; n != 0 {
		t.Errorf("in flight after the answer = %d", n)
	}
	t.Logf("drop at the start, reconnect after 200 ms: answered %s after it was sent, %s after the reconnect began (its handshake included)", took.Round(time.Millisecond), (took - 200*time.Millisecond).Round(time.Millisecond))
}

// TestReplay_JoinsRunning: the extension is back while the click still
// runs; the re-sent request joins it, and the click's one answer reaches
// the caller on the new connection once it ends.
func TestReplay_JoinsRunning(t *testing.T) {
	h, logs := replayDaemon(t, 0)
	ext := h.ConnectWith(t, bridgetest.Options{Instance: "inst-a"})
	var runs atomic.Int32
	ext.Handle(protocol.ActionClick, ext.Reconnecting(t, 20*time.Millisecond, counted(&runs, 400*time.Millisecond)))

	t0 := time.Now()
	if _, err := send(context.Background(), h, protocol.Click(protocol.Target{UID: "e1"})); err != nil {
		t.Fatalf("click across a reconnect: %v", err)
	}
	if took := time.Since(t0); took < 400*time.Millisecond {
		t.Errorf("answered after %s, before the click had run its 400 ms", took)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the click ran %d times, want once", n)
	}
	assertResent(t, ext)
	if strings.Contains(logs.String(), "stray or late response") {
		t.Errorf("a joined request was answered twice:\n%s", logs.String())
	}
}

// TestReplay_SameInstanceBeforeDropSeen: the same instance connects again
// while its old connection still looks open to the daemon (a worker
// restart whose old socket has not closed yet). It is a reconnect, not a
// replacement: nothing is marked replaced, and the request in flight is
// re-sent on the new connection and answered there.
func TestReplay_SameInstanceBeforeDropSeen(t *testing.T) {
	h, _ := replayDaemon(t, 0)
	ext := h.ConnectWith(t, bridgetest.Options{Instance: "inst-a"})
	release := make(chan struct{})
	var runs atomic.Int32
	ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		runs.Add(1)
		<-release
		return bridgetest.OK(a)
	})
	done := make(chan *protocol.Error, 1)
	go func() {
		_, err := send(context.Background(), h, protocol.Click(protocol.Target{UID: "e1"}))
		done <- err
	}()
	if !poll(func() bool { return len(ext.RequestIDs()) == 1 }) {
		t.Fatal("the click never reached the extension")
	}
	if err := ext.Redial(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !poll(func() bool { return len(ext.RequestIDs()) == 2 }) {
		t.Fatalf("the click was not re-sent on the new connection: ids %v", ext.RequestIDs())
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("click: %v", err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the click ran %d times, want once", n)
	}
	assertResent(t, ext)
	st, perr := h.Client(t).Status(context.Background())
	if perr != nil {
		t.Fatal(perr)
	}
	if len(st.Replaced) != 0 || len(st.Connections) != 1 {
		t.Errorf("status: replaced %v, %d connections: want a reconnect, not a replacement", st.Replaced, len(st.Connections))
	}
}

// TestReplay_Fails: when the request cannot be resumed it fails as a drop
// always did, internal_error with reason outcome_unknown ("may or may not
// have run"), and never runs anywhere else: at once for an extension
// without the replay feature and when another instance takes the pairing,
// after the grace when nobody reconnects, and with timeout when the
// deadline comes first.
func TestReplay_Fails(t *testing.T) {
	dropSilently := func(ext *bridgetest.Extension) bridgetest.Handler {
		return func(protocol.Action) (any, *protocol.Error) {
			ext.Drop()
			return nil, bridgetest.Silent
		}
	}
	tests := []struct {
		name     string
		instance string
		grace    time.Duration
		timeout  time.Duration // the caller's, 0 for the default
		after    func(t *testing.T, h *bridgetest.Harness)
		code     protocol.ErrorCode
		reason   string
		say      string
		within   [2]time.Duration
	}{
		{"OldExtension", "", 300 * time.Millisecond, 0, nil, protocol.CodeInternalError, protocol.ReasonOutcomeUnknown,
			"may or may not have run", [2]time.Duration{0, 150 * time.Millisecond}},
		{"NoReconnect", "inst-a", 300 * time.Millisecond, 0, nil, protocol.CodeInternalError, protocol.ReasonOutcomeUnknown,
			"did not reconnect within", [2]time.Duration{300 * time.Millisecond, 1500 * time.Millisecond}},
		{"OtherInstance", "inst-a", 300 * time.Millisecond, 0, func(t *testing.T, h *bridgetest.Harness) {
			time.Sleep(50 * time.Millisecond)
			other := h.ConnectWith(t, bridgetest.Options{Instance: "inst-b"})
			time.Sleep(100 * time.Millisecond)
			if n := len(other.Requests()); n != 0 {
				t.Errorf("another instance was sent %d requests: its cache is not the first one's", n)
			}
		}, protocol.CodeInternalError, protocol.ReasonOutcomeUnknown,
			"another extension instance connected", [2]time.Duration{50 * time.Millisecond, 250 * time.Millisecond}},
		// The caller's 200 ms plus the ladder's 750 ms margin, well inside
		// the grace.
		{"DeadlineFirst", "inst-a", 5 * time.Second, 200 * time.Millisecond, nil, protocol.CodeTimeout, "",
			"within 200ms", [2]time.Duration{950 * time.Millisecond, 2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := replayDaemon(t, tt.grace)
			ext := h.ConnectWith(t, bridgetest.Options{Instance: tt.instance})
			ext.Handle(protocol.ActionClick, dropSilently(ext))
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = protocol.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			if tt.after != nil {
				// It must end before the subtest does: a failure it
				// reports after that would panic the whole package.
				done := make(chan struct{})
				go func() { defer close(done); tt.after(t, h) }()
				defer func() { <-done }()
			}
			t0 := time.Now()
			_, err := send(ctx, h, protocol.Click(protocol.Target{UID: "e1"}))
			took := time.Since(t0)
			if err == nil || err.Code != tt.code || err.Reason != tt.reason || !strings.Contains(err.Message, tt.say) {
				t.Fatalf("err = %+v, want %s reason %q saying %q", err, tt.code, tt.reason, tt.say)
			}
			if took < tt.within[0] || took > tt.within[1] {
				t.Errorf("failed after %s, want within %v", took.Round(time.Millisecond), tt.within)
			}
			if n := len(ext.Requests()); n != 1 {
				t.Errorf("the extension got the click %d times, want once", n)
			}
		})
	}
}

// TestReplay_CancelWhileHeld: the caller gives up while its request is
// held; it hears "aborted by caller" at once, the request is not re-sent,
// and the extension, which still runs the action, gets cancel {id} on its
// new connection (docs/cancellation.md#cancellation).
func TestReplay_CancelWhileHeld(t *testing.T) {
	h, logs := replayDaemon(t, 3*time.Second)
	ext := h.ConnectWith(t, bridgetest.Options{Instance: "inst-a"})
	ext.Handle(protocol.ActionClick, ext.Reconnecting(t, 400*time.Millisecond, func(protocol.Action) (any, *protocol.Error) {
		return nil, bridgetest.Silent // still running when the caller gives up
	}))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := send(ctx, h, protocol.Click(protocol.Target{UID: "e1"}))
	if err == nil || err.Code != protocol.CodeInternalError || err.Message != "aborted by caller" {
		t.Fatalf("err = %v, want internal_error aborted by caller", err)
	}
	if took := time.Since(t0); took > 350*time.Millisecond {
		t.Errorf("the cancelled request ended %s after it was sent: want at once, not after the reconnect", took)
	}
	id := lastID(t, ext)
	if got := waitCancels(t, ext, 1); !slices.Equal(got, []string{id}) {
		t.Fatalf("cancels after the reconnect = %v, want [%s]\n%s", got, id, logs.String())
	}
	if n := len(ext.Requests()); n != 1 {
		t.Errorf("the click was sent %d times: a cancelled request is not re-sent", n)
	}
	if n := h.Daemon.Pool().Stats().InFlight; n != 0 {
		t.Errorf("in flight = %d", n)
	}
}

// TestReplay_ManagedBrowserExits: a managed browser that exits while its
// request is held ends the wait at once: nothing of it will reconnect. The
// request is bridge_unavailable, reason outcome_unknown (no browser is
// there to answer; the action may have run).
func TestReplay_ManagedBrowserExits(t *testing.T) {
	proc := &hungBrowser{done: make(chan struct{})}
	h := bridgetest.StartDaemon(t, bridge.Config{
		Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) { return proc, nil },
	})
	managed, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Browser: bridge.SelectManaged})
	if perr != nil {
		t.Fatal(perr)
	}
	defer managed.Close()
	started := make(chan *protocol.Error, 1)
	go func() {
		_, err := managed.BrowserStart(context.Background(), "", bridge.BrowserOptions{Headless: true})
		started <- err
	}()
	var ext *bridgetest.Extension
	if !poll(func() bool {
		e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.ManagedToken, Instance: "inst-m"})
		ext = e
		return err == nil
	}) {
		t.Fatal("the fake never connected as the managed browser")
	}
	t.Cleanup(func() { ext.Close() })
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
		ext.Drop()
		time.AfterFunc(100*time.Millisecond, func() { _ = proc.Stop(context.Background()) })
		return nil, bridgetest.Silent
	})
	t0 := time.Now()
	_, err := managed.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}))
	if err == nil || err.Code != protocol.CodeBridgeUnavailable || err.Reason != protocol.ReasonOutcomeUnknown || !strings.Contains(err.Message, "browser managed exited") {
		t.Fatalf("err = %+v, want bridge_unavailable, outcome_unknown, saying the browser exited", err)
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("failed %s after the request: want when the browser exits, not after the grace", took)
	}
}

// TestReplay_StatusCountsHeld: a held request is in flight for `bua
// status` (and for the daemon's idle check), and counted as held.
func TestReplay_StatusCountsHeld(t *testing.T) {
	h, _ := replayDaemon(t, time.Second)
	ext := h.ConnectWith(t, bridgetest.Options{Instance: "inst-a"})
	ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
		ext.Drop()
		return nil, bridgetest.Silent
	})
	done := make(chan *protocol.Error, 1)
	go func() {
		_, err := send(context.Background(), h, protocol.Click(protocol.Target{UID: "e1"}))
		done <- err
	}()
	c := h.Client(t)
	var st bridge.Status
	// The request is held as the connection drops, and the connection
	// leaves the pool a moment later: wait for both.
	if !poll(func() bool { st, _ = c.Status(context.Background()); return st.Held == 1 && len(st.Connections) == 0 }) {
		t.Fatalf("status while the click is held: held %d, in flight %d, %d connections", st.Held, st.InFlight, len(st.Connections))
	}
	if st.InFlight != 1 {
		t.Errorf("status while held: in flight %d, %d connections: want 1 in flight, none connected", st.InFlight, len(st.Connections))
	}
	if err := <-done; err == nil || err.Reason != protocol.ReasonOutcomeUnknown {
		t.Fatalf("err = %v, want outcome_unknown after the grace", err)
	}
	if st, _ = c.Status(context.Background()); st.Held != 0 || st.InFlight != 0 {
		t.Errorf("status after: held %d, in flight %d", st.Held, st.InFlight)
	}
}
