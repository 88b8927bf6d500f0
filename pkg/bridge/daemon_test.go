package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/internal/wine"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

func TestHandshake(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	tests := []struct {
		name      string
		opts      bridgetest.Options
		wantClose int // 0: ack
		wantMsg   string
	}{
		{"Ack", bridgetest.Options{Token: h.UserToken}, 0, ""},
		{"AckManaged", bridgetest.Options{Token: h.ManagedToken}, 0, ""},
		{"VersionMismatch", bridgetest.Options{Token: h.UserToken, ProtocolVersion: 3}, protocol.CloseVersionMismatch, "update the bua extension"},
		{"WrongToken", bridgetest.Options{Token: strings.Repeat("0", 64)}, protocol.CloseBadToken, "bua pair"},
		{"MissingToken", bridgetest.Options{}, protocol.CloseBadToken, "no pairing token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.URL = h.URL()
			e, err := bridgetest.Dial(context.Background(), tt.opts)
			if tt.wantClose == 0 {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				e.Close()
				return
			}
			var rej *bridgetest.RejectError
			if !errors.As(err, &rej) {
				t.Fatalf("Dial error = %v, want a reject", err)
			}
			if got, want := rej.CloseCode, tt.wantClose; got != want {
				t.Errorf("close code = %d, want %d", got, want)
			}
			if got, want := rej.Reject.Error.Code, protocol.CodeInvalidAction; got != want {
				t.Errorf("reject code = %q, want %q", got, want)
			}
			if got, want := rej.Reject.RequiredMinProtocolVersion, 4; got != want {
				t.Errorf("requiredMinProtocolVersion = %d, want %d", got, want)
			}
			if !strings.Contains(rej.Reject.Error.Message, tt.wantMsg) {
				t.Errorf("message %q does not say %q", rej.Reject.Error.Message, tt.wantMsg)
			}
		})
	}
}

func TestHandshakeTimeout(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), SkipHello: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var ce *websocket.CloseError
	if err := e.CloseErr(); !errors.As(err, &ce) || ce.Code != protocol.CloseHandshake {
		t.Fatalf("close = %v, want code %d", err, protocol.CloseHandshake)
	}
	if d := time.Since(start); d < 4*time.Second {
		t.Errorf("closed after %s, before the 5s hello window", d)
	}
}

func TestHandshakeFirstMessageNotHello(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), SkipHello: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.SendEvent(map[string]any{"type": "heartbeat"})
	var ce *websocket.CloseError
	if err := e.CloseErr(); !errors.As(err, &ce) || ce.Code != protocol.CloseHandshake {
		t.Fatalf("close = %v, want code %d", err, protocol.CloseHandshake)
	}
}

func TestOriginAndHost(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{AllowOrigins: []string{"chrome-extension://devbuildaaaaaaaaaaaaaaaaaaaaaaaa"}})
	addr := h.Daemon.Addr()
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{"PinnedOrigin", addr, extension.Origin, http.StatusBadRequest}, // passes checks; not an upgrade request
		{"AddedOrigin", addr, "chrome-extension://devbuildaaaaaaaaaaaaaaaaaaaaaaaa", http.StatusBadRequest},
		{"WebPageOrigin", addr, "https://evil.example", http.StatusForbidden},
		{"OtherExtension", addr, "chrome-extension://abcdefghijklmnopabcdefghijklmnop", http.StatusForbidden},
		{"NullOrigin", addr, "null", http.StatusForbidden},
		{"MissingOrigin", addr, "", http.StatusForbidden},
		{"RebindingHost", "evil.example:" + strings.Split(addr, ":")[1], extension.Origin, http.StatusForbidden},
		{"WrongPort", "127.0.0.1:1", extension.Origin, http.StatusForbidden},
		{"LocalhostName", "localhost:" + strings.Split(addr, ":")[1], extension.Origin, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "http://"+addr+"/ws/browser", nil)
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode; got != tt.want {
				t.Errorf("status = %d, want %d", got, tt.want)
			}
		})
	}
	// A real upgrade from a web page's Origin never reaches the handshake.
	_, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken, Origin: "http://localhost:3000"})
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("web-page origin dial = %v, want HTTP 403", err)
	}
}

func TestWrongTokenRateLimit(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	wrong := bridgetest.Options{URL: h.URL(), Token: "nope"}
	// Within the budget a wrong token gets the spec's terminal reject.
	for i := 0; i < bridge.FailureBurst; i++ {
		_, err := bridgetest.Dial(context.Background(), wrong)
		var rej *bridgetest.RejectError
		if !errors.As(err, &rej) || rej.Reject == nil || rej.CloseCode != protocol.CloseBadToken {
			t.Fatalf("wrong token %d: %v, want reject + close %d", i+1, err, protocol.CloseBadToken)
		}
	}
	// Past it, the guessing loop is told to try later, with no reject: a
	// reject would be final for an extension that receives it.
	_, err := bridgetest.Dial(context.Background(), wrong)
	var rej *bridgetest.RejectError
	if !errors.As(err, &rej) || rej.Reject != nil || rej.CloseCode != protocol.CloseRateLimited {
		t.Fatalf("wrong token past the budget: %v, want close %d without reject", err, protocol.CloseRateLimited)
	}
	// The right token is never limited.
	e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken})
	if err != nil {
		t.Fatalf("right token with the budget spent: %v", err)
	}
	e.Close()
}

