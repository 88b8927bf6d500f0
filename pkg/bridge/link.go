package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// The CLI link: newline-delimited JSON frames over the private link
// (home.ListenLink: a unix socket, or loopback TCP once both ends proved
// the link key).
// A client sends linkRequests tagged with its own ids and may interleave
// them on one connection; the daemon answers each with a linkResponse of
// the same id, in completion order.

// Link operations.
const (
	OpRequest      = "request"       // run Action
	OpStatus       = "status"        // -> Status
	OpStop         = "stop"          // stop the daemon
	OpEvents       = "events"        // stream EventRecords (Follow) after the log
	OpPairCode     = "pair_code"     // Browser (a pairing's name, or user) -> PairCode
	OpBrowserStart = "browser_start" // Browser (a managed name), options -> ManagedStatus
	OpBrowserStop  = "browser_stop"  // Browser (a managed name, or every one) -> {stopped}
	// OpCancel ends the same connection's unfinished operation whose id it
	// carries, as hanging up would end them all; it gets no answer of its
	// own. A request it ends answers "aborted by caller", and the pool
	// cancels it in the extension (docs/cancellation.md#cancellation).
	OpCancel = "cancel"
)

type linkRequest struct {
	ID        string          `json:"id"`
	Op        string          `json:"op"`
	Action    json.RawMessage `json:"action,omitempty"`
	Browser   Selection       `json:"browser,omitempty"`
	TimeoutMs int64           `json:"timeoutMs,omitempty"`
	// CallerTimeoutMs is the caller's whole timeout (TimeoutMs is what is
	// left of it), only for stating it in errors.
	CallerTimeoutMs int64           `json:"callerTimeoutMs,omitempty"`
	NoValidate      bool            `json:"noValidate,omitempty"`
	Options         *BrowserOptions `json:"options,omitempty"`
	// Owner names the agent a request acts for (a bua mcp process, one
	// random id each, or a worker of `bua run --parallel`): its actions
	// keep to its own tabs (owners.go). A one-shot CLI command names none.
	Owner string `json:"owner,omitempty"`
	// OwnWindow asks, with Owner, that the owner's tabs open in a window
	// of its own (open_tab's window: the extension's windows feature), so
	// that each of several workers in the person's Chrome has its own
	// active tab to send input to.
	OwnWindow bool `json:"ownWindow,omitempty"`
	// Tab is a tab handle (t1, t2, …: handles.go) the request acts on:
	// it goes to that tab's browser, and a tab action that names no
	// tabId gets that tab's.
	Tab string `json:"tab,omitempty"`
}

type linkResponse struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *protocol.Error `json:"error,omitempty"`
	Event  *EventRecord    `json:"event,omitempty"` // streamed by OpEvents
	More   bool            `json:"more,omitempty"`  // more frames follow for this id
}

// Status is `bua status`'s view of the daemon.
type Status struct {
	PID         int          `json:"pid"`
	Version     string       `json:"version"`
	Listen      string       `json:"listen"`
	URL         string       `json:"url"`
	Uptime      string       `json:"uptime"`
	Connections []ConnStatus `json:"connections"`
	InFlight    int          `json:"inFlight"`
	// Pairings are the names of the user pairings that have a name of
	// their own (`bua pair --name`), sorted; user is UserPaired.
	Pairings []string `json:"pairings"`
	// ManagedBrowsers are the managed browsers that run (managed,
	// managed-1, …), each with its Name; Managed is managed's alone, as
	// before there were several.
	ManagedBrowsers []ManagedStatus `json:"managedBrowsers"`
	// Held counts the requests in flight (InFlight includes them) whose
	// connection dropped and that wait for their extension to reconnect
	// (docs/cancellation.md#reconnect).
	Held        int           `json:"held,omitempty"`
	UserPaired  bool          `json:"userPaired"`
	Managed     ManagedStatus `json:"managed"`
	Socket      string        `json:"socket"`
	ExtensionID string        `json:"extensionId"`
	// StoreExtensionIDs are the store IDs this daemon accepts besides
	// ExtensionID (Config.StoreExtensionIDs, from BUA_EXTENSION_IDS).
	StoreExtensionIDs []string       `json:"storeExtensionIds,omitempty"`
	Runtime           RuntimeStats   `json:"runtime"`
	Extra             map[string]any `json:"extra,omitempty"`

	// Replaced lists, by browser name, when its extension was replaced by
	// a newer connection (close 4003) that has since gone, with nothing of
	// that browser connected now: that extension does not reconnect by
	// itself (replaced.go).
	Replaced map[string]time.Time `json:"replaced,omitempty"`
}

