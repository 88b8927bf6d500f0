package bridge

import (
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Connection timing and size limits (gorilla chat example).
const (
	writeWait  = 10 * time.Second // one frame's write deadline
	pongWait   = 60 * time.Second // no message or pong for this long: the peer is dead
	pingPeriod = 20 * time.Second // protocol pings keep NATs and proxies honest; heartbeats keep the MV3 worker alive

	// MaxHandshakeMessage bounds messages before ack: a hello is tiny, so a
	// peer cannot make the daemon buffer megabytes before it authenticates.
	MaxHandshakeMessage = 8 << 10
	// MaxMessage bounds messages after ack: large enough for a full-page
	// screenshot's base64 JPEG.
	MaxMessage = 64 << 20

	sendBuffer = 256 // queued outgoing frames per connection
)

// Kind says whose a browser is: the person's own Chrome (any user
// pairing, named or not), or a managed browser bua launches. The pool
// holds at most one connection per browser name (Conn.Name), not per
// kind.
type Kind string

// Pairing kinds.
const (
	KindUser    Kind = "user"
	KindManaged Kind = "managed"
)

// Conn is one authenticated extension connection. One reader goroutine
// decodes frames; one writer goroutine owns every write, since gorilla
// allows one concurrent writer.
type Conn struct {
	// Name is the browser's name (names.go): user, a pairing's own name,
	// managed or managed-N, from the token its hello carried.
	Name        string
	Kind        Kind
	Hello       protocol.Hello
	ConnectedAt time.Time

	ws       *websocket.Conn
	send     chan []byte
	done     chan struct{}
	lastSeen atomic.Int64 // unix ms of the last frame or pong
	log      *slog.Logger
	onEvent  func(*Conn, protocol.Event)

	mu        sync.Mutex
	pending   map[string]chan *protocol.Response
	closed    bool
	closeOnce sync.Once
	closeCode int
	closeMsg  string
	// holds and droppedAt are set once, when the connection ends: holds
	// when it dropped (the peer or the network, not the daemon, ended it)
	// and the extension resumes requests across a reconnect (resumable),
	// so its unanswered requests wait for the same instance instead of
	// failing at once (hold.go).
	holds     bool
	droppedAt time.Time
}

func newConn(ws *websocket.Conn, name string, hello protocol.Hello, log *slog.Logger, onEvent func(*Conn, protocol.Event)) *Conn {
	c := &Conn{
		Name: name, Kind: kindOf(name), Hello: hello, ConnectedAt: time.Now(),
		ws: ws, send: make(chan []byte, sendBuffer), done: make(chan struct{}),
		log: log, onEvent: onEvent, pending: make(map[string]chan *protocol.Response),
	}
	c.touch()
	return c
}

func (c *Conn) touch() { c.lastSeen.Store(time.Now().UnixMilli()) }

// LastSeen is when the peer last sent anything, heartbeats and pongs
// included.
func (c *Conn) LastSeen() time.Time { return time.UnixMilli(c.lastSeen.Load()) }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// InFlight is the number of requests awaiting a response.
func (c *Conn) InFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// start runs the reader and writer; it returns at once.
func (c *Conn) start() {
	go c.writeLoop()
	go c.readLoop()
}

func (c *Conn) readLoop() {
	defer c.drop()
	c.ws.SetReadLimit(MaxMessage)
	_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
	c.ws.SetPongHandler(func(string) error {
		c.touch()
		return c.ws.SetReadDeadline(time.Now().Add(pongWait))
	})
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			if websocket.IsUnexpectedCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
				c.log.Info("extension connection ended", "browser", c.Name, "err", err)
			}
			return
		}
		if typ != websocket.TextMessage {
			// JSON text frames only (docs/protocol.md#messages).
			c.log.Warn("closing: binary frame from extension", "browser", c.Name)
			c.shutdown(protocol.CloseUnsupportedData, "bua speaks JSON text frames only", false)
			return
		}
		c.touch()
		_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
		c.handle(data)
	}
}

