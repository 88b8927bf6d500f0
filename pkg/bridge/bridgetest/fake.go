// Package bridgetest is a fake bua extension for tests: it dials a real
// daemon over a real WebSocket, completes the real handshake, and answers
// requests from per-action handlers (get_trace, unless handled, from a
// trace of its own: Extension.Trace). Named failure modes (Silent, Hangup,
// Malformed, Slow, and Extension.Reconnecting: a drop mid-request, then a
// reconnect) script the peers' bad days.
package bridgetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Handler answers one action: a result to encode, or a protocol error.
type Handler func(a protocol.Action) (any, *protocol.Error)

// Failure modes a Handler may return as its error to misbehave instead of
// answering.
var (
	// Silent never answers the request.
	Silent = &protocol.Error{Code: "bridgetest_silent"}
	// Hangup closes the connection mid-request.
	Hangup = &protocol.Error{Code: "bridgetest_hangup"}
	// Malformed answers with a frame that is not valid protocol.
	Malformed = &protocol.Error{Code: "bridgetest_malformed"}
)

// Slow delays h by d.
func Slow(d time.Duration, h Handler) Handler {
	return func(a protocol.Action) (any, *protocol.Error) {
		time.Sleep(d) // a test fake standing in for a slow page
		return h(a)
	}
}

// OK answers {ok: true, tabId} for any action.
func OK(a protocol.Action) (any, *protocol.Error) {
	return protocol.OKResult{OK: true, TabID: a.TabID}, nil
}

// Options configure Dial; zero values speak like the real extension.
type Options struct {
	URL             string // ws://host:port/ws/browser
	Token           string
	Origin          string // default: the pinned extension's Origin
	ProtocolVersion int    // default protocol.ProtocolVersion
	SkipHello       bool   // connect but never say hello (handshake timeout tests)
	Binary          bool   // send the hello in a binary frame, which the daemon refuses
	Caps            *protocol.Caps
	// Instance, when set, makes the fake resume requests across a
	// reconnect as the real extension does (the replay feature): its hello
	// names the instance and lists FeatureReplay, and a request id it has
	// seen is answered from its replay cache, or when the handler still
	// running on it answers, never by running the handler again. Without
	// it the hello does not list FeatureReplay.
	Instance string
}

// Extension is a connected fake.
type Extension struct {
	opts Options
	ws   *websocket.Conn // the current connection; set under wmu
	wmu  sync.Mutex

	mu        sync.Mutex
	handlers  map[protocol.ActionType]Handler
	fallback  Handler
	requests  []protocol.Action
	ids       []string
	deadlines []int64
	replays   []bool
	cancels   []string
	closed    chan struct{} // the current connection's
	closeErr  error
	traces    fakeTraces
	replay    map[string]*replayEntry // with Options.Instance
}

// replayEntry is one request id in the fake's replay cache: finished once
// its handler has answered resp (nil: it sent none, Silent or Hangup).
type replayEntry struct {
	finished bool
	resp     map[string]any
}

// RejectError is a refused handshake: its close code, and the reject
// message that came before it. Reject is nil when the daemon closed without
// one (4029 rate-limited, 1003 binary frame); CloseReason is then the close
// frame's text.
type RejectError struct {
	Reject      *protocol.Reject
	CloseCode   int
	CloseReason string
}

func (e *RejectError) Error() string {
	msg := e.CloseReason
	if e.Reject != nil && e.Reject.Error != nil {
		msg = e.Reject.Error.Message
	}
	if e.Reject == nil {
		return fmt.Sprintf("closed without reject (close %d): %s", e.CloseCode, msg)
	}
	return fmt.Sprintf("rejected (close %d): %s", e.CloseCode, msg)
}

// Dial connects and completes the handshake. A refused handshake returns a
// *RejectError; an HTTP refusal before the upgrade returns the status in
// the error (and the *http.Response through DialHTTP).
func Dial(ctx context.Context, o Options) (*Extension, error) {
	if o.Origin == "" {
		o.Origin = extension.Origin
	}
	if o.ProtocolVersion == 0 {
		o.ProtocolVersion = protocol.ProtocolVersion
	}
	ws, err := handshake(ctx, o)
	if err != nil {
		return nil, err
	}
	e := &Extension{opts: o, ws: ws, handlers: map[protocol.ActionType]Handler{}, fallback: OK, closed: make(chan struct{}), replay: map[string]*replayEntry{}}
	go e.readLoop(ws, e.closed)
	return e, nil
}

