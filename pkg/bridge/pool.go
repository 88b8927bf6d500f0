package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/stackmap"
)

// Pool matches requests with responses over the extension connections, per
// docs/architecture.md#one-action-bua-click-e3 and
// docs/cancellation.md#cancellation. It holds at most one Conn per browser,
// keyed by the browser's name (names.go); a newer one replaces the old,
// unless it is the same extension instance coming back (Conn.resumes),
// whose requests it resumes.
type Pool struct {
	log *slog.Logger

	mu      sync.Mutex
	conns   map[string]*Conn // by Conn.Name
	changed chan struct{}    // closed and replaced whenever conns changes

	// grace bounds how long a request whose connection dropped waits for
	// its extension to reconnect (hold); gone, when set, reports a
	// browser as gone for good, by its name (a managed browser that
	// exited), which ends the wait at once.
	grace time.Duration
	gone  func(name string) <-chan struct{}
	held  atomic.Int64 // requests waiting in hold
}

// ReconnectGrace is how long a request whose connection dropped waits
// for the same extension instance to reconnect, unless its deadline comes
// first. The extension's first reconnect comes 375-500 ms after a drop
// and its backoff doubles from there (docs/extension.md §ws-client
// rules), so 5 s covers its first three attempts (at most 3.5 s) while a
// browser that is gone costs a caller no more than that.
const ReconnectGrace = 5 * time.Second

// NewPool returns an empty pool that logs to log and holds requests
// across a drop for ReconnectGrace.
func NewPool(log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{log: log, conns: make(map[string]*Conn), changed: make(chan struct{}), grace: ReconnectGrace}
}

// Attach makes c the connection of its browser (c.Name) and starts it. An
// older connection of the same browser is closed with CloseReplaced, failing its
// pending requests at once; when c is the same extension instance
// reconnecting before the old one was seen to drop (Conn.resumes), the old
// one is dropped instead, and its requests are re-sent on c.
func (p *Pool) Attach(c *Conn) {
	p.mu.Lock()
	old := p.conns[c.Name]
	p.conns[c.Name] = c
	p.notifyLocked()
	p.mu.Unlock()
	switch {
	case old == nil:
	case c.resumes(old):
		p.log.Info("extension reconnected before its old connection ended", "browser", c.Name)
		old.shutdown(websocket.CloseNormalClosure, "the same extension reconnected", true)
	default:
		p.log.Info("extension connection replaced", "browser", c.Name)
		old.Close(protocol.CloseReplaced, "replaced by a newer connection of the same pairing")
	}
	c.start()
	go func() {
		<-c.Done()
		p.detach(c)
	}()
}

func (p *Pool) detach(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns[c.Name] == c {
		delete(p.conns, c.Name)
		p.notifyLocked()
	}
}

func (p *Pool) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Conn returns the connection sel picks, or nil: auto takes the user's
// Chrome when it is connected, else the managed browser; any other
// selection names its browser.
func (p *Pool) Conn(sel Selection) *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sel == SelectAuto || sel == "" {
		if c := p.conns[string(SelectUser)]; c != nil {
			return c
		}
		return p.conns[string(SelectManaged)]
	}
	return p.conns[string(sel)]
}

// WaitConn waits until sel has a connection or ctx ends.
func (p *Pool) WaitConn(ctx context.Context, sel Selection) (*Conn, error) {
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if c := p.Conn(sel); c != nil {
			return c, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Conns lists the current connections in compareBrowsers' order: user,
// the named pairings, the managed browsers.
func (p *Pool) Conns() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Conn, 0, len(p.conns))
	for _, c := range p.conns {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Conn) int { return compareBrowsers(a.Name, b.Name) })
	return out
}

// Stats is the pool's size: connections and requests in flight, of which
// Held wait for their extension to reconnect.
type Stats struct {
	Connections int `json:"connections"`
	InFlight    int `json:"inFlight"`
	Held        int `json:"held,omitempty"`
}

// Stats reports connections and in-flight requests, held ones included.
func (p *Pool) Stats() Stats {
	s := Stats{Held: int(p.held.Load())}
	for _, c := range p.Conns() {
		s.Connections++
		s.InFlight += c.InFlight()
	}
	s.InFlight += s.Held
	return s
}