func (c *Conn) handle(data []byte) {
	m, perr := protocol.Decode(data)
	if perr != nil {
		// A response we cannot parse still fails its request at once
		// rather than leaving the caller to time out.
		var probe struct {
			Type protocol.MessageType `json:"type"`
			ID   string               `json:"id"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Type == protocol.TypeResponse && probe.ID != "" {
			c.deliver(probe.ID, &protocol.Response{ID: probe.ID, Error: protocol.Errorf(protocol.CodeInternalError, "extension sent an invalid response: %s", perr.Message)})
		}
		c.log.Warn("dropping invalid message from extension", "browser", c.Name, "err", perr.Message)
		return
	}
	switch m.Type {
	case protocol.TypeResponse:
		c.deliver(m.Response.ID, m.Response)
	case protocol.TypeEvent:
		if m.Event.Event.Type == protocol.EventHeartbeat {
			return // only refreshes lastSeen, never logged
		}
		if c.onEvent != nil {
			c.onEvent(c, m.Event.Event)
		}
	default:
		c.log.Warn("dropping unexpected message from extension", "browser", c.Name, "type", m.Type)
	}
}

func (c *Conn) deliver(id string, r *protocol.Response) {
	c.mu.Lock()
	ch, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
		// Under the lock, so a sender that sees the connection end finds
		// the answer that came before it (buffered 1: never blocks).
		ch <- r
	}
	c.mu.Unlock()
	if !ok {
		c.log.Warn("dropping stray or late response", "browser", c.Name, "id", id)
	}
}

func (c *Conn) writeLoop() {
	ticker := time.NewTicker(pingPeriod)
	defer ticker.Stop()
	for {
		select {
		case frame := <-c.send:
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
				c.drop()
				return
			}
		case <-ticker.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				c.drop()
				return
			}
		case <-c.done:
			c.mu.Lock()
			code, msg := c.closeCode, c.closeMsg
			c.mu.Unlock()
			_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, msg), time.Now().Add(writeWait))
			_ = c.ws.Close()
			return
		}
	}
}

// Close ends the connection with a close code (CloseReplaced, say) and
// fails every pending request at once: the daemon ended it, so nothing
// will resume them.
func (c *Conn) Close(code int, reason string) { c.shutdown(code, reason, false) }

// drop ends a connection that the peer or the network ended (a read or
// write failed, the peer closed, pings went unanswered). An extension that
// resumes requests (resumable) keeps its actions running across it, so
// the pending requests are left to hold.go's Pool.hold; any other fails them
// at once, as every drop used to.
func (c *Conn) drop() { c.shutdown(websocket.CloseNormalClosure, "", c.resumable()) }

// shutdown ends the connection once. With hold the pending requests are
// removed unanswered (their senders see Done and hold them); without it
// each is answered internal_error, reason outcome_unknown: the extension
// may or may not have run it.
func (c *Conn) shutdown(code int, reason string, hold bool) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.closeCode, c.closeMsg = code, reason
		c.holds, c.droppedAt = hold, time.Now()
		pending := c.pending
		c.pending = make(map[string]chan *protocol.Response)
		c.mu.Unlock()
		why := "extension disconnected"
		if reason != "" {
			why += ": " + reason
		}
		if !hold {
			for id, ch := range pending {
				ch <- &protocol.Response{ID: id, Error: outcomeUnknown("%s before answering, so the action may or may not have run", why)}
			}
		}
		close(c.done)
	})
}

// held reports whether the connection ended with its pending requests
// held for a reconnect (see drop), and when it ended.
func (c *Conn) held() (bool, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed && c.holds, c.droppedAt
}

// resumable reports whether the extension resumes requests across a
// reconnect: its hello lists FeatureReplay and names its instance.
func (c *Conn) resumable() bool {
	return c.Supports(protocol.FeatureReplay) && c.Hello.Instance != ""
}

// resumes reports whether c is a new connection of old's extension
// instance (same browser name, same hello.instance, both resumable): the
// one old's held requests are re-sent on, and not a replacement.
func (c *Conn) resumes(old *Conn) bool {
	return c != old && c.Name == old.Name && c.resumable() && old.resumable() && c.Hello.Instance == old.Hello.Instance
}

// outcomeUnknown is internal_error, reason outcome_unknown: the request
// reached the extension, or may have, and its answer never came back.
func outcomeUnknown(format string, args ...any) *protocol.Error {
	err := protocol.Errorf(protocol.CodeInternalError, format, args...)
	err.Reason = protocol.ReasonOutcomeUnknown
	return err
}

// failPending answers every pending request with errf's error, removes
// them, and returns their ids.
func (c *Conn) failPending(errf func() *protocol.Error) []string {
	c.mu.Lock()
	pending := c.pending
	c.pending = make(map[string]chan *protocol.Response)
	c.mu.Unlock()
	ids := make([]string, 0, len(pending))
	for id, ch := range pending {
		ch <- &protocol.Response{ID: id, Error: errf()}
		ids = append(ids, id)
	}
	return ids
}

// register adds a pending request; false when the connection is closed.
func (c *Conn) register(id string) (chan *protocol.Response, bool) {
	ch := make(chan *protocol.Response, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false
	}
	c.pending[id] = ch
	return ch, true
}

func (c *Conn) unregister(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Supports reports whether the extension listed feature in its hello's
// caps.features (protocol.Feature*). Unlike actions, a feature is never
// assumed: an extension that does not list it does not have it.
func (c *Conn) Supports(feature string) bool {
	return c.Hello.Caps != nil && slices.Contains(c.Hello.Caps.Features, feature)
}

// cancel queues {type: "cancel", id} behind the request's own frame,
// without blocking the caller; false when the connection has ended.
func (c *Conn) cancel(id string) bool {
	frame, err := json.Marshal(protocol.Cancel{Type: protocol.TypeCancel, ID: id})
	if err != nil {
		return false
	}
	select {
	case c.send <- frame:
		return true
	case <-c.done:
		return false
	default: // the buffer is full: let the writer drain it
	}
	go func() {
		select {
		case c.send <- frame:
		case <-c.done:
		}
	}()
	return true
}

// Implements reports whether the extension listed typ in its hello's
// caps.actions. An extension that sent no caps is assumed to implement
// every action (caps are a pure addition to v4).
func (c *Conn) Implements(typ protocol.ActionType) bool {
	if c.Hello.Caps == nil || len(c.Hello.Caps.Actions) == 0 {
		return true
	}
	return slices.Contains(c.Hello.Caps.Actions, string(typ))
}