// Redial connects again with the same options (the same instance), as the
// real extension does after a drop, and serves requests on the new
// connection; requests still running answer on it.
func (e *Extension) Redial(ctx context.Context) error {
	ws, err := handshake(ctx, e.opts)
	if err != nil {
		return err
	}
	closed := make(chan struct{})
	e.wmu.Lock()
	e.ws = ws
	e.wmu.Unlock()
	e.mu.Lock()
	e.closed = closed
	e.mu.Unlock()
	go e.readLoop(ws, closed)
	return nil
}

// Drop ends the current connection abruptly, without a close frame, as a
// network failure or a killed service worker does.
func (e *Extension) Drop() {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	e.ws.Close()
}

// Reconnecting is the failure mode "drop mid-request, then reconnect": a
// handler that drops the connection (Drop) as h starts, dials again after
// gap (Redial), and runs h meanwhile. The daemon re-sends the request on
// the new connection, and the fake answers it from its replay cache, or
// once h answers, as the real extension does: h runs once. Needs
// Options.Instance; a failed Redial is reported to t.
func (e *Extension) Reconnecting(t testing.TB, gap time.Duration, h Handler) Handler {
	return func(a protocol.Action) (any, *protocol.Error) {
		e.Drop()
		go func() {
			time.Sleep(gap) // a test fake standing in for the extension's reconnect backoff
			if err := e.Redial(context.Background()); err != nil {
				t.Errorf("fake extension: reconnect: %v", err)
			}
		}()
		return h(a)
	}
}

// handshake dials o.URL and says hello; it returns the connection once
// the daemon acked.
func handshake(ctx context.Context, o Options) (*websocket.Conn, error) {
	h := http.Header{}
	h.Set("Origin", o.Origin)
	ws, resp, err := websocket.DefaultDialer.DialContext(ctx, o.URL, h)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial: HTTP %d: %w", resp.StatusCode, err)
		}
		return nil, err
	}
	if o.SkipHello {
		return ws, nil
	}
	caps := o.Caps
	if caps == nil {
		caps = &protocol.Caps{Actions: actionNames(), Features: slices.DeleteFunc(slices.Clone(protocol.Features), func(f string) bool { return f == protocol.FeatureReplay })}
		if o.Instance != "" {
			caps.Features = protocol.Features
		}
	}
	hello := protocol.Hello{Type: protocol.TypeHello, ProtocolVersion: o.ProtocolVersion, ClientVersion: "0.0.0-fake", PairingToken: o.Token, Instance: o.Instance, Caps: caps}
	frame, err := json.Marshal(hello)
	if err != nil {
		ws.Close()
		return nil, err
	}
	typ := websocket.TextMessage
	if o.Binary {
		typ = websocket.BinaryMessage
	}
	if err := ws.WriteMessage(typ, frame); err != nil {
		ws.Close()
		return nil, err
	}
	_, data, err := ws.ReadMessage()
	if err != nil {
		ws.Close()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return nil, &RejectError{CloseCode: ce.Code, CloseReason: ce.Text}
		}
		return nil, err
	}
	m, perr := protocol.Decode(data)
	if perr != nil {
		ws.Close()
		return nil, perr
	}
	if m.Type == protocol.TypeReject {
		code := 0
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				code = ce.Code
			}
		}
		ws.Close()
		return nil, &RejectError{Reject: m.Reject, CloseCode: code}
	}
	if m.Type != protocol.TypeAck {
		ws.Close()
		return nil, fmt.Errorf("expected ack, got %s", m.Type)
	}
	return ws, nil
}

func actionNames() []string {
	out := make([]string, len(protocol.Actions))
	for i, a := range protocol.Actions {
		out[i] = string(a)
	}
	return out
}

// Handle sets the handler for one action type.
func (e *Extension) Handle(t protocol.ActionType, h Handler) {
	e.mu.Lock()
	e.handlers[t] = h
	e.mu.Unlock()
}

// HandleAll sets the handler for actions without their own.
func (e *Extension) HandleAll(h Handler) {
	e.mu.Lock()
	e.fallback = h
	e.mu.Unlock()
}

// Deadlines returns each request's deadlineMs (0 when absent), in the
// order of Requests.
func (e *Extension) Deadlines() []int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int64(nil), e.deadlines...)
}

// RequestIDs returns each request's id, in the order of Requests.
func (e *Extension) RequestIDs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ids...)
}

