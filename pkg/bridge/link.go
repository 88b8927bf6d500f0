package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/bridge/linkwire"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// The CLI link's frames are linkwire's (docs/link.md): the daemon's side
// is here, the client's in client.go.
type (
	linkRequest  = linkwire.Request
	linkResponse = linkwire.Response
)

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

// serveLink serves one client connection once link admits it: each
// request frame runs as an operation of its own (serveOp), until the
// client hangs up, which aborts its unfinished operations ("aborted by
// caller") and releases the tabs of the owners it named.
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
	lc := &linkConn{d: d, enc: json.NewEncoder(c), ops: map[string]context.CancelFunc{}, owners: map[string]bool{}}
	defer lc.release()
	r := bufio.NewReaderSize(c, 64<<10)
	var buf []byte
	for {
		line, err := linkwire.ReadLine(r, MaxRequestLine, buf[:0])
		buf = line
		if errors.Is(err, linkwire.ErrLineTooLong) {
			e := protocol.Errorf(protocol.CodeInvalidAction, "the request is over %d MiB, the most one CLI request may send to the daemon: a text or script that long cannot be sent in one action, so split it", MaxRequestLine>>20)
			e.Reason = protocol.ReasonRefused
			lc.write(linkResponse{ID: linkwire.FrameID(line), Error: e})
			continue
		}
		if err != nil {
			return // hung up, mid-line or not
		}
		var req linkRequest
		if err := json.Unmarshal(line, &req); err != nil {
			lc.write(linkResponse{Error: protocol.Errorf(protocol.CodeInvalidAction, "bad CLI frame: %v", err)})
			continue
		}
		if req.Op == linkwire.OpCancel {
			lc.cancel(req.ID)
			continue
		}
		lc.start(ctx, &req)
	}
}

// linkConn is one client connection's state: its writer, its unfinished
// operations (for OpCancel) and the owners its requests named.
type linkConn struct {
	d   *Daemon
	wmu sync.Mutex
	enc *json.Encoder

	mu     sync.Mutex
	ops    map[string]context.CancelFunc // unfinished operations by id
	owners map[string]bool
}

// write sends one response frame.
func (lc *linkConn) write(r linkResponse) {
	lc.wmu.Lock()
	defer lc.wmu.Unlock()
	_ = lc.enc.Encode(r)
}

// start runs req as an operation of its own, under a context OpCancel
// (or the connection's end) cancels.
func (lc *linkConn) start(ctx context.Context, req *linkRequest) {
	octx, stop := context.WithCancel(ctx)
	lc.mu.Lock()
	lc.ops[req.ID] = stop
	if req.Owner != "" && !lc.owners[req.Owner] {
		if len(lc.owners) == 0 {
			lc.d.agents.Add(1) // an agent's link: the daemon stays up for it
		}
		lc.owners[req.Owner] = true
	}
	lc.mu.Unlock()
	go func() {
		defer func() {
			lc.mu.Lock()
			delete(lc.ops, req.ID)
			lc.mu.Unlock()
			stop()
		}()
		lc.d.serveOp(octx, req, lc.write)
	}()
}

// cancel ends the unfinished operation id (OpCancel).
func (lc *linkConn) cancel(id string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if stop := lc.ops[id]; stop != nil {
		stop()
	}
}

// release is the end of the connection: the agent went away, and its
// tabs stay open, anyone's again.
func (lc *linkConn) release() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if len(lc.owners) > 0 {
		lc.d.agents.Add(-1)
	}
	for o := range lc.owners {
		if n := lc.d.owners.release(o); n > 0 {
			lc.d.log.Info("agent's tabs released", "owner", o, "tabs", n)
		}
	}
}