// claimCode POSTs code to /pair/claim as the extension and returns the
// status (0 after reporting a transport error). Safe from any goroutine.
func claimCode(t *testing.T, h *bridgetest.Harness, code string) int {
	t.Helper()
	body, _ := json.Marshal(bridge.ClaimRequest{Code: code})
	req, _ := http.NewRequest("POST", "http://"+h.Daemon.Addr()+"/pair/claim", bytes.NewReader(body))
	req.Header.Set("Origin", extension.Origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestFloodNeverLocksOut floods the daemon with wrong hellos and wrong
// pairing codes from several goroutines, over real sockets, while the
// paired extension reconnects: the right token is accepted every time, at
// once, and again at once when the flood stops.
func TestFloodNeverLocksOut(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	const flooders, perFlooder = 8, 50 // 400 wrong hellos and 400 wrong codes
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		rateLimited, rejs int
		rejectWith4029    int
		codes429          int
	)
	for i := 0; i < flooders; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < perFlooder; j++ {
				_, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: strings.Repeat("f", 64)})
				var rej *bridgetest.RejectError
				if !errors.As(err, &rej) {
					t.Errorf("wrong token: %v", err)
					return
				}
				mu.Lock()
				switch {
				case rej.CloseCode == protocol.CloseRateLimited && rej.Reject != nil:
					rejectWith4029++
				case rej.CloseCode == protocol.CloseRateLimited:
					rateLimited++
				case rej.CloseCode == protocol.CloseBadToken && rej.Reject != nil:
					rejs++
				default:
					t.Errorf("wrong token: %v", err)
				}
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < perFlooder; j++ {
				if claimCode(t, h, "AAAA-AAAA") == http.StatusTooManyRequests {
					mu.Lock()
					codes429++
					mu.Unlock()
				}
			}
		}()
	}
	flooding := make(chan struct{})
	go func() { wg.Wait(); close(flooding) }()

	var worst time.Duration
	accepted := 0
	connectOnce := func() time.Duration {
		start := time.Now()
		e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("right token during the flood (after %d accepted): %v", accepted, err)
		}
		e.Close()
		accepted++
		return took
	}
loop:
	for {
		select {
		case <-flooding:
			break loop
		default:
			worst = max(worst, connectOnce())
		}
	}
	floodEnd := time.Now()
	after := connectOnce()
	sinceEnd := time.Since(floodEnd)

	mu.Lock()
	defer mu.Unlock()
	t.Logf("flood: %d rejects (4002), %d closes 4029 without reject, %d codes answered 429; right token accepted %d times during it, slowest %s; after it: accepted in %s (%s after the flood ended)",
		rejs, rateLimited, codes429, accepted, worst.Round(time.Microsecond), after.Round(time.Microsecond), sinceEnd.Round(time.Microsecond))
	if rejectWith4029 > 0 {
		t.Errorf("%d rate-limited hellos got a reject before 4029", rejectWith4029)
	}
	if rejs > bridge.FailureBurst+5 || rateLimited == 0 {
		t.Errorf("rejects = %d, 4029s = %d: want at most about %d rejects, then 4029", rejs, rateLimited, bridge.FailureBurst)
	}
	if codes429 == 0 {
		t.Error("a wrong-code flood was never limited")
	}
	if accepted < 2 {
		t.Errorf("right token accepted %d times during the flood", accepted)
	}
	if worst > time.Second {
		t.Errorf("right token took %s during the flood, want at once", worst)
	}
}

// TestFailureBudgetsSeparate: wrong pairing codes never spend the hello
// budget, and wrong hellos never spend the codes'.
func TestFailureBudgetsSeparate(t *testing.T) {
	spendCodes := func(t *testing.T, h *bridgetest.Harness) {
		for i := 0; i < bridge.FailureBurst; i++ {
			if got := claimCode(t, h, "AAAA-AAAA"); got != http.StatusForbidden {
				t.Fatalf("wrong code %d: %d, want 403", i+1, got)
			}
		}
		if got := claimCode(t, h, "AAAA-AAAA"); got != http.StatusTooManyRequests {
			t.Fatalf("wrong code past the budget: %d, want 429", got)
		}
	}
	spendHellos := func(t *testing.T, h *bridgetest.Harness) {
		wrong := bridgetest.Options{URL: h.URL(), Token: "nope"}
		for i := 0; i < bridge.FailureBurst; i++ {
			_, _ = bridgetest.Dial(context.Background(), wrong)
		}
		_, err := bridgetest.Dial(context.Background(), wrong)
		var rej *bridgetest.RejectError
		if !errors.As(err, &rej) || rej.CloseCode != protocol.CloseRateLimited {
			t.Fatalf("wrong hello past the budget: %v, want close %d", err, protocol.CloseRateLimited)
		}
	}
	t.Run("CodesDoNotSpendHellos", func(t *testing.T) {
		h := bridgetest.StartDaemon(t, bridge.Config{})
		spendCodes(t, h)
		_, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: "nope"})
		var rej *bridgetest.RejectError
		if !errors.As(err, &rej) || rej.Reject == nil || rej.CloseCode != protocol.CloseBadToken {
			t.Fatalf("wrong hello after a code flood: %v, want reject + close %d", err, protocol.CloseBadToken)
		}
	})
	t.Run("HellosDoNotSpendCodes", func(t *testing.T) {
		h := bridgetest.StartDaemon(t, bridge.Config{})
		spendHellos(t, h)
		pc, perr := h.Client(t).PairCode(context.Background(), "")
		if perr != nil {
			t.Fatal(perr)
		}
		if got := claimCode(t, h, pc.Code); got != http.StatusOK {
			t.Fatalf("right code after a hello flood: %d, want 200", got)
		}
		if got := claimCode(t, h, "AAAA-AAAA"); got != http.StatusForbidden {
			t.Fatalf("wrong code after a hello flood: %d, want 403", got)
		}
	})
}

func TestBinaryFramesRefused(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	t.Run("Hello", func(t *testing.T) {
		_, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken, Binary: true})
		var rej *bridgetest.RejectError
		if !errors.As(err, &rej) || rej.Reject != nil || rej.CloseCode != protocol.CloseUnsupportedData {
			t.Fatalf("binary hello with the right token: %v, want close %d without reject", err, protocol.CloseUnsupportedData)
		}
	})
	t.Run("AfterAck", func(t *testing.T) {
		e := h.Connect(t)
		if err := e.SendBinary([]byte(`{"type":"event","event":{"type":"heartbeat"}}`)); err != nil {
			t.Fatal(err)
		}
		var ce *websocket.CloseError
		if err := e.CloseErr(); !errors.As(err, &ce) || ce.Code != protocol.CloseUnsupportedData {
			t.Fatalf("binary frame after ack: %v, want close %d", err, protocol.CloseUnsupportedData)
		}
	})
}

