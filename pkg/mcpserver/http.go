package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `bua mcp --port` (docs/mcp.md#over-http): MCP's streamable HTTP
// transport on loopback, for agents that run apart from their tools or
// share one server. What reaches the SDK's handler has passed, in order:
//
//  1. Host: exactly 127.0.0.1:PORT or localhost:PORT (DNS rebinding: a
//     page whose name now points at 127.0.0.1 sends its own name). The
//     SDK's DNS-rebinding protection, which stays on, checks it again but
//     takes any loopback name on any port.
//  2. Origin: absent (a program), or exactly http://127.0.0.1:PORT or
//     http://localhost:PORT; then net/http's CrossOriginProtection, the
//     cross-origin protection the SDK documents for its handler, which
//     also refuses a browser's cross-site POST by its Sec-Fetch-Site.
//     Browsers send no Authorization header cross-origin without a CORS
//     preflight, and this server answers none, but a refused Origin is
//     refused before the token is looked at.
//  3. Authorization: Bearer TOKEN, compared in constant time (over
//     SHA-256 digests, so not even the length is timed); a missing or
//     wrong one is 401 with nothing else said.
//
// Each MCP session (its Mcp-Session-Id) is one agent, as each stdio
// server is: HTTPOptions.Session makes its own Server, whose Requester
// names an owner of its own, so the daemon keeps each session to its own
// tabs. A session ends when its client ends it (DELETE), when it has been
// idle for SessionTimeout, or when the handler closes; its calls in
// flight are cancelled, and its end hook closes the tabs it opened
// (Server.CloseTabs; `bua mcp --keep-tabs` keeps them) and hangs up its
// link to the daemon, which frees any others, as when a stdio client goes.

// HTTPPath is the URL path MCP is served on: http://127.0.0.1:PORT/mcp.
const HTTPPath = "/mcp"

// HTTPOptions configure NewHTTP.
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// (Authorization: Bearer TOKEN). It must not be empty.
	Token string
	// Port is the loopback port the handler is served on, which Host and
	// Origin must name.
	Port int
	// Session makes the server of a new session, one agent: its
	// Requester names an owner of its own. end, when not nil, is called
	// once when the session ends (the client's DELETE, SessionTimeout,
	// Close), after its calls were cancelled: it closes the tabs the agent
	// opened (unless kept) and hangs up its link to the daemon, which
	// frees the agent's other tabs.
	Session func() (srv *Server, end func(), err error)
	// SessionTimeout ends a session that has had no request for this
	// long; 0 keeps it until its client ends it or the handler closes.
	SessionTimeout time.Duration
	// Log gets the handler's log: sessions that start and end, and
	// requests refused (what was wrong, never a token). Default: discard.
	Log *slog.Logger
}

// HTTPHandler is the http.Handler of `bua mcp --port`: the checks above,
// then the SDK's StreamableHTTPHandler with a Server per session.
type HTTPHandler struct {
	o        HTTPOptions
	digest   [sha256.Size]byte // of the token
	sdk      http.Handler
	cop      *http.CrossOriginProtection
	probe    *mcp.Server // answers the SDK's version check on requests that start no session
	life     context.Context
	stop     context.CancelFunc
	refusals refusalLog

	mu       sync.Mutex
	closed   bool
	live     map[*httpSession]struct{} // every session made and not yet ended
	sessions map[string]*httpSession   // the bound ones, by Mcp-Session-Id
}

