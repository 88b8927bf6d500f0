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

// silentExt is a fake extension that lists the cancel feature (as the real
// one does) and never answers.
func silentExt(t *testing.T, h *bridgetest.Harness, o bridgetest.Options) *bridgetest.Extension {
	t.Helper()
	ext := h.ConnectWith(t, o)
	ext.HandleAll(func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	return ext
}

// waitCancels waits up to 2 s for the fake to have received n cancels.
func waitCancels(t *testing.T, ext *bridgetest.Extension, n int) []string {
	t.Helper()
	stop := time.Now().Add(2 * time.Second)
	for time.Now().Before(stop) {
		if got := ext.Cancels(); len(got) >= n {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ext.Cancels()
}

// lastID is the id of the newest request the fake received, waiting up to
// 2 s for a first one: the caller may give up on a request the pool has
// written before the fake has read it.
func lastID(t *testing.T, ext *bridgetest.Extension) string {
	t.Helper()
	stop := time.Now().Add(2 * time.Second)
	ids := ext.RequestIDs()
	for len(ids) == 0 && time.Now().Before(stop) {
		time.Sleep(5 * time.Millisecond)
		ids = ext.RequestIDs()
	}
	if len(ids) == 0 {
		t.Fatal("the extension received no request")
	}
	return ids[len(ids)-1]
}

// TestPool_SendsCancel: a sent request that ends without its response, by
// the caller cancelling or by its deadline, is cancelled in an extension
// that lists the cancel feature, and logged with its id, action and reason
// (docs/cancellation.md#cancellation).
func TestPool_SendsCancel(t *testing.T) {
	tests := []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		wantCode protocol.ErrorCode
	}{
		{"CallerCancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, protocol.CodeInternalError},
		{"DeadlinePassed", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, protocol.CodeTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncbuf.Buffer
			h := bridgetest.StartDaemon(t, bridge.Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
			ext := silentExt(t, h, bridgetest.Options{})
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := send(ctx, h, protocol.WaitFor(protocol.Target{Selector: "#never"}, 0))
			if err == nil || err.Code != tt.wantCode {
				t.Fatalf("err = %v, want %s", err, tt.wantCode)
			}
			id := lastID(t, ext)
			if got := waitCancels(t, ext, 1); !slices.Equal(got, []string{id}) {
				t.Fatalf("cancels = %v, want [%s]", got, id)
			}
			for _, want := range []string{`msg="request cancelled"`, "id=" + id, "action=wait_for", "reason=", "cancelSent=true"} {
				if !strings.Contains(logs.String(), want) {
					t.Fatalf("log lacks %q:\n%s", want, logs.String())
				}
			}
			if n := h.Daemon.Pool().Stats().InFlight; n != 0 {
				t.Fatalf("in-flight = %d, want 0", n)
			}
		})
	}
}

// TestPool_NoCancelWithoutFeature: an extension whose hello does not list
// the cancel feature never gets the message (it may not know it).
func TestPool_NoCancelWithoutFeature(t *testing.T) {
	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ext := silentExt(t, h, bridgetest.Options{Caps: &protocol.Caps{Features: []string{protocol.FeatureHeartbeat}}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := send(ctx, h, protocol.Hover(protocol.Target{Selector: "a"})); err == nil || err.Code != protocol.CodeTimeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	// A cancel, had one been sent, is queued before Send returns: a
	// round trip on the same socket proves none is in flight.
	ext.HandleAll(bridgetest.OK)
	if _, err := send(context.Background(), h, protocol.Hover(protocol.Target{Selector: "a"})); err != nil {
		t.Fatal(err)
	}
	if got := ext.Cancels(); len(got) != 0 {
		t.Fatalf("cancels = %v, want none", got)
	}
	if !strings.Contains(logs.String(), "cancelSent=false") {
		t.Fatalf("log lacks cancelSent=false:\n%s", logs.String())
	}
}

// TestPool_NoCancelAfterResponse: a request that got its answer is never
// cancelled, even when its caller's ctx ends right after.
func TestPool_NoCancelAfterResponse(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := send(ctx, h, protocol.Hover(protocol.Target{Selector: "a"})); err != nil {
		t.Fatal(err)
	}
	cancel()
	// One more round trip: a stray cancel would arrive before its answer.
	if _, err := send(context.Background(), h, protocol.Hover(protocol.Target{Selector: "a"})); err != nil {
		t.Fatal(err)
	}
	if got := ext.Cancels(); len(got) != 0 {
		t.Fatalf("cancels = %v, want none", got)
	}
}

// TestLink_CancelReachesExtension: a CLI caller that cancels its ctx
// (OpCancel) or hangs up ends its request in the daemon, which cancels it
// in the extension at once.
func TestLink_CancelReachesExtension(t *testing.T) {
	tests := []struct {
		name string
		end  func(cl *bridge.Client, cancel context.CancelFunc)
	}{
		{"CtxCancelled", func(_ *bridge.Client, cancel context.CancelFunc) { cancel() }},
		{"HungUp", func(cl *bridge.Client, _ context.CancelFunc) { cl.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := bridgetest.StartDaemon(t, bridge.Config{})
			ext := silentExt(t, h, bridgetest.Options{})
			cl := h.Client(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan *protocol.Error, 1)
			go func() {
				_, err := cl.Request(ctx, protocol.WaitFor(protocol.Target{Selector: "#never"}, 0))
				errc <- err
			}()
			waitRequests(t, ext, 1)
			start := time.Now()
			tt.end(cl, cancel)
			got := waitCancels(t, ext, 1)
			if !slices.Equal(got, []string{lastID(t, ext)}) {
				t.Fatalf("cancels = %v, want the request's id", got)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("cancel reached the extension after %s, want < 1s", d)
			}
			if err := <-errc; err == nil {
				t.Fatal("the request succeeded, want an error")
			}
		})
	}
}

// waitRequests waits up to 2 s for the fake to have received n requests.
func waitRequests(t *testing.T, ext *bridgetest.Extension, n int) {
	t.Helper()
	stop := time.Now().Add(2 * time.Second)
	for len(ext.Requests()) < n {
		if time.Now().After(stop) {
			t.Fatalf("the extension received %d requests, want %d", len(ext.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