// ConnStatus is one extension connection in Status.
type ConnStatus struct {
	// Browser is the browser's name (names.go); Kind whose it is.
	Browser         string         `json:"browser"`
	Kind            Kind           `json:"kind"`
	ClientVersion   string         `json:"clientVersion"`
	ProtocolVersion int            `json:"protocolVersion"`
	Caps            *protocol.Caps `json:"caps,omitempty"`
	ConnectedAt     time.Time      `json:"connectedAt"`
	LastSeen        time.Time      `json:"lastSeen"`
	InFlight        int            `json:"inFlight"`
}

// PairCode is a minted one-time pairing code.
type PairCode struct {
	Code      string    `json:"code"`
	ExpiresAt time.Time `json:"expiresAt"`
	URL       string    `json:"url"`
}

// acceptLink serves the CLI link until ln closes. ln waits out a lack of
// descriptors (patientListener); any other failure leaves no way to reach
// this daemon, so it stops, and the next command starts another. Each
// connection is served once link admits it (the client's uid, or its
// proof of the link key: home.LinkListener.Admit).
func (d *Daemon) acceptLink(ln net.Listener, link *home.LinkListener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				d.log.Error("the CLI link stopped accepting: stopping", "err", err)
				d.Stop()
			}
			return
		}
		go d.serveLink(c, link)
	}
}

// AdmitTimeout bounds a CLI client's proof of the link key (Windows):
// on loopback it takes well under a millisecond.
const AdmitTimeout = 5 * time.Second