// NewHTTP returns the handler for o. Close ends its sessions.
func NewHTTP(o HTTPOptions) (*HTTPHandler, error) {
	if o.Token == "" {
		return nil, fmt.Errorf("mcpserver: an HTTP server needs a token")
	}
	if o.Session == nil {
		return nil, fmt.Errorf("mcpserver: no Session")
	}
	if o.Port <= 0 || o.Port > 65535 {
		return nil, fmt.Errorf("mcpserver: port %d", o.Port)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &HTTPHandler{
		o: o, digest: sha256.Sum256([]byte(o.Token)),
		cop:      http.NewCrossOriginProtection(),
		probe:    mcp.NewServer(&mcp.Implementation{Name: "bua"}, nil),
		refusals: refusalLog{log: o.Log, last: map[string]*refusalCount{}},
		live:     map[*httpSession]struct{}{},
		sessions: map[string]*httpSession{},
	}
	h.life, h.stop = context.WithCancel(context.Background())
	// DisableLocalhostProtection stays false: the SDK's own DNS-rebinding
	// check runs too.
	h.sdk = mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{
		SessionTimeout: o.SessionTimeout,
		Logger:         o.Log,
	})
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r.Host) {
		h.refusals.note("Host", r, "host", r.Host)
		http.Error(w, fmt.Sprintf("forbidden: Host must be 127.0.0.1:%d or localhost:%d", h.o.Port, h.o.Port), http.StatusForbidden)
		return
	}
	if origin, sent := r.Header["Origin"]; sent && !h.originAllowed(origin) {
		h.refusals.note("Origin", r, "origin", strings.Join(origin, ", "))
		http.Error(w, fmt.Sprintf("forbidden: a request from a web page must come from http://127.0.0.1:%d", h.o.Port), http.StatusForbidden)
		return
	}
	if err := h.cop.Check(r); err != nil {
		h.refusals.note("cross-origin", r, "secFetchSite", r.Header.Get("Sec-Fetch-Site"))
		http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
		return
	}
	if !h.authorized(r) {
		h.refusals.note("token", r, "authorization", authSummary(r))
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != HTTPPath {
		http.NotFound(w, r)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	switch {
	case r.Method == http.MethodDelete && id != "":
		// The client ends its session: its calls in flight end now, so
		// the SDK's close, which waits for them, does not wait out a 30 s
		// wait_for.
		if s := h.bound(id); s != nil {
			s.cancel()
		}
	case r.Method == http.MethodPost && id == "":
		body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
		if err != nil {
			http.Error(w, "cannot read the request", http.StatusBadRequest)
			return
		}
		if len(body) > mcp.DefaultMaxRequestBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !initializes(body) {
			// No agent for a probe (a client's server/discover before it
			// falls back to initialize): the SDK gets the probe server.
			break
		}
		// A new session, an agent: the SDK asks h.server for its server
		// (more than once); the request's context carries the one it
		// gets.
		n := &newSession{}
		r = r.WithContext(context.WithValue(r.Context(), newSessionKey{}, n))
		h.sdk.ServeHTTP(w, r)
		n.settle()
		return
	}
	h.sdk.ServeHTTP(w, r)
}

// Sessions is how many sessions are open.
func (h *HTTPHandler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.live)
}

// Close ends every session, as their clients' DELETE would: calls in
// flight are cancelled, each end hook runs. Requests that arrive after
// start no session.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	var all []*httpSession
	for s := range h.live {
		all = append(all, s)
	}
	h.mu.Unlock()
	h.stop()
	for _, s := range all {
		if ss := s.session(); ss != nil {
			_ = ss.Close()
		}
		s.finish("server closed")
	}
}

// hostAllowed: Host names this port on loopback by the names a client is
// given (127.0.0.1, localhost); port 80 may go unnamed.
func (h *HTTPHandler) hostAllowed(host string) bool {
	port := strconv.Itoa(h.o.Port)
	if name, p, ok := strings.Cut(host, ":"); ok {
		return p == port && (name == "127.0.0.1" || strings.EqualFold(name, "localhost"))
	}
	return h.o.Port == 80 && (host == "127.0.0.1" || strings.EqualFold(host, "localhost"))
}

// originAllowed: one Origin header, this server's own origin.
func (h *HTTPHandler) originAllowed(values []string) bool {
	if len(values) != 1 {
		return false
	}
	port := strconv.Itoa(h.o.Port)
	return values[0] == "http://127.0.0.1:"+port || values[0] == "http://localhost:"+port
}

// authorized compares the request's bearer token with the token, in
// constant time over their digests.
func (h *HTTPHandler) authorized(r *http.Request) bool {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return false
	}
	scheme, tok, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.digest[:]) == 1
}

// authSummary says what was wrong with a request's Authorization for the
// log, never what it held.
func authSummary(r *http.Request) string {
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0:
		return "missing"
	case len(values) > 1:
		return "several"
	}
	scheme, _, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "not a bearer token"
	}
	return "wrong token"
}