// Send sends action, an encoded action object, on c and waits for the
// response: every request the daemon sends goes through it (the CLI's and
// a flow's, an agent's through requestOwned, get_trace and handoff alike).
// It sends the bytes as they are, without validating them: the daemon has
// validated them (Daemon.request), or was told not to (`bua request
// --no-validate`, so tests can prove the extension validates on its own).
// It refuses, before sending, an action the extension's hello does not
// list, or one that needs a feature it lacks (featureGate).
// A get_trace answer comes back with the frames of the extension's
// bundles in its stacks named by source file and line (pkg/stackmap), so
// every reader of a trace (bua trace, a flow's evidence, MCP) sees them.
//
// The deadline is Deadline's: ctx's when it has one (an explicit deadline
// replaces the default), else the action's default time plus the ladder's
// margins; expiry resolves with timeout. A cancelled ctx resolves at once
// with internal_error "aborted by caller". A connection that drops before
// the answer resolves with internal_error, reason outcome_unknown, at once,
// or, for an extension that resumes requests (FeatureReplay), once it has
// not reconnected within the grace (hold); with bridge_unavailable, same
// reason, when a managed browser's process exited (browserExited). The
// pending entry is always removed, so a late response is logged and
// dropped as stray.
func (p *Pool) Send(ctx context.Context, c *Conn, action json.RawMessage) (json.RawMessage, *protocol.Error) {
	var a protocol.Action
	_ = json.Unmarshal(action, &a) // its type and params, for the gates and the default deadline
	if !c.Implements(a.Type) {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "the connected extension (%s) does not implement %s: it is older than this bua; load the extension this bua writes out, then reconnect", c.Hello.ClientVersion, a.Type)
	}
	if err := featureGate(c, protocol.ActionSpecs[a.Type], action); err != nil {
		return nil, err
	}
	timeout := Deadline(ctx, a)
	now := time.Now()
	r := &outbound{id: uuid.NewString(), a: a, action: action, sent: now, deadline: now.Add(timeout), timer: time.NewTimer(timeout)}
	defer r.timer.Stop()
	for replay := false; ; replay = true {
		res, err, dropped := p.exchange(ctx, c, r, replay)
		if !dropped {
			if err != nil && err.Reason == protocol.ReasonOutcomeUnknown && p.isGone(c.Name) {
				err = browserExited(c.Name)
			}
			if err == nil && a.Type == protocol.ActionGetTrace {
				res = stackmap.JSON(res) // the worker's and page scripts' frames, by source file
			}
			return res, err
		}
		if c, err = p.hold(ctx, c, r); err != nil {
			return nil, err
		}
	}
}

// outbound is one request on its way, across the connections it may be
// sent on: its id, its action (a for the gates and messages, action the
// bytes sent), when it was first sent, and its deadline and timer.
type outbound struct {
	id       string
	a        protocol.Action
	action   json.RawMessage
	sent     time.Time
	deadline time.Time
	timer    *time.Timer
}

// timeoutError is timeout for r, which got no answer by its deadline.
func (r *outbound) timeoutError(ctx context.Context) *protocol.Error {
	return timeoutError(ctx, r.a, r.deadline.Sub(r.sent))
}

// exchange sends r on c and waits for its answer, or for ctx, or for
// r's deadline. replay marks the frame as re-sent after a reconnect.
// dropped is true, with neither result nor error, when c dropped first
// with its requests held (Conn.held): r may then be re-sent on the
// connection of the same instance that follows (hold).
func (p *Pool) exchange(ctx context.Context, c *Conn, r *outbound, replay bool) (_ json.RawMessage, _ *protocol.Error, dropped bool) {
	// The request carries what is left of the deadline (level 3 of the
	// schema's x-ladder), so the extension can end the action, and free its
	// tab, before the pool gives up on it.
	frame, err := json.Marshal(struct {
		Type       protocol.MessageType `json:"type"`
		ID         string               `json:"id"`
		Action     json.RawMessage      `json:"action"`
		DeadlineMs int64                `json:"deadlineMs"`
		Replay     bool                 `json:"replay,omitempty"`
	}{protocol.TypeRequest, r.id, r.action, max(1, time.Until(r.deadline).Milliseconds()), replay})
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "request does not encode: %v", err), false
	}
	// disconnected is c's end before the answer: held, r goes again on
	// the next connection; else r fails, having reached the extension or
	// not (sent).
	disconnected := func(sent bool) (json.RawMessage, *protocol.Error, bool) {
		if held, _ := c.held(); held {
			return nil, nil, true
		}
		if !sent {
			return nil, protocol.Errorf(protocol.CodeInternalError, "extension disconnected before the request was sent: nothing ran"), false
		}
		return nil, outcomeUnknown("extension disconnected before answering, so the action may or may not have run"), false
	}
	ch, ok := c.register(r.id)
	if !ok {
		return disconnected(false)
	}
	defer c.unregister(r.id)

	select {
	case c.send <- frame:
	case <-c.done:
		return disconnected(false)
	case <-ctx.Done():
		return nil, ctxError(ctx, r.a), false
	case <-r.timer.C:
		return nil, r.timeoutError(ctx), false
	}
	answer := func(resp *protocol.Response) (json.RawMessage, *protocol.Error, bool) {
		if resp.Error != nil {
			return nil, resp.Error, false
		}
		return resp.Result, nil, false
	}
	select {
	case resp := <-ch:
		return answer(resp)
	case <-c.done:
		// An answer that came before the end is in ch already (deliver
		// and shutdown hold the same lock); a drop that fails its requests
		// put the error there too.
		select {
		case resp := <-ch:
			return answer(resp)
		default:
		}
		return disconnected(true)
	case <-ctx.Done():
		err := ctxError(ctx, r.a)
		p.cancelSent(c, r.id, r.a, err)
		return nil, err, false
	case <-r.timer.C:
		err := r.timeoutError(ctx)
		p.cancelSent(c, r.id, r.a, err)
		return nil, err, false
	}
}