func TestReadLimitBeforeAck(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	hdr := http.Header{"Origin": {extension.Origin}}
	ws, _, err := websocket.DefaultDialer.Dial(h.URL(), hdr)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	big := `{"type":"hello","protocolVersion":4,"clientVersion":"x","pairingToken":"` + strings.Repeat("a", bridge.MaxHandshakeMessage) + `"}`
	_ = ws.WriteMessage(websocket.TextMessage, []byte(big))
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("oversized hello: %v, want close %d", err, websocket.CloseMessageTooBig)
	}
}

func TestReplacement(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	first := h.Connect(t)
	first.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	c := h.Client(t)
	errc := make(chan *protocol.Error, 1)
	go func() {
		_, err := c.Request(context.Background(), protocol.Click(protocol.Target{UID: "e1"}))
		errc <- err
	}()
	waitInFlight(t, h.Daemon.Pool(), 1)

	second, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	var ce *websocket.CloseError
	if err := first.CloseErr(); !errors.As(err, &ce) || ce.Code != protocol.CloseReplaced {
		t.Fatalf("old connection closed with %v, want %d", err, protocol.CloseReplaced)
	}
	select {
	case err := <-errc:
		if err == nil || err.Code != protocol.CodeInternalError {
			t.Fatalf("pending request on replaced connection = %v, want internal_error", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("pending request did not fail at once on replacement")
	}
	if got := len(h.Daemon.Pool().Conns()); got != 1 {
		t.Fatalf("pool holds %d connections, want 1", got)
	}
}

func waitInFlight(t *testing.T, p *bridge.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().InFlight != n {
		if time.Now().After(deadline) {
			t.Fatalf("in-flight = %d, want %d", p.Stats().InFlight, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// send sends a on the connection auto selection picks, through Pool.Send
// as Daemon.request does once it has validated a.
func send(ctx context.Context, h *bridgetest.Harness, a protocol.Action) (json.RawMessage, *protocol.Error) {
	pool := h.Daemon.Pool()
	c := pool.Conn(bridge.SelectAuto)
	if c == nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "no extension is connected")
	}
	return pool.Send(ctx, c, bridgetest.MustJSON(a))
}

func TestPool_Send(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	pool := h.Daemon.Pool()

	t.Run("OK", func(t *testing.T) {
		res, err := send(context.Background(), h, protocol.Navigate("https://example.com").OnTab(7))
		if err != nil {
			t.Fatal(err)
		}
		var ok protocol.OKResult
		if json.Unmarshal(res, &ok); !ok.OK || ok.TabID == nil || *ok.TabID != 7 {
			t.Fatalf("result = %s", res)
		}
	})
	t.Run("ErrorResponse", func(t *testing.T) {
		ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeElementStale, "uid e3 is stale")
		})
		_, err := send(context.Background(), h, protocol.Click(protocol.Target{UID: "e3"}))
		if err == nil || err.Code != protocol.CodeElementStale || err.Message != "uid e3 is stale" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("InvalidNeverSent", func(t *testing.T) {
		// The daemon validates what a client asks before the pool sends it.
		before := len(ext.Requests())
		_, err := h.Client(t).Request(context.Background(), protocol.Navigate("javascript:alert(1)"))
		if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused {
			t.Fatalf("err = %v, want invalid_action refused", err)
		}
		if len(ext.Requests()) != before {
			t.Fatal("an invalid action reached the extension")
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		ext.Handle(protocol.ActionHover, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := send(ctx, h, protocol.Hover(protocol.Target{Selector: "a"}))
		if err == nil || err.Code != protocol.CodeTimeout {
			t.Fatalf("err = %v, want timeout", err)
		}
		if n := pool.Stats().InFlight; n != 0 {
			t.Fatalf("in-flight after timeout = %d, want 0", n)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		ext.Handle(protocol.ActionScroll, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		_, err := send(ctx, h, protocol.Scroll("down", 0))
		if err == nil || err.Code != protocol.CodeInternalError || err.Message != "aborted by caller" {
			t.Fatalf("err = %v, want internal_error aborted by caller", err)
		}
		if n := pool.Stats().InFlight; n != 0 {
			t.Fatalf("in-flight after cancel = %d, want 0", n)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		ext.Handle(protocol.ActionPressKey, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Malformed })
		_, err := send(context.Background(), h, protocol.PressKey("Enter"))
		if err == nil || err.Code != protocol.CodeInternalError {
			t.Fatalf("err = %v, want internal_error for an invalid response", err)
		}
	})
	t.Run("Disconnect", func(t *testing.T) {
		ext.Handle(protocol.ActionExtract, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Hangup })
		_, err := send(context.Background(), h, protocol.Extract(""))
		if err == nil || err.Code != protocol.CodeInternalError || !strings.Contains(err.Message, "disconnected") {
			t.Fatalf("err = %v, want internal_error disconnected", err)
		}
	})
}

func TestDisconnectFailsEveryPending(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	ext.HandleAll(func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	const n = 5
	errs := make(chan *protocol.Error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, err := send(context.Background(), h, protocol.GetTabs())
			errs <- err
		}()
	}
	waitInFlight(t, h.Daemon.Pool(), n)
	ext.Close()
	for i := 0; i < n; i++ {
		select {
		case err := <-errs:
			if err == nil || err.Code != protocol.CodeInternalError {
				t.Fatalf("pending %d: %v, want internal_error", i, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("pending requests did not fail at once")
		}
	}
}

func TestDefaultTimeout(t *testing.T) {
	ms := 2000
	tests := []struct {
		a    protocol.Action
		want time.Duration
	}{
		{protocol.Navigate("https://a.test"), 30 * time.Second},
		{protocol.Extract(""), 30 * time.Second},
		{protocol.Screenshot(false), 30 * time.Second},
		{protocol.Evaluate("return 1"), 15 * time.Second},
		{protocol.WaitFor(protocol.Target{Selector: "#a"}, 0), 15 * time.Second},
		{protocol.Action{Type: protocol.ActionWaitFor, Selector: "#a", TimeoutMs: &ms}, 7 * time.Second},
		{protocol.Click(protocol.Target{UID: "e1"}), 30 * time.Second},
	}
	for _, tt := range tests {
		if got := protocol.DefaultTimeout(tt.a); got != tt.want {
			t.Errorf("DefaultTimeout(%s) = %s, want %s", tt.a.Type, got, tt.want)
		}
	}
}

func TestClientRoundTrip(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) {
		return []protocol.TabInfo{{TabID: 3, URL: "https://a.test/", Title: "A", Domain: "a.test"}}, nil
	})
	c := h.Client(t)
	res, err := c.Request(context.Background(), protocol.GetTabs())
	if err != nil {
		t.Fatal(err)
	}
	var tabs []protocol.TabInfo
	if json.Unmarshal(res, &tabs); len(tabs) != 1 || tabs[0].Domain != "a.test" {
		t.Fatalf("tabs = %s", res)
	}
	// The client refuses invalid actions before they reach the socket.
	if _, err := c.Request(context.Background(), protocol.Action{Type: protocol.ActionClick}); err == nil || err.Code != protocol.CodeInvalidAction {
		t.Fatalf("invalid click: %v", err)
	}
	// --no-validate lets the extension's own validation answer.
	before := len(ext.Requests())
	if _, err := c.RequestRaw(context.Background(), json.RawMessage(`{"type":"click"}`), true); err == nil || err.Code != protocol.CodeInvalidAction || !strings.Contains(err.Message, "selector, uid or role") {
		t.Fatalf("raw request: %v, want the extension's invalid_action", err)
	}
	if len(ext.Requests()) != before {
		t.Fatal("the fake ran an invalid action")
	}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Connections) != 1 || st.Connections[0].Kind != bridge.KindUser || st.Connections[0].ProtocolVersion != 4 {
		t.Fatalf("status = %+v", st)
	}
	if len(st.Connections[0].Caps.Actions) != len(protocol.Actions) {
		t.Fatalf("caps = %+v", st.Connections[0].Caps)
	}
}

func TestNoBrowserPolicy(t *testing.T) {
	// A user pairing exists and CI is unset: auto must not launch a
	// headless browser behind the person's back.
	launched := false
	h := bridgetest.StartDaemon(t, bridge.Config{
		ConnectGrace: 50 * time.Millisecond,
		Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) {
			launched = true
			return nil, errors.New("no")
		},
	})
	c := h.Client(t)
	_, err := c.Request(context.Background(), protocol.GetTabs())
	if err == nil || err.Code != protocol.CodeBridgeUnavailable {
		t.Fatalf("err = %v, want bridge_unavailable", err)
	}
	if !strings.Contains(err.Message, "bua browser start") {
		t.Errorf("message %q does not say how to start a browser", err.Message)
	}
	if launched {
		t.Fatal("auto launched a managed browser although a user pairing exists")
	}
}

func TestPairCodeClaim(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	pc, perr := h.Client(t).PairCode(context.Background(), "")
	if perr != nil {
		t.Fatal(perr)
	}
	if len(pc.Code) != 9 || pc.Code[4] != '-' || time.Until(pc.ExpiresAt) > bridge.PairCodeTTL {
		t.Fatalf("code = %+v", pc)
	}
	claim := func(origin, code string) (*http.Response, bridge.ClaimResponse) {
		body, _ := json.Marshal(bridge.ClaimRequest{Code: code})
		req, _ := http.NewRequest("POST", "http://"+h.Daemon.Addr()+"/pair/claim", bytes.NewReader(body))
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var cr bridge.ClaimResponse
		_ = json.NewDecoder(resp.Body).Decode(&cr)
		return resp, cr
	}
	if resp, _ := claim("https://evil.example", pc.Code); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("web origin claim: %d, want 403", resp.StatusCode)
	}
	resp, cr := claim(extension.Origin, strings.ToLower(pc.Code))
	if resp.StatusCode != http.StatusOK || cr.Token != h.UserToken || cr.URL != h.URL() || cr.ExtensionID != extension.ID {
		t.Fatalf("claim: %d %+v", resp.StatusCode, cr)
	}
	if resp, _ := claim(extension.Origin, pc.Code); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("second claim of a one-time code: %d, want 403", resp.StatusCode)
	}
}

func TestEventsLoggedAndFollowed(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	c := h.Client(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan bridge.EventRecord, 4)
	subscribed := make(chan struct{})
	go c.Follow(ctx, func() { close(subscribed) }, func(r bridge.EventRecord) { got <- r })
	<-subscribed

	_ = ext.SendEvent(map[string]any{"type": "heartbeat"})
	_ = ext.SendEvent(map[string]any{"type": "session_started", "domain": "a.test", "tabId": 4, "startedAt": 1})
	_ = ext.SendEvent(map[string]any{"type": "future_event", "x": 1})
	for _, want := range []protocol.EventType{protocol.EventSessionStarted, "future_event"} {
		select {
		case r := <-got:
			if r.Event.Type != want || r.Kind != bridge.KindUser {
				t.Fatalf("event = %+v, want %s", r, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("no %s event followed", want)
		}
	}
	data, err := os.ReadFile(h.Dirs.EventLog())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "heartbeat") {
		t.Error("heartbeat written to the event log")
	}
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("event log has %d lines, want 2:\n%s", n, data)
	}
	if err := home.CheckPrivate(h.Dirs.EventLog()); err != nil {
		t.Error(err)
	}
}

func TestFilesArePrivate(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	for _, p := range []string{h.Dirs.Config, h.Dirs.TokenFile(), h.Dirs.ManagedTokenFile(), h.Dirs.Link(), h.Dirs.InfoFile()} {
		if err := home.CheckPrivate(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestOneDaemonPerHome(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	d, _ := bridge.New(bridge.Config{Dirs: h.Dirs, Listen: "127.0.0.1:0"})
	if err := d.Run(context.Background(), nil); !errors.Is(err, home.ErrLocked) {
		t.Fatalf("second daemon: %v, want ErrLocked", err)
	}
}

// TestTimeoutLadder proves the schema's x-ladder end to end over real
// sockets, from the CLI's client through the daemon to the extension: the
// caller's timeout, or else the action's default, is the
// action's own time, and each margin goes on top of it. The request's
// deadlineMs is that time plus protocol.LadderMargin (less what sending
// took), so the extension's budget (deadlineMs less the reply margin) less
// its settle margin, the time its inner waits may take, is the whole
// timeout; the caller's context ends last. A plain context deadline is the
// caller's whole limit instead, and the margins come out of it.
func TestTimeoutLadder(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	client := h.Client(t)
	ms := 2000
	// slack is what the request's way to the fake extension may take.
	const slack = 500 * time.Millisecond
	tests := []struct {
		name    string
		timeout time.Duration // the caller's, through protocol.WithTimeout; 0: none
		limit   time.Duration // a plain context deadline; 0: none
		action  protocol.Action
		own     time.Duration // the time the action's inner waits may take
	}{
		{"CallerTimeout", 3 * time.Second, 0, protocol.Click(protocol.Target{Selector: "#a"}), 3 * time.Second},
		{"OneSecond", time.Second, 0, protocol.Click(protocol.Target{Selector: "#a"}), time.Second},
		{"LongCallerTimeout", 50 * time.Second, 0, protocol.Navigate("https://a.test"), 50 * time.Second},
		{"LongerThanWaitForCap", 90 * time.Second, 0, protocol.WaitFor(protocol.Target{Selector: "#a"}, time.Minute), 90 * time.Second},
		{"DefaultNavigate", 0, 0, protocol.Navigate("https://a.test"), 30 * time.Second},
		{"DefaultEvaluate", 0, 0, protocol.Evaluate("return 1"), 15 * time.Second},
		{"DefaultWaitFor", 0, 0, protocol.Action{Type: protocol.ActionWaitFor, Selector: "#a", TimeoutMs: &ms}, 7 * time.Second},
		{"PlainDeadline", 0, 10 * time.Second, protocol.Evaluate("return 1"), 10*time.Second - protocol.LadderMargin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			switch {
			case tt.timeout > 0:
				var cancel context.CancelFunc
				ctx, cancel = protocol.WithTimeout(ctx, tt.timeout)
				defer cancel()
				dl, _ := ctx.Deadline()
				if left := time.Until(dl); left > tt.timeout+protocol.LadderMargin || left < tt.timeout+protocol.LadderMargin-slack {
					t.Fatalf("the caller's context ends in %s, want its timeout %s plus the ladder's margins %s", left, tt.timeout, protocol.LadderMargin)
				}
			case tt.limit > 0:
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.limit)
				defer cancel()
			}
			client.Request(ctx, tt.action)
			ds := ext.Deadlines()
			deadline := time.Duration(ds[len(ds)-1]) * time.Millisecond
			want := tt.own + protocol.LadderMargin
			if deadline > want || deadline < want-slack {
				t.Fatalf("deadlineMs = %s, want the action's time %s plus the ladder's margins: %s", deadline, tt.own, want)
			}
			budget := deadline - protocol.ReplyMargin // the extension's (extension/src/core/budget.js)
			inner := budget - protocol.SettleMargin
			if !(inner < budget && budget < deadline) {
				t.Fatalf("the ladder is out of order: inner waits %s, budget %s, deadlineMs %s", inner, budget, deadline)
			}
			if inner < tt.own-slack {
				t.Fatalf("the action's inner waits get %s of its %s", inner, tt.own)
			}
		})
	}
	if got := bridge.Deadline(context.Background(), protocol.Click(protocol.Target{UID: "e1"})); got != 30*time.Second+protocol.LadderMargin {
		t.Errorf("the pool's default for click = %s, want its x-budgetMs 30s plus %s", got, protocol.LadderMargin)
	}
}

// TestPool_UnimplementedAction: an action missing from the extension's
// hello caps is refused before it is sent, with a message that says why.
func TestPool_UnimplementedAction(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.ConnectWith(t, bridgetest.Options{Caps: &protocol.Caps{Actions: []string{"navigate"}}})
	_, perr := send(context.Background(), h, protocol.Action{Type: protocol.ActionReload})
	if perr == nil || perr.Code != protocol.CodeInvalidAction || !strings.Contains(perr.Message, "does not implement reload") {
		t.Fatalf("err = %v, want invalid_action naming reload", perr)
	}
	if n := len(ext.Requests()); n != 0 {
		t.Fatalf("%d requests reached the extension", n)
	}
}

// hungBrowser is a managed browser that runs but never connects.
type hungBrowser struct{ done chan struct{} }

func (b *hungBrowser) Pid() int { return 1 }
func (b *hungBrowser) Stop(context.Context) error {
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	return nil
}
func (b *hungBrowser) Done() <-chan struct{} { return b.done }
func (b *hungBrowser) Err() error            { return nil }
func (b *hungBrowser) Kill()                 {} // hung past SIGKILL too

// brandedBrowser is a hungBrowser started from branded Google Chrome's
// executable, whose extension never connects.
type brandedBrowser struct {
	hungBrowser
	exe string
}

func (b *brandedBrowser) Exe() string { return b.exe }

// TestBrandedChromeNamed: a managed browser that never connects because
// it is branded Google Chrome (BUA_CHROME or --chrome may name one) fails
// saying so, and what to use instead; another browser's does not.
func TestBrandedChromeNamed(t *testing.T) {
	for _, tc := range []struct {
		exe     string
		branded bool
	}{
		{filepath.Join("/opt", "google", "chrome", "chrome"), true},
		{filepath.Join("/opt", "chrome-linux64", "chrome"), false},
	} {
		h := bridgetest.StartDaemon(t, bridge.Config{
			Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) {
				return &brandedBrowser{hungBrowser{done: make(chan struct{})}, tc.exe}, nil
			},
		})
		cl, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Browser: bridge.SelectManaged})
		if perr != nil {
			t.Fatal(perr)
		}
		ctx, cancel := protocol.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := cl.Request(ctx, protocol.GetTabs())
		cancel()
		cl.Close()
		if err == nil {
			t.Fatalf("%s: no error", tc.exe)
		}
		said := strings.Contains(err.Message, "ignores --load-extension") && strings.Contains(err.Message, "Chrome for Testing") && strings.Contains(err.Message, tc.exe)
		if said != tc.branded {
			t.Errorf("%s: %q; want it to name branded Chrome: %v", tc.exe, err.Message, tc.branded)
		}
	}
}