// Cancels returns the ids of the cancel messages received so far, in
// arrival order. The fake only records them: its handlers run to the end.
func (e *Extension) Cancels() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.cancels...)
}

// Replays returns each request's replay flag (re-sent after a
// reconnect), in the order of Requests.
func (e *Extension) Replays() []bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]bool(nil), e.replays...)
}

// Requests returns the actions received so far, in arrival order.
func (e *Extension) Requests() []protocol.Action {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Action(nil), e.requests...)
}

// Closed is closed when the current connection ends; CloseErr then tells
// why.
func (e *Extension) Closed() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// CloseErr is the read error that ended the current connection (a
// *websocket.CloseError carries the daemon's close code).
func (e *Extension) CloseErr() error {
	<-e.Closed()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closeErr
}

// SendEvent sends {type:"event", event: ev}.
func (e *Extension) SendEvent(ev map[string]any) error {
	return e.write(map[string]any{"type": "event", "event": ev})
}

// SendBinary writes one binary frame, which the protocol does not allow.
func (e *Extension) SendBinary(data []byte) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return e.ws.WriteMessage(websocket.BinaryMessage, data)
}

// SendRaw writes one text frame as is.
func (e *Extension) SendRaw(data []byte) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return e.ws.WriteMessage(websocket.TextMessage, data)
}

// Close hangs up.
func (e *Extension) Close() error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return e.ws.Close()
}

func (e *Extension) write(v any) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return e.ws.WriteJSON(v)
}

func (e *Extension) readLoop(ws *websocket.Conn, closed chan struct{}) {
	defer close(closed)
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			e.mu.Lock()
			if e.closed == closed {
				e.closeErr = err
			}
			e.mu.Unlock()
			return
		}
		m, perr := protocol.Decode(data)
		if perr != nil {
			// Like the real extension: an invalid request that has an id
			// is answered, so the caller learns why at once.
			var probe struct{ Type, ID string }
			if json.Unmarshal(data, &probe) == nil && probe.Type == "request" && probe.ID != "" {
				_ = e.write(map[string]any{"type": "response", "id": probe.ID, "error": perr})
			}
			continue
		}
		if m.Type == protocol.TypeCancel {
			e.mu.Lock()
			e.cancels = append(e.cancels, m.Cancel.ID)
			e.mu.Unlock()
			continue
		}
		if m.Type != protocol.TypeRequest {
			continue
		}
		go e.serve(m.Request)
	}
}

func (e *Extension) serve(r *protocol.Request) {
	e.mu.Lock()
	e.requests = append(e.requests, r.Action)
	e.ids = append(e.ids, r.ID)
	e.deadlines = append(e.deadlines, r.DeadlineMs)
	e.replays = append(e.replays, r.Replay)
	var entry *replayEntry
	if e.opts.Instance != "" {
		if seen, ok := e.replay[r.ID]; ok {
			// Answered already: from the cache. Still running: joined, as
			// the real extension does; its handler answers on whichever
			// connection is up when it ends.
			if seen.finished && seen.resp != nil {
				_ = e.write(seen.resp)
			}
			e.mu.Unlock()
			return
		}
		entry = &replayEntry{}
		e.replay[r.ID] = entry
	}
	h := e.handlers[r.Action.Type]
	if h == nil && r.Action.Type == protocol.ActionGetTrace {
		h = func(a protocol.Action) (any, *protocol.Error) { return e.traces.read(a), nil }
	}
	if h == nil {
		h = e.fallback
	}
	e.mu.Unlock()
	start := time.Now()
	res, perr := h(r.Action)
	e.recordAction(r.Action, time.Since(start), perr)
	var resp map[string]any
	switch perr {
	case Silent:
	case Hangup:
		e.Close()
	case Malformed:
		_ = e.SendRaw([]byte(`{"type":"response","id":"` + r.ID + `","result":{"ok":true},"error":{"code":"nope"}}`))
	default:
		resp = map[string]any{"type": "response", "id": r.ID}
		if perr != nil {
			resp["error"] = perr
		} else {
			resp["result"] = res
		}
	}
	if entry != nil {
		// Finished and sent in one step, so a re-sent request is answered
		// either here or from the cache, never both.
		e.mu.Lock()
		defer e.mu.Unlock()
		entry.finished, entry.resp = true, resp
	}
	if resp != nil {
		_ = e.write(resp)
	}
}

// MustJSON is a test helper that marshals v or panics.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