func (d *Daemon) serveLink(c net.Conn, link *home.LinkListener) {
	defer d.freed.signal()
	defer c.Close()
	actx, acancel := context.WithTimeout(context.Background(), AdmitTimeout)
	err := link.Admit(actx, c)
	acancel()
	if err != nil {
		d.logs.Warn("refused CLI connections", "refused CLI connection", "err", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // a CLI that hangs up aborts its requests ("aborted by caller")
	var wmu sync.Mutex
	enc := json.NewEncoder(c)
	write := func(r linkResponse) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = enc.Encode(r)
	}
	var omu sync.Mutex
	ops := map[string]context.CancelFunc{} // unfinished operations by id, for OpCancel
	owners := map[string]bool{}            // the owners this connection's requests named
	defer func() {
		if len(owners) > 0 {
			d.agents.Add(-1)
		}
		// The agent went away: its tabs stay open, and are anyone's again.
		for o := range owners {
			if n := d.owners.release(o); n > 0 {
				d.log.Info("agent's tabs released", "owner", o, "tabs", n)
			}
		}
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	var buf []byte
	for {
		line, err := readLine(r, MaxRequestLine, buf[:0])
		buf = line
		if errors.Is(err, errLineTooLong) {
			e := protocol.Errorf(protocol.CodeInvalidAction, "the request is over %d MiB, the most one CLI request may send to the daemon: a text or script that long cannot be sent in one action, so split it", MaxRequestLine>>20)
			e.Reason = protocol.ReasonRefused
			write(linkResponse{ID: frameID(line), Error: e})
			continue
		}
		if err != nil {
			return // hung up, mid-line or not
		}
		var req linkRequest
		if err := json.Unmarshal(line, &req); err != nil {
			write(linkResponse{Error: protocol.Errorf(protocol.CodeInvalidAction, "bad CLI frame: %v", err)})
			continue
		}
		if req.Op == OpCancel {
			omu.Lock()
			if stop := ops[req.ID]; stop != nil {
				stop()
			}
			omu.Unlock()
			continue
		}
		octx, stop := context.WithCancel(ctx)
		omu.Lock()
		ops[req.ID] = stop
		if req.Owner != "" && !owners[req.Owner] {
			if len(owners) == 0 {
				d.agents.Add(1) // an agent's link: the daemon stays up for it
			}
			owners[req.Owner] = true
		}
		omu.Unlock()
		go func() {
			defer func() {
				omu.Lock()
				delete(ops, req.ID)
				omu.Unlock()
				stop()
			}()
			d.serveOp(octx, &req, write)
		}()
	}
}

func (d *Daemon) serveOp(ctx context.Context, req *linkRequest, write func(linkResponse)) {
	reply := func(v any, err *protocol.Error) {
		r := linkResponse{ID: req.ID, Error: err}
		if err == nil {
			raw, merr := json.Marshal(v)
			if merr != nil {
				r.Error = protocol.Errorf(protocol.CodeInternalError, "encode: %v", merr)
			} else {
				r.Result = raw
			}
		}
		write(r)
	}
	switch req.Op {
	case OpRequest:
		res, err := d.request(ctx, req)
		write(linkResponse{ID: req.ID, Result: res, Error: err})
	case OpStatus:
		reply(d.status(), nil)
	case OpStop:
		reply(map[string]bool{"stopping": true}, nil)
		d.Stop()
	case OpPairCode:
		pairing := string(req.Browser)
		if pairing == "" {
			pairing = string(SelectUser)
		} else if pairing != string(SelectUser) {
			if err := CheckPairingName(pairing); err != nil {
				reply(nil, protocol.Errorf(protocol.CodeInvalidAction, "%v", err))
				return
			}
		}
		if _, err := EnsureToken(PairingTokenFile(d.cfg.Dirs, pairing), false); err != nil {
			reply(nil, protocol.Errorf(protocol.CodeInternalError, "token: %v", err))
			return
		}
		code, exp := d.codes.mint(time.Now(), pairing)
		reply(PairCode{Code: code, ExpiresAt: exp, URL: d.URL()}, nil)
	case OpBrowserStart:
		d.lastActivity.Store(time.Now().UnixMilli())
		name, err := managedTarget(req.Browser)
		if err != nil {
			reply(nil, err)
			return
		}
		o := BrowserOptions{Headless: true}
		if req.Options != nil {
			o = *req.Options
		}
		m := d.managed.get(name)
		if err := m.start(d, o); err != nil {
			reply(nil, err)
			return
		}
		if req.TimeoutMs > 0 {
			var cancel context.CancelFunc
			ctx, cancel = withCallerTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond, req.statedTimeout())
			defer cancel()
		}
		if _, err := d.waitManaged(ctx, name); err != nil {
			reply(nil, err)
			return
		}
		reply(m.status(), nil)
	case OpBrowserStop:
		if req.TimeoutMs > 0 {
			// The caller's deadline cuts the SIGTERM grace short (SIGKILL
			// then), so the answer comes before the caller gives up.
			var cancel context.CancelFunc
			ctx, cancel = withCallerTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond, req.statedTimeout())
			defer cancel()
		}
		var stopped bool
		var err error
		if req.Browser == "" {
			stopped, err = d.managed.stopAll(ctx, d.log)
		} else if name, perr := managedTarget(req.Browser); perr != nil {
			reply(nil, perr)
			return
		} else {
			stopped, err = d.managed.get(name).stop(ctx, d.log)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			reply(nil, protocol.Errorf(protocol.CodeInternalError, "stop the managed browser: %v: run `bua browser stop` again", err))
			return
		}
		reply(map[string]bool{"stopped": stopped}, nil)
	case OpEvents:
		ch, unsub := d.events.subscribe()
		defer unsub()
		write(linkResponse{ID: req.ID, More: true}) // subscribed: the client may print the log now
		for {
			select {
			case rec := <-ch:
				write(linkResponse{ID: req.ID, Event: &rec, More: true})
			case <-ctx.Done():
				return
			}
		}
	default:
		reply(nil, protocol.Errorf(protocol.CodeInvalidAction, "unknown op %q", req.Op))
	}
}

