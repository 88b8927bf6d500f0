package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Pool matches requests with responses over the extension connections, per
// docs/architecture.md#one-action-bua-click-e3 and §Cancellation. It holds at most one Conn per
// pairing Kind; a newer one replaces the old.
type Pool struct {
	log *slog.Logger

	mu      sync.Mutex
	conns   map[Kind]*Conn
	changed chan struct{} // closed and replaced whenever conns changes
}

// NewPool returns an empty pool that logs to log.
func NewPool(log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{log: log, conns: make(map[Kind]*Conn), changed: make(chan struct{})}
}

// Attach makes c the connection for its kind and starts it. An older
// connection of the same kind is closed with CloseReplaced, failing its
// pending requests at once.
func (p *Pool) Attach(c *Conn) {
	p.mu.Lock()
	old := p.conns[c.Kind]
	p.conns[c.Kind] = c
	p.notifyLocked()
	p.mu.Unlock()
	if old != nil {
		p.log.Info("extension connection replaced", "kind", c.Kind)
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
	if p.conns[c.Kind] == c {
		delete(p.conns, c.Kind)
		p.notifyLocked()
	}
}

func (p *Pool) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Selection picks which pairing serves a request.
type Selection string

// Selections: auto prefers a connected user browser, then a managed one.
const (
	SelectAuto    Selection = "auto"
	SelectUser    Selection = "user"
	SelectManaged Selection = "managed"
)

// ParseSelection reads --browser; "extension" is an alias of user.
func ParseSelection(s string) (Selection, error) {
	switch s {
	case "", "auto":
		return SelectAuto, nil
	case "user", "extension":
		return SelectUser, nil
	case "managed":
		return SelectManaged, nil
	}
	return "", errors.New(`--browser must be auto, user or managed`)
}

// Conn returns the connection sel picks, or nil.
func (p *Pool) Conn(sel Selection) *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch sel {
	case SelectUser:
		return p.conns[KindUser]
	case SelectManaged:
		return p.conns[KindManaged]
	}
	if c := p.conns[KindUser]; c != nil {
		return c
	}
	return p.conns[KindManaged]
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

// Conns lists the current connections, user first.
func (p *Pool) Conns() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*Conn
	for _, k := range []Kind{KindUser, KindManaged} {
		if c := p.conns[k]; c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Stats is the pool's size: connections and requests in flight.
type Stats struct {
	Connections int `json:"connections"`
	InFlight    int `json:"inFlight"`
}

// Stats reports connections and in-flight requests.
func (p *Pool) Stats() Stats {
	var s Stats
	for _, c := range p.Conns() {
		s.Connections++
		s.InFlight += c.InFlight()
	}
	return s
}

// Request sends a on the connection auto selection picks (see Send).
func (p *Pool) Request(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	c := p.Conn(SelectAuto)
	if c == nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "no extension is connected")
	}
	return p.Send(ctx, c, a)
}

// Send validates a, sends it on c and waits for the response. The deadline
// is Deadline's: ctx's when it has one (an explicit deadline replaces the
// default), else the action's default time plus the ladder's margins;
// expiry resolves with timeout. A cancelled ctx
// resolves at once with internal_error "aborted by caller"; a disconnect
// with internal_error. The pending entry is always removed, so a late
// response is logged and dropped as stray.
func (p *Pool) Send(ctx context.Context, c *Conn, a protocol.Action) (json.RawMessage, *protocol.Error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return p.send(ctx, c, a)
}

// SendRaw sends the action's bytes as they are, without validating them:
// the daemon uses it for CLI actions it has just validated, and for
// `bua request --no-validate`, so tests can prove the extension validates
// on its own.
func (p *Pool) SendRaw(ctx context.Context, c *Conn, a json.RawMessage) (json.RawMessage, *protocol.Error) {
	var head protocol.Action
	_ = json.Unmarshal(a, &head) // only for the default timeout
	return p.sendFrame(ctx, c, head, a)
}

func (p *Pool) send(ctx context.Context, c *Conn, a protocol.Action) (json.RawMessage, *protocol.Error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "action does not encode: %v", err)
	}
	return p.sendFrame(ctx, c, a, raw)
}