// serveOp runs one operation and writes its answer.
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
	case linkwire.OpRequest:
		res, err := d.request(ctx, req)
		write(linkResponse{ID: req.ID, Result: res, Error: err})
	case linkwire.OpStatus:
		reply(d.status(), nil)
	case linkwire.OpStop:
		reply(map[string]bool{"stopping": true}, nil)
		d.Stop()
	case linkwire.OpPairCode:
		reply(d.pairCode(req))
	case linkwire.OpBrowserStart:
		reply(d.browserStart(ctx, req))
	case linkwire.OpBrowserStop:
		reply(d.browserStop(ctx, req))
	case linkwire.OpEvents:
		d.streamEvents(ctx, req, write)
	default:
		reply(nil, protocol.Errorf(protocol.CodeInvalidAction, "unknown op %q", req.Op))
	}
}

// pairCode mints a one-time code for req's pairing (user when it names
// none).
func (d *Daemon) pairCode(req *linkRequest) (any, *protocol.Error) {
	pairing := string(req.Browser)
	if pairing == "" {
		pairing = string(SelectUser)
	} else if pairing != string(SelectUser) {
		if err := CheckPairingName(pairing); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidAction, "%v", err)
		}
	}
	if _, err := EnsureToken(PairingTokenFile(d.cfg.Dirs, pairing), false); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "token: %v", err)
	}
	code, exp := d.codes.mint(time.Now(), pairing)
	return PairCode{Code: code, ExpiresAt: exp, URL: d.URL()}, nil
}

// browserStart launches the managed browser req names with its options
// (headless by default) unless it runs, and waits for its extension.
func (d *Daemon) browserStart(ctx context.Context, req *linkRequest) (any, *protocol.Error) {
	d.lastActivity.Store(time.Now().UnixMilli())
	name, err := managedTarget(req.Browser)
	if err != nil {
		return nil, err
	}
	o := BrowserOptions{Headless: true}
	if req.Options != nil {
		if err := json.Unmarshal(req.Options, &o); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidAction, "bad browser options: %v", err)
		}
	}
	m := d.managed.get(name)
	if err := m.start(d, o); err != nil {
		return nil, err
	}
	if req.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withCallerTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond, req.StatedTimeout())
		defer cancel()
	}
	if _, err := d.waitManaged(ctx, name); err != nil {
		return nil, err
	}
	return m.status(), nil
}

// browserStop stops the managed browser req names, or every one.
func (d *Daemon) browserStop(ctx context.Context, req *linkRequest) (any, *protocol.Error) {
	if req.TimeoutMs > 0 {
		// The caller's deadline cuts the SIGTERM grace short (SIGKILL
		// then), so the answer comes before the caller gives up.
		var cancel context.CancelFunc
		ctx, cancel = withCallerTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond, req.StatedTimeout())
		defer cancel()
	}
	var stopped bool
	var err error
	if req.Browser == "" {
		stopped, err = d.managed.stopAll(ctx, d.log)
	} else if name, perr := managedTarget(req.Browser); perr != nil {
		return nil, perr
	} else {
		stopped, err = d.managed.get(name).stop(ctx, d.log)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, protocol.Errorf(protocol.CodeInternalError, "stop the managed browser: %v: run `bua browser stop` again", err)
	}
	return map[string]bool{"stopped": stopped}, nil
}

// streamEvents writes the extension's events to req's client until ctx
// ends, after one empty frame that says the subscription is in place.
func (d *Daemon) streamEvents(ctx context.Context, req *linkRequest, write func(linkResponse)) {
	ch, unsub := d.events.subscribe()
	defer unsub()
	write(linkResponse{ID: req.ID, More: true}) // subscribed: the client may print the log now
	for {
		select {
		case rec := <-ch:
			raw, _ := json.Marshal(rec) // an EventRecord always encodes
			write(linkResponse{ID: req.ID, Event: raw, More: true})
		case <-ctx.Done():
			return
		}
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

// MaxRequestLine bounds one CLI request frame, in bytes
// (linkwire.MaxRequestLine).
const MaxRequestLine = linkwire.MaxRequestLine