// TestTimeoutErrorsStateTheTimeout: an error names the timeout that ran
// out, the caller's when it was shorter than the daemon's own.
func TestTimeoutErrorsStateTheTimeout(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{
		ConnectGrace: 50 * time.Millisecond,
		Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) {
			return &hungBrowser{done: make(chan struct{})}, nil
		},
	})
	managed, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Browser: bridge.SelectManaged})
	if perr != nil {
		t.Fatal(perr)
	}
	defer managed.Close()
	check := func(t *testing.T, err *protocol.Error, want string) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		if !strings.Contains(err.Message, want) || strings.Contains(err.Message, bridge.ManagedConnectTimeout.String()) {
			t.Fatalf("error %q: want it to state %s, not %s", err.Message, want, bridge.ManagedConnectTimeout)
		}
	}
	t.Run("ManagedConnect", func(t *testing.T) {
		ctx, cancel := protocol.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		_, err := managed.Request(ctx, protocol.GetTabs())
		check(t, err, "did not connect within 700ms")
	})
	t.Run("BrowserStart", func(t *testing.T) {
		ctx, cancel := protocol.WithTimeout(context.Background(), 600*time.Millisecond)
		defer cancel()
		_, err := managed.BrowserStart(ctx, "", bridge.BrowserOptions{Headless: true})
		check(t, err, "did not connect within 600ms")
	})
	t.Run("Action", func(t *testing.T) {
		ext := h.Connect(t)
		ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
		ctx, cancel := protocol.WithTimeout(context.Background(), 400*time.Millisecond)
		defer cancel()
		_, err := h.Client(t).Request(ctx, protocol.Click(protocol.Target{UID: "e1"}))
		check(t, err, "within 400ms")
		if err.Code != protocol.CodeTimeout {
			t.Fatalf("code %s, want timeout", err.Code)
		}
	})
}