func (d *Daemon) status() Status {
	s := Status{
		PID: os.Getpid(), Version: d.cfg.ServerVersion, Listen: d.addr, URL: d.URL(),
		Uptime: time.Since(d.started).Round(time.Second).String(), Managed: d.managed.get(string(SelectManaged)).status(),
		ManagedBrowsers: d.managed.statuses(), Pairings: PairingNames(d.cfg.Dirs.PairingsDir()),
		Socket: d.cfg.Dirs.Link(), ExtensionID: d.cfg.ExtensionID, StoreExtensionIDs: d.cfg.StoreExtensionIDs,
		Runtime: readRuntimeStats(),
	}
	conns := d.pool.Conns() // one read for Connections and Replaced alike
	s.Replaced = d.replacedSince(conns)
	tok, _ := ReadToken(d.cfg.Dirs.TokenFile())
	s.UserPaired = tok != ""
	s.Held = int(d.pool.held.Load())
	s.InFlight = s.Held
	s.Connections = []ConnStatus{}
	for _, c := range conns {
		n := c.InFlight()
		s.InFlight += n
		s.Connections = append(s.Connections, ConnStatus{
			Browser: c.Name, Kind: c.Kind, ClientVersion: c.Hello.ClientVersion, ProtocolVersion: c.Hello.ProtocolVersion,
			Caps: c.Hello.Caps, ConnectedAt: c.ConnectedAt, LastSeen: c.LastSeen(), InFlight: n,
		})
	}
	return s
}

// managedTarget is the managed browser a browser_start or browser_stop
// names: managed when it names none (or auto), else a managed name;
// anything else is invalid_action.
func managedTarget(sel Selection) (string, *protocol.Error) {
	switch {
	case sel == "" || sel == SelectAuto:
		return string(SelectManaged), nil
	case IsManaged(string(sel)):
		return string(sel), nil
	}
	e := protocol.Errorf(protocol.CodeInvalidAction, "%q is not a managed browser: bua starts and stops managed, managed-1 … managed-%d; a person's Chrome is theirs to open and close", sel, MaxManaged-1)
	e.Reason = protocol.ReasonRefused
	return "", e
}

// statedTimeout is the caller's timeout to name in errors.
func (r *linkRequest) statedTimeout() time.Duration {
	if r.CallerTimeoutMs > 0 {
		return time.Duration(r.CallerTimeoutMs) * time.Millisecond
	}
	return time.Duration(r.TimeoutMs) * time.Millisecond
}

// MaxRequestLine bounds one CLI request frame, in bytes, newline
// excluded: what a CLI may make the daemon buffer
// (docs/decisions/daemon-limits.md; it was
// MaxMessage, 64 MiB). An action's largest strings (type's text, eval's
// expression) are capped at 1 Mi characters by the schema, so an action
// near that cap is refused here first, with invalid_action. Answers are
// not bounded by it: a full-page screenshot comes back whole.
const MaxRequestLine = 1 << 20

// errLineTooLong is readLine's answer to a line over its limit.
var errLineTooLong = errors.New("line too long")

// readLine reads one newline-terminated line from r into buf and returns
// it without the newline. A line over limit is read to its end but not
// kept: readLine returns its first limit bytes and errLineTooLong, and the
// next call reads the line after it. At EOF (or any read error) mid-line
// it returns what it read and the error.
func readLine(r *bufio.Reader, limit int, buf []byte) ([]byte, error) {
	line, long := buf, false // len(line) <= limit
	for {
		chunk, err := r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		switch {
		case long:
		case len(line)+n > limit:
			long = true
			line = append(line, chunk[:limit-len(line)]...)
		default:
			line = append(line, chunk[:n]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, err
		case long:
			return line, errLineTooLong
		}
		return line, nil
	}
}

// frameID is the id an over-long request frame starts with, or "": the
// client encodes id first (linkRequest's field order), so the refusal
// reaches the call that sent it.
func frameID(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	if tok, err := dec.Token(); err != nil || tok != "id" {
		return ""
	}
	tok, _ := dec.Token()
	id, _ := tok.(string)
	return id
}
