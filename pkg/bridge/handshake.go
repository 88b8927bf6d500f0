package bridge

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/protocol"
)

// HandshakeTimeout is how long a new connection has to send hello.
const HandshakeTimeout = 5 * time.Second

// ServeHTTP routes the daemon's loopback port: the extension's WebSocket at
// "/" and "/ws/browser", and the one-time pairing-code claim at
// "/pair/claim". Host and Origin are checked before anything else: browsers
// send no CORS preflight for WebSocket upgrades, so any web page could open
// this port, and a rebinding DNS name could reach it as "same origin".
func (d *Daemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !d.loopbackHost(r.Host) {
		d.logs.Info("refused requests (Host)", "request refused: Host is not loopback and this port", "host", clipInput(r.Host), "remote", r.RemoteAddr)
		http.Error(w, "bua: Host must be a loopback address and this port", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); !d.allowedOrigin(origin) {
		d.logs.Info("refused requests (Origin)", "request refused: Origin is not the paired extension", "origin", clipInput(origin), "remote", r.RemoteAddr)
		http.Error(w, "bua: Origin is not the paired bua extension", http.StatusForbidden)
		return
	}
	switch r.URL.Path {
	case "/", "/ws/browser":
		d.serveWS(w, r)
	case "/pair/claim":
		d.serveClaim(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (d *Daemon) loopbackHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if p, err := strconv.Atoi(port); err != nil || p != d.port {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (d *Daemon) allowedOrigin(origin string) bool {
	_, ok := d.origins[origin]
	return ok && origin != ""
}

var upgrader = websocket.Upgrader{
	ReadBufferSize:  16 << 10,
	WriteBufferSize: 16 << 10,
	// ServeHTTP has already compared Origin exactly with the allowed set;
	// gorilla's default same-host check would be both weaker and wrong for
	// chrome-extension:// origins.
	CheckOrigin: func(*http.Request) bool { return true },
}

func (d *Daemon) serveWS(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the HTTP request
	}
	ws.SetReadLimit(MaxHandshakeMessage)
	_ = ws.SetReadDeadline(time.Now().Add(HandshakeTimeout))
	// Whatever fails here is logged through the limiter, keyed by Origin
	// (one of the allowed few by now): any local process can forge it.
	from := " from Origin " + r.Header.Get("Origin")
	typ, data, err := ws.ReadMessage()
	if err != nil {
		d.logs.Info("failed handshakes"+from, "handshake failed", "err", clipInput(err.Error()), "remote", r.RemoteAddr)
		closeWS(ws, protocol.CloseHandshake, fmt.Sprintf("no hello within %s", HandshakeTimeout))
		return
	}
	if typ != websocket.TextMessage {
		// The protocol is JSON text frames only
		// (docs/protocol.md#messages): refuse, without a reject, like any frame after ack.
		d.logs.Info("rejected hellos"+from, "handshake refused: binary frame", "remote", r.RemoteAddr)
		closeWS(ws, protocol.CloseUnsupportedData, "bua speaks JSON text frames only")
		return
	}
	reject := func(code int, msg string) {
		d.logs.Info("rejected hellos"+from, "handshake rejected", "closeCode", code, "reason", clipInput(msg), "remote", r.RemoteAddr)
		rejectWS(ws, code, msg)
	}
	m, perr := protocol.Decode(data)
	if perr != nil || m.Type != protocol.TypeHello {
		msg := "the first message must be hello"
		if perr != nil {
			msg += ": " + perr.Message
		}
		reject(protocol.CloseHandshake, msg)
		return
	}
	h := m.Hello
	if h.ProtocolVersion != protocol.ProtocolVersion {
		reject(protocol.CloseVersionMismatch, fmt.Sprintf(
			"protocol version %d is not supported; this bua speaks %d: update the bua extension (`bua extension path`) or the bua binary so both match",
			h.ProtocolVersion, protocol.ProtocolVersion))
		return
	}
	name, ok := d.pairHello(ws, h.PairingToken, from, r.RemoteAddr, reject)
	if !ok {
		return
	}
	if !d.gate.ackConn(r.Context()) {
		// Shed at the cap between its hello and now (gate.go): the
		// extension reconnects with its backoff.
		_ = ws.Close()
		return
	}
	ack, _ := json.Marshal(protocol.Ack{Type: protocol.TypeAck, ProtocolVersion: protocol.ProtocolVersion, ServerVersion: d.cfg.ServerVersion})
	_ = ws.SetWriteDeadline(time.Now().Add(writeWait))
	if err := ws.WriteMessage(websocket.TextMessage, ack); err != nil {
		ws.Close()
		return
	}
	_ = ws.SetWriteDeadline(time.Time{})
	// The token says which browser this is (names.go): a named pairing's
	// extension pairs with its own token, as the options page takes one.
	c := newConn(ws, name, *h, d.log, d.onEvent)
	d.log.Info("extension connected", "browser", name, "clientVersion", clipInput(h.ClientVersion))
	d.attach(c) // replaced.go
}

// pairHello is the browser name a hello's token pairs as (names.go). When
// it pairs as none, pairHello has closed ws saying why: "try later" when
// the tokens cannot be read now or too many hellos failed, else a reject
// through reject; from and remote name the peer in the log.
func (d *Daemon) pairHello(ws *websocket.Conn, token, from, remote string, reject func(code int, msg string)) (string, bool) {
	// The token is checked first, in constant time, and only failures
	// spend the budget: however many wrong hellos arrive, the right token
	// is accepted at once.
	tokens, terr := d.tokens()
	name, ok := matchToken(token, tokens)
	if !ok && terr != nil {
		// A token file that cannot be read now (out of descriptors, say)
		// must not turn the right token into a final reject: "try later".
		d.logs.Warn("unreadable pairing tokens", "handshake deferred: cannot read the pairing tokens", "err", terr)
		closeWS(ws, protocol.CloseRateLimited, "the daemon cannot read its pairing tokens now: try later")
		return "", false
	}
	if !ok {
		if !d.helloLimiter.Allow() {
			// Not a reject, which the extension takes as final: 4029 says
			// "try later", and the extension retries with its backoff.
			d.logs.Info("rate-limited hellos"+from, "handshake rate-limited", "remote", remote)
			closeWS(ws, protocol.CloseRateLimited, "too many failed handshakes: try later")
			return "", false
		}
		msg := "wrong pairing token: run `bua pair` and paste the token (or a one-time code from `bua pair --code`) into the extension's options"
		if token == "" {
			msg = "no pairing token: run `bua pair` and paste the token (or a one-time code from `bua pair --code`) into the extension's options"
		}
		if _, err := ReadToken(d.cfg.Dirs.TokenFile()); err != nil {
			msg = "bua's pairing token file is unreadable or malformed, so no token pairs as your browser: run `bua pair` for a new one and paste it into the extension's options"
		}
		reject(protocol.CloseBadToken, msg)
		return "", false
	}
	return name, true
}

// rejectWS sends a reject saying msg, then closes ws with code.
func rejectWS(ws *websocket.Conn, code int, msg string) {
	rej, _ := json.Marshal(protocol.Reject{
		Type: protocol.TypeReject, RequiredMinProtocolVersion: protocol.ProtocolVersion,
		Error: &protocol.Error{Code: protocol.CodeInvalidAction, Message: msg},
	})
	_ = ws.SetWriteDeadline(time.Now().Add(writeWait))
	_ = ws.WriteMessage(websocket.TextMessage, rej)
	closeWS(ws, code, msg)
}

func closeWS(ws *websocket.Conn, code int, msg string) {
	if len(msg) > 120 { // close reasons must fit a control frame (125 bytes)
		msg = msg[:120]
	}
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, msg), time.Now().Add(writeWait))
	_ = ws.Close()
}

// ClaimRequest is the body of POST /pair/claim.
type ClaimRequest struct {
	Code string `json:"code"`
}

// ClaimResponse answers a good claim with the token of the user pairing
// the code was minted for (`bua pair --code [--name NAME]`).
type ClaimResponse struct {
	Token       string `json:"token"`
	URL         string `json:"url"`
	ExtensionID string `json:"extensionId"`
}

func (d *Daemon) serveClaim(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, msg string) {
		writeJSON(status, map[string]*protocol.Error{"error": {Code: protocol.CodeInvalidAction, Message: msg}})
	}
	if r.Method != http.MethodPost {
		fail(http.StatusMethodNotAllowed, "POST a JSON {\"code\": \"XXXX-XXXX\"}")
		return
	}
	// Unlike a 256-bit token, a code is short enough to guess, so the
	// budget is consulted before the code is: while it is spent, every
	// claim waits (the pairing token from `bua pair` still works). It is
	// the codes' own budget: hellos never spend it.
	if d.codeLimiter.Tokens() < 1 {
		w.Header().Set("Retry-After", strconv.Itoa(int(FailureInterval/time.Second)))
		fail(http.StatusTooManyRequests, "too many wrong pairing codes: try again in a few seconds, or pair with the token from `bua pair`")
		return
	}
	var req ClaimRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1024)).Decode(&req); err != nil {
		fail(http.StatusBadRequest, "body must be JSON {\"code\": \"XXXX-XXXX\"}")
		return
	}
	pairing, ok := d.codes.claim(req.Code, time.Now())
	if !ok {
		d.codeLimiter.Allow()
		fail(http.StatusForbidden, "that pairing code is wrong, used or expired: run `bua pair --code` for a new one")
		return
	}
	tok, err := EnsureToken(PairingTokenFile(d.cfg.Dirs, pairing), false)
	if err != nil {
		fail(http.StatusInternalServerError, "cannot read bua's pairing token: run `bua pair` in a terminal, then claim a new code: "+err.Error())
		return
	}
	writeJSON(http.StatusOK, ClaimResponse{Token: tok, URL: d.URL(), ExtensionID: d.cfg.ExtensionID})
}