// initializes reports whether body, a JSON-RPC message or batch, holds an
// initialize request: what starts a session.
func initializes(body []byte) bool {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return false
	}
	for _, m := range batch {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// newSessionKey keys a request's *newSession in its context.
type newSessionKey struct{}

// newSession is the session a POST without Mcp-Session-Id may start: made
// the first time the SDK asks for its server.
type newSession struct {
	once sync.Once
	s    *httpSession
}

// settle ends a session made for a request that did not bind it (no
// message reached its server): the SDK has dropped it.
func (n *newSession) settle() {
	if n.s != nil && n.s.session() == nil {
		n.s.finish("never started")
	}
}

// server is the SDK's getServer: a new session's server for the request
// that starts it, else the probe, which the SDK only asks for the
// protocol versions it speaks.
func (h *HTTPHandler) server(r *http.Request) *mcp.Server {
	n, ok := r.Context().Value(newSessionKey{}).(*newSession)
	if !ok {
		return h.probe
	}
	n.once.Do(func() { n.s = h.newSession() })
	if n.s == nil {
		return nil // the SDK answers 400
	}
	return n.s.mcp
}

// httpSession is one agent: its Server, and how it ends.
type httpSession struct {
	h      *HTTPHandler
	srv    *Server
	mcp    *mcp.Server
	end    func()
	cancel context.CancelFunc
	// bind records the SDK's session when its first message arrives.
	bindOnce sync.Once
	ss       *mcp.ServerSession // under h.mu
	id       string             // ss.ID(), under h.mu
	endOnce  sync.Once
	ended    bool // under h.mu
}

// newSession makes a session's server (HTTPOptions.Session), whose calls
// end with the session; nil when the handler is closed or Session fails.
func (h *HTTPHandler) newSession() *httpSession {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil
	}
	srv, end, err := h.o.Session()
	if err != nil {
		h.o.Log.Error("mcp session not started", "err", err)
		return nil
	}
	s := &httpSession{h: h, srv: srv, end: end}
	srv.life, s.cancel = context.WithCancel(h.life)
	s.mcp = srv.MCP()
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.bind(ss)
			}
			return next(ctx, method, req)
		}
	})
	h.mu.Lock()
	h.live[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// bind records ss as this session's, on its first message, and ends the
// agent when ss ends.
func (s *httpSession) bind(ss *mcp.ServerSession) {
	s.bindOnce.Do(func() {
		h := s.h
		h.mu.Lock()
		if s.ended {
			h.mu.Unlock()
			go ss.Close()
			return
		}
		s.ss, s.id = ss, ss.ID()
		h.sessions[s.id] = s
		h.mu.Unlock()
		h.o.Log.Info("mcp session started", "sessions", h.Sessions())
		go func() {
			_ = ss.Wait()
			s.finish("closed")
		}()
	})
}

// session is the SDK's session once bound, else nil.
func (s *httpSession) session() *mcp.ServerSession {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.ss
}

// bound is the session whose Mcp-Session-Id is id, or nil.
func (h *HTTPHandler) bound(id string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// finish ends the agent once: its calls are cancelled and its end hook
// frees its tabs.
func (s *httpSession) finish(why string) {
	s.endOnce.Do(func() {
		h := s.h
		s.cancel()
		h.mu.Lock()
		s.ended = true
		started := s.ss != nil
		delete(h.live, s)
		if s.id != "" {
			delete(h.sessions, s.id)
		}
		left := len(h.live)
		h.mu.Unlock()
		if s.end != nil {
			s.end()
		}
		if started {
			h.o.Log.Info("mcp session ended", "why", why, "sessions", left)
		}
	})
}

// refusalLog logs refused requests: the first of each kind, then at most
// one line a kind per refusalEvery with how many there were, so that a
// local process hammering the port cannot flood the log.
type refusalLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	last map[string]*refusalCount
}

type refusalCount struct {
	at     time.Time
	unseen int
}

// refusalEvery is how often a kind of refusal is logged at most.
const refusalEvery = 10 * time.Second

// note logs one refusal of kind, with one detail of the request (clipped:
// it is the peer's input).
func (l *refusalLog) note(kind string, r *http.Request, key, value string) {
	l.mu.Lock()
	c := l.last[kind]
	now := time.Now()
	if c != nil && now.Sub(c.at) < refusalEvery {
		c.unseen++
		l.mu.Unlock()
		return
	}
	unseen := 0
	if c != nil {
		unseen = c.unseen
	}
	l.last[kind] = &refusalCount{at: now}
	l.mu.Unlock()
	if len(value) > 100 {
		cut := 100
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut--
		}
		value = value[:cut] + "…"
	}
	l.log.Warn("mcp request refused: "+kind, key, value, "remote", r.RemoteAddr, "method", r.Method, "alsoRefusedSinceLastLine", unseen)
}
