package bridge

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Link is one connection to the daemon that a Requester sends through:
// a *Client, or a test's fake.
type Link interface {
	protocol.Requester
	// Close hangs up: the daemon cancels what is in flight.
	Close() error
	// Dead reports whether the daemon closed the link (Client.Dead).
	Dead() bool
}

// RequesterOptions configure NewRequester.
type RequesterOptions struct {
	// Dial opens the link, on the first action (and again after the daemon
	// went away when Redial). Its error is the action's: a
	// *protocol.Error, as Dial's.
	Dial func(ctx context.Context) (Link, *protocol.Error)
	// Redial dials again once the daemon closed the link (`bua stop`, an
	// upgrade), as a long-lived agent (bua mcp) needs: the action in
	// flight then fails bridge_unavailable (it may or may not have run),
	// and the next one starts a daemon as any command would. Without it
	// the first dial's outcome holds for the Requester's life (a flow
	// run: one daemon, and one dial error reported once, Err).
	Redial bool
	// Start, when set, launches the managed browser sel names (its own
	// name for managed-N, else managed: launchName) with these options
	// once the first link is up (bua mcp --headless).
	Start *BrowserOptions
	// Browser is the selection Start launches for.
	Browser Selection
}

// Requester is the one way every front end reaches the daemon: the CLI's
// flow runs (one per worker) and bua mcp (one per agent) send their
// actions through it. It implements protocol.Requester; it dials on the
// first action, so a front end that never sends one (a suite of invalid
// flows, an agent that only lists its tools) never starts a daemon. It
// is safe for concurrent use.
type Requester struct {
	o RequesterOptions

	mu      sync.Mutex
	link    Link
	err     *protocol.Error // the dial's failure, without Redial
	dialed  bool
	started bool
	ended   bool // the front end ended: no dialling again (StopDialing)
}

// NewRequester returns a Requester that dials with o.Dial when an action
// first needs the daemon.
func NewRequester(o RequesterOptions) *Requester { return &Requester{o: o} }

// current returns the link, dialling it when there is none (or, with
// Redial, when the daemon closed it).
func (r *Requester) current(ctx context.Context) (Link, *protocol.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.link != nil && (!r.o.Redial || !r.link.Dead()) {
		return r.link, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.ended || (r.dialed && !r.o.Redial) {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "this agent has ended, and its link to the daemon with it")
	}
	if r.link != nil {
		_ = r.link.Close()
		r.link = nil
	}
	r.dialed = true
	link, err := r.o.Dial(ctx)
	if err != nil {
		if !r.o.Redial {
			r.err = err
		}
		return nil, err
	}
	r.link = link
	if cl, ok := link.(*Client); ok && r.o.Start != nil && !r.started {
		r.started = true
		if _, err := cl.BrowserStart(ctx, launchName(r.o.Browser), *r.o.Start); err != nil {
			return nil, err
		}
	}
	return link, nil
}

// Request sends a over the link, dialling it first when needed. It
// implements protocol.Requester.
func (r *Requester) Request(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	link, err := r.current(ctx)
	if err != nil {
		return nil, err
	}
	return link.Request(ctx, a)
}

// Status is the daemon's (for the handoff gate), over the link.
func (r *Requester) Status(ctx context.Context) (Status, *protocol.Error) {
	link, err := r.current(ctx)
	if err != nil {
		return Status{}, err
	}
	cl, ok := link.(*Client)
	if !ok {
		return Status{}, protocol.Errorf(protocol.CodeBridgeUnavailable, "the daemon's status failed: no daemon behind this link")
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return st, protocol.Errorf(err.Code, "the daemon's status failed: %s", err.Message)
	}
	return st, nil
}

// Err is the dial's failure of a Requester without Redial, nil when it
// dialled (or never tried): a flow run reports it once, after its flows.
func (r *Requester) Err() *protocol.Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// StopDialing keeps the link as it is: a call after it fails when the
// link is down, instead of dialling (and perhaps starting) a daemon.
func (r *Requester) StopDialing() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
}

// Close hangs up: the daemon cancels what is in flight and frees the
// front end's tabs (they stay open).
func (r *Requester) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.link != nil {
		_ = r.link.Close()
	}
}