// featureGate refuses an action whose schema def names a feature
// (x-feature, protocol.ActionSpec.Feature), or that sets a param whose
// property names one (protocol.ParamSpec.Feature), when the connected
// extension's hello does not list it: an older extension would reject or
// misread it, so it is never sent (docs/protocol.md#versioning: pure
// additions are safe only when the peer can ignore them). One feature
// widens a param's values instead, and is checked by hand: an upload
// file that does not start with / needs upload_windows_paths. action is
// the encoded action object.
func featureGate(c *Conn, spec *protocol.ActionSpec, action json.RawMessage) *protocol.Error {
	if spec == nil {
		return nil
	}
	refuse := func(what, feature string) *protocol.Error {
		err := protocol.Errorf(protocol.CodeInvalidAction, "the connected extension (%s) does not support %s: its hello does not list the %q feature; update it (load the folder `bua extension path` prints, then reconnect) and send again", c.Hello.ClientVersion, what, feature)
		err.Reason = protocol.ReasonRefused
		return err
	}
	if spec.Feature != "" && !c.Supports(spec.Feature) {
		return refuse(string(spec.Type), spec.Feature)
	}
	var set map[string]json.RawMessage
	for _, p := range spec.Params {
		if p.Feature == "" || c.Supports(p.Feature) {
			continue
		}
		if set == nil {
			if json.Unmarshal(action, &set) != nil {
				return nil // the extension's validator answers a malformed action
			}
		}
		if _, ok := set[p.Name]; ok {
			return refuse(fmt.Sprintf("%s with %s", spec.Type, p.Name), p.Feature)
		}
	}
	// upload_windows_paths widens the values files takes (C:\…,
	// \\server\share\…) rather than adding a param, which x-feature cannot
	// say: an older extension's validator takes ^/ only, and would answer
	// "must be an absolute path" for a path that is one.
	if spec.Type == protocol.ActionUpload && !c.Supports(protocol.FeatureUploadWindowsPaths) {
		if f := nonSlashUploadPath(action); f != "" {
			err := protocol.Errorf(protocol.CodeInvalidAction, "the connected extension (%s) is older than this bua: it takes upload paths that start with / only, and %s does not (its hello does not list the %q feature); update it (load the folder `bua extension path` prints, or reload it in chrome://extensions, then reconnect) and send again", c.Hello.ClientVersion, f, protocol.FeatureUploadWindowsPaths)
			err.Reason = protocol.ReasonRefused
			return err
		}
	}
	return nil
}

// stopAll answers every request in flight on c at once with internal_error
// "stopped by the user" (reason global_stop) and sends cancel for each, when
// the extension reports the popup's Stop all (docs/protocol.md#events:
// global_stop, "server should treat in-flight requests as cancelled").
// Answers the extension sends after this are dropped as stray.
func (p *Pool) stopAll(c *Conn) int {
	stopped := c.failPending(func() *protocol.Error {
		err := protocol.Errorf(protocol.CodeInternalError, "stopped by the user: the person pressed Stop all in the bua extension")
		err.Reason = protocol.ReasonGlobalStop
		return err
	})
	sent := false
	if c.Supports(protocol.FeatureCancel) {
		for _, id := range stopped {
			sent = c.cancel(id)
		}
	}
	p.log.Info("global stop: requests cancelled", "browser", c.Name, "count", len(stopped), "cancelSent", sent)
	return len(stopped)
}

// cancelSent ends a sent request that will get no answer here (the caller
// cancelled, or a deadline passed): it tells an extension that lists
// FeatureCancel to stop the action and free its tab, and logs the request
// at info level so a late answer in the log is explained
// (docs/cancellation.md#cancellation). An extension without the feature gets nothing new and
// finishes the action within its own deadlineMs.
func (p *Pool) cancelSent(c *Conn, id string, a protocol.Action, err *protocol.Error) {
	sent := c.Supports(protocol.FeatureCancel) && c.cancel(id)
	p.log.Info("request cancelled", "id", id, "action", a.Type, "reason", err.Message, "code", err.Code, "cancelSent", sent)
}
