package bridge_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestGlobalStop_CancelsInFlight: the extension's global_stop (the popup's
// Stop all) answers every request in flight on that connection at once with
// internal_error, reason global_stop, and cancels each in the extension
// (docs/protocol.md#events: the daemon treats the requests in flight as
// cancelled). A request sent after the stop runs as usual.
func TestGlobalStop_CancelsInFlight(t *testing.T) {
	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ext := silentExt(t, h, bridgetest.Options{})

	const n = 3
	type answer struct {
		err *protocol.Error
		at  time.Time
	}
	answers := make(chan answer, n)
	for i := 0; i < n; i++ {
		cl := h.Client(t) // one CLI command each
		go func() {
			_, err := cl.Request(context.Background(), protocol.WaitFor(protocol.Target{Selector: "#never"}, 30*time.Second))
			answers <- answer{err, time.Now()}
		}()
	}
	waitRequests(t, ext, n)
	stopped := time.Now()
	if err := ext.SendEvent(map[string]any{"type": "global_stop", "endedCount": 1}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		select {
		case a := <-answers:
			if a.err == nil || a.err.Code != protocol.CodeInternalError || a.err.Reason != protocol.ReasonGlobalStop {
				t.Fatalf("answer %d: %+v, want internal_error reason global_stop", i, a.err)
			}
			if !strings.Contains(a.err.Message, "stopped by the user") {
				t.Errorf("message %q lacks %q", a.err.Message, "stopped by the user")
			}
			if d := a.at.Sub(stopped); d > 2*time.Second {
				t.Errorf("answered %s after the stop, want at once", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of %d requests answered after global_stop", i, n)
		}
	}
	got := waitCancels(t, ext, n)
	want := ext.RequestIDs()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("cancels %v, want every request's id %v", got, want)
	}
	if n := h.Daemon.Pool().Stats().InFlight; n != 0 {
		t.Fatalf("in-flight = %d after the stop, want 0", n)
	}
	if !strings.Contains(logs.String(), `msg="global stop: requests cancelled"`) || !strings.Contains(logs.String(), "count=3") {
		t.Fatalf("log lacks the global stop line:\n%s", logs.String())
	}
	ext.HandleAll(bridgetest.OK)
	if _, err := h.Client(t).Request(context.Background(), protocol.Hover(protocol.Target{Selector: "a"})); err != nil {
		t.Fatalf("a request after the stop: %v", err)
	}
}

// TestGlobalStop_OtherConnectionUntouched: Stop all in one browser ends
// only that browser's requests.
func TestGlobalStop_OtherConnectionUntouched(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	user := silentExt(t, h, bridgetest.Options{})
	managed := h.ConnectManaged(t)
	managed.HandleAll(bridgetest.Slow(300*time.Millisecond, bridgetest.OK))
	pool := h.Daemon.Pool()
	done := make(chan *protocol.Error, 1)
	go func() {
		_, err := pool.Send(context.Background(), pool.Conn(bridge.SelectManaged), bridgetest.MustJSON(protocol.Hover(protocol.Target{Selector: "a"})))
		done <- err
	}()
	waitRequests(t, managed, 1)
	if err := user.SendEvent(map[string]any{"type": "global_stop", "endedCount": 0}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the managed browser's request: %v, want ok", err)
	}
}

// TestFeatureGate: an action whose schema def names a feature (x-feature)
// is refused before it is sent to an extension whose hello does not list
// it, with invalid_action reason refused and the way to update; one that
// lists it gets the action.
func TestFeatureGate(t *testing.T) {
	handoff := protocol.Handoff(protocol.HandoffRequested, "captcha", "A captcha is shown")
	t.Run("Missing", func(t *testing.T) {
		h := bridgetest.StartDaemon(t, bridge.Config{})
		ext := h.ConnectWith(t, bridgetest.Options{Caps: &protocol.Caps{Features: []string{protocol.FeatureCancel}}})
		ext.HandleAll(bridgetest.OK)
		_, err := h.Client(t).Request(context.Background(), handoff)
		if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused {
			t.Fatalf("err = %+v, want invalid_action reason refused", err)
		}
		for _, want := range []string{`"handoff" feature`, "bua extension path"} {
			if !strings.Contains(err.Message, want) {
				t.Errorf("message %q lacks %q", err.Message, want)
			}
		}
		if got := ext.Requests(); len(got) != 0 {
			t.Fatalf("the extension received %v, want nothing", got)
		}
	})
	t.Run("Listed", func(t *testing.T) {
		h := bridgetest.StartDaemon(t, bridge.Config{})
		ext := h.Connect(t) // lists every feature
		ext.HandleAll(bridgetest.OK)
		if _, err := h.Client(t).Request(context.Background(), handoff); err != nil {
			t.Fatal(err)
		}
		if got := ext.Requests(); len(got) != 1 || got[0].State != protocol.HandoffRequested {
			t.Fatalf("the extension received %+v, want the handoff", got)
		}
	})
}