// TestPool_LogsUnanswered: a request that ends without its response, by
// cancel or deadline, leaves one info line with its id, action and reason.
func TestPool_LogsUnanswered(t *testing.T) {
	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ext := h.Connect(t)
	ext.HandleAll(func(protocol.Action) (any, *protocol.Error) { return nil, bridgetest.Silent })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := send(ctx, h, protocol.Hover(protocol.Target{Selector: "a"})); err == nil || err.Code != protocol.CodeTimeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	out := logs.String()
	for _, want := range []string{`msg="request cancelled"`, "action=hover", "reason=", "id="} {
		if !strings.Contains(out, want) {
			t.Fatalf("log lacks %q:\n%s", want, out)
		}
	}
}

// TestDaemonStopsWhenHomeLost: a daemon whose home is no longer its own
// (BUA_HOME deleted, the lock or the socket deleted or taken over by
// another daemon) stops within seconds, so no ghost keeps the port and the
// browser while commands reach, or start, another daemon.
func TestDaemonStopsWhenHomeLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, dirs home.Dirs)
		xdg  bool // config, state and runtime dirs apart, as XDG_RUNTIME_DIR has them
	}{
		{"home deleted", func(t *testing.T, dirs home.Dirs) {
			deleteHome(t, dirs.Runtime)
		}, false},
		{"lock taken over", func(t *testing.T, dirs home.Dirs) {
			if wine.Detected() {
				// The lock file stays where it was, readable, until the
				// daemon closes it, and reports no pending delete: Wine
				// shows a deleted open file nowhere. Windows (Stat fails
				// on a pending delete) is the Windows runner's.
				t.Skip("Wine hides the deletion of a file held open: the Windows runner of .github/workflows/ci.yml runs this")
			}
			// Another daemon that found no lock file creates and takes a
			// new one (where the old one's name is gone at once: on
			// Windows it may stay until the daemon lets go, and the
			// deletion alone must stop the daemon).
			if err := os.Remove(dirs.LockFile()); err != nil {
				t.Fatal(err)
			}
			f, err := home.Lock(dirs.LockFile())
			if err != nil && runtime.GOOS != "windows" {
				t.Fatal(err)
			}
			if err == nil {
				t.Cleanup(func() { f.Close() })
			}
		}, false},
		{"link deleted", func(t *testing.T, dirs home.Dirs) {
			if err := os.Remove(dirs.Link()); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"link taken over", func(t *testing.T, dirs home.Dirs) {
			if err := os.Remove(dirs.Link()); err != nil {
				t.Fatal(err)
			}
			ln, err := home.ListenLink(dirs)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // once the ghost has stopped
				if _, err := os.Lstat(dirs.Link()); err != nil {
					t.Errorf("the stopped daemon removed the link that took over: %v", err)
				}
				ln.Close()
			})
		}, false},
		{"state dir deleted", func(t *testing.T, dirs home.Dirs) {
			deleteHome(t, dirs.State)
		}, true},
		{"config dir deleted", func(t *testing.T, dirs home.Dirs) {
			deleteHome(t, dirs.Config)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.xdg && !splitLayouts {
				t.Skip("a layout this OS does not have: " + noSplitLayouts)
			}
			dirs := tempHome(t, tc.xdg)
			d, err := bridge.New(bridge.Config{Dirs: dirs, Listen: "127.0.0.1:0", ServerVersion: "0.0.0-test", Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			ready := make(chan struct{})
			done := make(chan error, 1)
			go func() { done <- d.Run(context.Background(), func() { close(ready) }) }()
			select {
			case <-ready:
			case err := <-done:
				t.Fatalf("daemon: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("daemon did not start")
			}
			start := time.Now()
			tc.lose(t, dirs)
			select {
			case <-done:
				if took := time.Since(start); took > 3*bridge.HomeCheckInterval+time.Second {
					t.Fatalf("stopped after %s", took)
				}
			case <-time.After(10 * time.Second):
				d.Stop()
				t.Fatalf("the daemon kept running after its %s", tc.name)
			}
		})
	}
}

// deleteHome deletes dir as a person would (rm -rf, Remove-Item
// -Recurse). On Windows a file the daemon holds open (its lock, opened
// with FILE_SHARE_DELETE) is only pending deletion until the daemon lets
// go, so the first attempt may leave the folder there: the daemon must
// stop all the same, and then a second attempt must delete it, which
// deleteHome checks when t ends (its daemon stopped by then).
func deleteHome(t *testing.T, dir string) {
	t.Helper()
	err := os.RemoveAll(dir)
	if err == nil {
		return
	}
	if runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	t.Logf("first deletion, while the daemon held its lock: %v", err)
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("the home could not be deleted once the daemon stopped: %v", err)
		}
	})
}