func (p *Pool) sendFrame(ctx context.Context, c *Conn, a protocol.Action, action json.RawMessage) (json.RawMessage, *protocol.Error) {
	if !c.Implements(a.Type) {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "the connected extension (%s) does not implement %s: it is older than this bua; load the extension this bua writes out, then reconnect", c.Hello.ClientVersion, a.Type)
	}
	if err := featureGate(c, protocol.ActionSpecs[a.Type], action); err != nil {
		return nil, err
	}
	id := uuid.NewString()
	timeout := Deadline(ctx, a)
	// The request carries what is left of the deadline (level 3 of the
	// schema's x-ladder), so the extension can end the action, and free its
	// tab, before the pool gives up on it.
	frame, err := json.Marshal(struct {
		Type       protocol.MessageType `json:"type"`
		ID         string               `json:"id"`
		Action     json.RawMessage      `json:"action"`
		DeadlineMs int64                `json:"deadlineMs"`
	}{protocol.TypeRequest, id, action, max(1, timeout.Milliseconds())})
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "request does not encode: %v", err)
	}
	ch, ok := c.register(id)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInternalError, "extension disconnected")
	}
	defer c.unregister(id)

	timer := time.NewTimer(timeout)
	defer timer.Stop()

	select {
	case c.send <- frame:
	case <-c.done:
		return nil, protocol.Errorf(protocol.CodeInternalError, "extension disconnected")
	case <-ctx.Done():
		return nil, ctxError(ctx, a)
	case <-timer.C:
		return nil, timeoutError(ctx, a, timeout)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-ctx.Done():
		err := ctxError(ctx, a)
		p.cancelSent(c, id, a, err)
		return nil, err
	case <-timer.C:
		err := timeoutError(ctx, a, timeout)
		p.cancelSent(c, id, a, err)
		return nil, err
	}
}

// featureGate refuses an action whose schema def names a feature
// (x-feature, protocol.ActionSpec.Feature), or that sets a param whose
// property names one (protocol.ParamSpec.Feature), when the connected
// extension's hello does not list it: an older extension would reject or
// misread it, so it is never sent (docs/protocol.md#versioning: pure
// additions are safe only when the peer can ignore them). action is the
// encoded action object.
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
	p.log.Info("global stop: requests cancelled", "kind", c.Kind, "count", len(stopped), "cancelSent", sent)
	return len(stopped)
}

// cancelSent ends a sent request that will get no answer here (the caller
// cancelled, or a deadline passed): it tells an extension that lists
// FeatureCancel to stop the action and free its tab, and logs the request
// at info level so a late answer in the log is explained
// (docs/architecture.md#cancellation). An extension without the feature gets nothing new and
// finishes the action within its own deadlineMs.
func (p *Pool) cancelSent(c *Conn, id string, a protocol.Action, err *protocol.Error) {
	sent := c.Supports(protocol.FeatureCancel) && c.cancel(id)
	p.log.Info("request cancelled", "id", id, "action", a.Type, "reason", err.Message, "code", err.Code, "cancelSent", sent)
}

// Deadline is the pool's deadline for a, level (4) of the schema's timeout
// ladder (x-ladder), which the request's deadlineMs carries: what is left
// of ctx's deadline when it has one (protocol.WithTimeout put the ladder's
// margins on top of the caller's timeout), else the action's own default
// time, protocol.DefaultTimeout(a), plus protocol.LadderMargin.
func Deadline(ctx context.Context, a protocol.Action) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return protocol.DefaultTimeout(a) + protocol.LadderMargin
}

func ctxError(ctx context.Context, a protocol.Action) *protocol.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if d, ok := callerTimeout(ctx); ok {
			return protocol.Errorf(protocol.CodeTimeout, "%s did not finish within %s (the caller's timeout)", a.Type, d)
		}
		return protocol.Errorf(protocol.CodeTimeout, "%s did not finish before the caller's deadline", a.Type)
	}
	return protocol.Errorf(protocol.CodeInternalError, "aborted by caller")
}

// timeoutError says which timeout ran out: the caller's whole timeout when
// ctx carries one (what is left of it, d, would mislead), else d.
func timeoutError(ctx context.Context, a protocol.Action, d time.Duration) *protocol.Error {
	if ct, ok := callerTimeout(ctx); ok {
		return protocol.Errorf(protocol.CodeTimeout, "%s got no response within %s (the caller's timeout)", a.Type, ct)
	}
	return protocol.Errorf(protocol.CodeTimeout, "%s got no response within %s", a.Type, d.Round(time.Millisecond))
}

// withCallerTimeout bounds ctx by what is left of the caller's timeout,
// left, and remembers stated, the caller's whole timeout, so errors name
// the timeout that applied rather than a default or what was left of it.
func withCallerTimeout(ctx context.Context, left, stated time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := protocol.WithTimeout(ctx, stated)
	// protocol.WithTimeout's deadline is stated plus the ladder's margins
	// from now; the caller's deadline is left from now, which is sooner.
	ctx2, cancel2 := context.WithTimeout(ctx, left)
	return ctx2, func() { cancel2(); cancel() }
}

// callerTimeout is the caller's whole timeout, when ctx carries it.
func callerTimeout(ctx context.Context) (time.Duration, bool) { return protocol.Timeout(ctx) }