// tempHome is a fresh home: one directory as BUA_HOME makes it, or with
// xdg config, state and runtime dirs apart. Its paths are short, so the
// socket path fits.
func tempHome(t *testing.T, xdg bool) home.Dirs {
	t.Helper()
	dir, err := os.MkdirTemp("", "bua")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if !xdg {
		return home.Dirs{Config: dir, State: dir, Runtime: dir}
	}
	return home.Dirs{Config: filepath.Join(dir, "c"), State: filepath.Join(dir, "s"), Runtime: filepath.Join(dir, "r")}
}

// TestLostHomeLaunchesNothing: a request that reaches a daemon whose
// state dir was just deleted launches no browser, whether the daemon has
// noticed yet (it is stopping) or not (managedBrowser.start's check):
// making the profile would create the deleted home again. The daemon
// stops, and the state dir stays gone.
func TestLostHomeLaunchesNothing(t *testing.T) {
	// Its state dir alone, where the layout has one apart (XDG); else the
	// home, the state dir of a BUA_HOME.
	dirs := tempHome(t, splitLayouts)
	var launches atomic.Int32
	d, err := bridge.New(bridge.Config{
		Dirs: dirs, Listen: "127.0.0.1:0", ServerVersion: "0.0.0-test", Getenv: func(string) string { return "" },
		Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) {
			launches.Add(1)
			return &hungBrowser{done: make(chan struct{})}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background(), func() { close(ready) }) }()
	<-ready
	cl, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: dirs, Browser: bridge.SelectManaged})
	if perr != nil {
		t.Fatal(perr)
	}
	defer cl.Close()
	deleteHome(t, dirs.State)
	_, perr = cl.BrowserStart(context.Background(), "", bridge.BrowserOptions{Headless: true})
	if perr == nil || perr.Code != protocol.CodeBridgeUnavailable {
		t.Fatalf("browser start in a deleted home: %v, want bridge_unavailable", perr)
	}
	select {
	case <-done:
	case <-time.After(3*bridge.HomeCheckInterval + time.Second):
		d.Stop()
		t.Fatal("the daemon kept running after its state dir was deleted")
	}
	if n := launches.Load(); n != 0 {
		t.Errorf("%d browsers launched in the deleted home", n)
	}
	if _, err := os.Stat(dirs.State); !os.IsNotExist(err) && runtime.GOOS != "windows" {
		t.Errorf("the deleted state dir is back: %v", err)
	}
	// On Windows, deleteHome's second attempt, once the daemon is gone.
}

// writingBrowser is a managed browser that, as Chromium does, creates its
// profile's folders again as it writes (mkdir -p): every few ms, and once
// more as it stops, so it always writes after its home is deleted.
type writingBrowser struct {
	profile string
	mu      sync.Mutex
	done    chan struct{}
	writing chan struct{} // closed at the first write
}

func startWriting(profile string) *writingBrowser {
	b := &writingBrowser{profile: profile, done: make(chan struct{}), writing: make(chan struct{})}
	b.write()
	close(b.writing)
	go func() {
		for {
			select {
			case <-b.done:
				return
			case <-time.After(5 * time.Millisecond):
				b.write()
			}
		}
	}()
	return b
}

func (b *writingBrowser) write() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.done:
		return // exited: writes nothing more
	default:
	}
	dir := filepath.Join(b.profile, "Default", "Cache")
	if os.MkdirAll(dir, 0o700) == nil {
		_ = os.WriteFile(filepath.Join(dir, "entry"), []byte("x"), 0o600)
	}
}

func (b *writingBrowser) Pid() int { return 1 } // never signalled
func (b *writingBrowser) Stop(context.Context) error {
	b.write()
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	return nil
}
func (b *writingBrowser) Done() <-chan struct{} { return b.done }
func (b *writingBrowser) Err() error            { return nil }

// Kill ends it as SIGKILL would: no write after it, not even Stop's.
func (b *writingBrowser) Kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.done:
	default:
		close(b.done)
	}
}

// TestLostHomeStaysGone: what a browser writes into its deleted home
// before it is stopped (Chromium creates the profile's folders again) is
// removed once it is, so the home stays deleted: BUA_HOME, or the state
// dir with the lock and socket elsewhere.
func TestLostHomeStaysGone(t *testing.T) {
	for _, xdg := range []bool{false, true} {
		t.Run(map[bool]string{false: "BUA_HOME", true: "state dir"}[xdg], func(t *testing.T) {
			dirs := tempHome(t, xdg)
			launched := make(chan *writingBrowser, 1)
			d, err := bridge.New(bridge.Config{
				Dirs: dirs, Listen: "127.0.0.1:0", ServerVersion: "0.0.0-test", Prelaunch: bridge.SelectManaged,
				Getenv: func(string) string { return "" },
				Launch: func(_ context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
					b := startWriting(o.ProfileDir)
					launched <- b
					return b, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- d.Run(context.Background(), nil) }()
			<-(<-launched).writing
			// Gone at once, as after `mv` to the trash: the browser's
			// next write creates it again, whenever the daemon notices.
			if err := os.Rename(dirs.State, dirs.State+".trash"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dirs.State + ".trash") })
			select {
			case <-done:
			case <-time.After(3*bridge.HomeCheckInterval + time.Second):
				d.Stop()
				t.Fatal("the daemon kept running in its deleted home")
			}
			if _, err := os.Stat(dirs.State); !os.IsNotExist(err) {
				entries, _ := filepath.Glob(filepath.Join(dirs.State, "*", "*"))
				t.Fatalf("the deleted home is back: %v %v", err, entries)
			}
		})
	}
}

// TestDaemonStopsOrphanAtStart: a browser recorded by a daemon that died
// is stopped, its whole process group, before the next daemon serves, and
// its record removed; status never shows it as this daemon's.
func TestDaemonStopsOrphanAtStart(t *testing.T) {
	dir, err := os.MkdirTemp("", "bua")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dirs := home.Dirs{Config: dir, State: dir, Runtime: dir}
	pid := bridgetest.StartOrphan(t, dirs)
	if st := bridge.OrphanStatus(dirs); !st.Orphan || st.PID != pid {
		t.Fatalf("OrphanStatus = %+v, want the orphan %d", st, pid)
	}

	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{Dirs: dirs, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if m := browser.GroupMembers(pid); len(m) > 0 {
		t.Fatalf("the daemon is serving but the orphan's group %d still has %v", pid, m)
	}
	if _, err := os.Stat(dirs.BrowserRecord()); !os.IsNotExist(err) {
		t.Fatalf("record left: %v", err)
	}
	st, perr := h.Client(t).Status(context.Background())
	if perr != nil || st.Managed.Running || st.Managed.Orphan {
		t.Fatalf("status = %+v, %v: want no managed browser", st.Managed, perr)
	}
	if !strings.Contains(logs.String(), "stopped the managed browser an earlier daemon left running") {
		t.Fatalf("log does not say the orphan was stopped:\n%s", logs.String())
	}
}

// TestLaunchPolicy: a request that may launch the managed browser launches
// it at once, never after ConnectGrace (the cold-start wait), and one that
// may only be served by the person's extension never launches.
func TestLaunchPolicy(t *testing.T) {
	ci := func(string) string { return "true" }
	none := func(string) string { return "" }
	paired := home.Dirs{Config: t.TempDir()}
	if _, err := bridge.EnsureToken(paired.TokenFile(), false); err != nil {
		t.Fatal(err)
	}
	unpaired := home.Dirs{Config: t.TempDir()}
	for _, tc := range []struct {
		sel    bridge.Selection
		getenv func(string) string
		dirs   home.Dirs
		want   bridge.LaunchPolicy
	}{
		{bridge.SelectManaged, none, paired, bridge.LaunchAtOnce},
		{bridge.SelectUser, ci, unpaired, bridge.LaunchNever},
		{bridge.SelectAuto, none, unpaired, bridge.LaunchAtOnce},
		{bridge.SelectAuto, ci, paired, bridge.LaunchAtOnce},
		{bridge.SelectAuto, none, paired, bridge.LaunchNever},
	} {
		if got := bridge.LaunchPolicyFor(tc.sel, tc.getenv, tc.dirs); got != tc.want {
			t.Errorf("LaunchPolicyFor(%s, CI=%q, paired=%v) = %v, want %v", tc.sel, tc.getenv("CI"), tc.dirs == paired, got, tc.want)
		}
	}

	launched := make(chan time.Time, 1)
	h := bridgetest.StartDaemon(t, bridge.Config{
		ConnectGrace: 20 * time.Second,
		Getenv:       ci,
		Launch: func(context.Context, bridge.LaunchOptions) (bridge.BrowserProcess, error) {
			launched <- time.Now()
			return &hungBrowser{done: make(chan struct{})}, nil
		},
	})
	ctx, cancel := protocol.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	go h.Client(t).Request(ctx, protocol.GetTabs())
	select {
	case at := <-launched:
		if d := at.Sub(start); d > time.Second {
			t.Fatalf("launched %s after the request, want at once", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CI=true: the request never launched a managed browser")
	}
}

// TestPrelaunch: a daemon started for a command about to send actions
// (Config.Prelaunch) launches the managed browser as soon as it listens,
// with no request, where that command's request would launch it at once;
// otherwise it launches nothing unasked.
func TestPrelaunch(t *testing.T) {
	ci := func(string) string { return "true" }
	none := func(string) string { return "" }
	for _, tc := range []struct {
		name      string
		prelaunch bridge.Selection
		getenv    func(string) string
		want      bool
	}{
		{"auto in CI", bridge.SelectAuto, ci, true},
		{"managed", bridge.SelectManaged, none, true},
		// The harness pairs a user browser: auto outside CI waits for it.
		{"auto with a user pairing", bridge.SelectAuto, none, false},
		{"user", bridge.SelectUser, ci, false},
		{"not asked", "", ci, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launched := make(chan bridge.LaunchOptions, 2)
			bridgetest.StartDaemon(t, bridge.Config{
				Getenv:    tc.getenv,
				Prelaunch: tc.prelaunch,
				Launch: func(_ context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
					launched <- o
					return &hungBrowser{done: make(chan struct{})}, nil
				},
			})
			wait := 300 * time.Millisecond
			if tc.want {
				wait = 5 * time.Second
			}
			select {
			case o := <-launched:
				if !tc.want {
					t.Fatalf("launched a browser nobody asked for: %+v", o)
				}
				if !o.Headless {
					t.Errorf("prelaunched browser is not headless: %+v", o)
				}
			case <-time.After(wait):
				if tc.want {
					t.Fatal("no browser launched at start")
				}
			}
		})
	}
}
