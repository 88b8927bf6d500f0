package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bua-dev/bua/pkg/bridge/linkwire"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// ClientOptions configure Dial.
type ClientOptions struct {
	Dirs home.Dirs
	// AutoStart starts `bua serve` in the background when no daemon
	// answers, then waits for its socket.
	AutoStart bool
	// Exe is the bua binary to start (default: this executable).
	Exe string
	// Env is the daemon's environment (default: this process's).
	Env []string
	// Browser is the --browser selection sent with every request: auto,
	// or a browser's name (names.go).
	Browser Selection
	// StartTimeout bounds the wait for an auto-started daemon (default 10s).
	StartTimeout time.Duration
	// Owner names the agent this client's requests act for (bua mcp: one
	// random id per process), so the daemon keeps them to its own tabs
	// (owners.go); "" for a one-shot command.
	Owner string
	// OwnWindow, with Owner, opens the owner's tabs in a window of its own
	// in the person's Chrome (linkRequest.OwnWindow): a worker of `bua run
	// --parallel` there.
	OwnWindow bool
	// Tab is a tab handle (t1, t2, …, as `bua tabs` shows them; check its
	// form with IsTabHandle) sent with every Request and RequestRaw: the
	// daemon sends the request to that tab's browser and, for an action on
	// a tab that names no tabId, to that tab. A handle the daemon does not
	// know fails tab_not_found ("no tab t9: bua tabs lists them"). "" for
	// none.
	Tab string
	// Prelaunch says the caller is about to send actions: a daemon it
	// starts launches the managed browser at once where Browser's launch
	// policy would (Config.Prelaunch), instead of when the first request
	// arrives. Commands that may never send one (status, pair, browser
	// start with its own options) leave it false.
	Prelaunch bool
	// Checked says the front end checks every action it builds from loose
	// input, once, through protocol.ActionFrom (bua mcp, a flow run), so
	// Request sends each as checked and the daemon does not check it
	// again; the extension still checks what it receives.
	Checked bool
}

// Client is a CLI command's link to the daemon. It is safe for concurrent
// use: requests are multiplexed over one socket by id.
type Client struct {
	opts ClientOptions
	conn net.Conn
	wmu  sync.Mutex
	enc  *json.Encoder
	seq  atomic.Uint64

	mu      sync.Mutex
	pending map[string]chan linkResponse
	err     error // set when the read loop ends
}

// Close hangs up; the daemon aborts this client's unfinished requests.
func (c *Client) Close() error { return c.conn.Close() }

// Dead reports whether the daemon closed this client's connection (it
// stopped, or was stopped): every call on it fails bridge_unavailable, and
// a long-lived caller (bua mcp) dials again.
func (c *Client) Dead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

func (c *Client) readLoop() {
	sc := bufio.NewScanner(c.conn)
	sc.Buffer(make([]byte, 64<<10), MaxMessage)
	for sc.Scan() {
		var r linkResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[r.ID]
		if !r.More {
			delete(c.pending, r.ID)
		}
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	c.mu.Lock()
	c.err = errors.New("daemon closed the connection")
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// roundTrip sends req under a fresh id and returns the channel its answers
// arrive on, and done, which the caller runs when it stops listening: done
// with abandoned set also tells the daemon to end the operation (linkwire.OpCancel),
// so an in-process caller that cancels its ctx without hanging up does not
// leave the action running in the browser.
func (c *Client) roundTrip(ctx context.Context, req linkRequest, buffer int) (chan linkResponse, func(abandoned bool), *protocol.Error) {
	req.ID = strconv.FormatUint(c.seq.Add(1), 10)
	ch := make(chan linkResponse, buffer)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v: run `bua status`", c.err)
	}
	c.pending[req.ID] = ch
	c.mu.Unlock()
	done := func(abandoned bool) {
		c.mu.Lock()
		_, waiting := c.pending[req.ID]
		delete(c.pending, req.ID)
		c.mu.Unlock()
		if abandoned && waiting {
			c.wmu.Lock()
			_ = c.enc.Encode(linkRequest{ID: req.ID, Op: linkwire.OpCancel})
			c.wmu.Unlock()
		}
	}
	c.wmu.Lock()
	err := c.enc.Encode(req)
	c.wmu.Unlock()
	if err != nil {
		done(false)
		return nil, nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "write to daemon: %v", err)
	}
	return ch, done, nil
}

func (c *Client) call(ctx context.Context, req linkRequest) (json.RawMessage, *protocol.Error) {
	if dl, ok := ctx.Deadline(); ok && req.TimeoutMs == 0 {
		req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
	}
	stated, hasStated := protocol.Timeout(ctx)
	if hasStated {
		req.CallerTimeoutMs = stated.Milliseconds()
	}
	ch, done, err := c.roundTrip(ctx, req, 1)
	if err != nil {
		return nil, err
	}
	answered := false
	defer func() { done(!answered) }()
	answer := func(r linkResponse, ok bool) (json.RawMessage, *protocol.Error) {
		answered = true
		if !ok {
			// The daemon went away mid-request (killed, crashed, or
			// `bua stop`): no daemon is what bridge_unavailable means.
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "the bua daemon exited before answering (killed or stopped), so the action may or may not have run: run `bua status`; the next command starts a new daemon")
		}
		return r.Result, r.Error
	}
	select {
	case r, ok := <-ch:
		return answer(r, ok)
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, protocol.Errorf(protocol.CodeInternalError, "aborted by caller")
		}
		// The daemon enforces the same deadline and says what it was
		// waiting for: give its answer a moment to arrive.
		grace := time.NewTimer(answerGrace)
		defer grace.Stop()
		select {
		case r, ok := <-ch:
			return answer(r, ok)
		case <-grace.C:
		}
		if req.Op != linkwire.OpRequest {
			// Unlike an action, the daemon answers these at once, or by
			// the same deadline: silence means it does not run.
			return nil, c.unresponsive(string(req.Op), stated, hasStated)
		}
		if hasStated {
			return nil, protocol.Errorf(protocol.CodeTimeout, "%s did not finish within %s (the caller's timeout)", req.Op, stated)
		}
		return nil, protocol.Errorf(protocol.CodeTimeout, "%s did not finish before the deadline", req.Op)
	}
}

// answerGrace is how long past its deadline a call waits for the daemon's
// own timeout error, which names what timed out.
const answerGrace = 200 * time.Millisecond

// unresponsive is the error of a link operation the daemon accepted but
// never answered (unresponsiveError).
func (c *Client) unresponsive(op string, stated time.Duration, hasStated bool) *protocol.Error {
	return unresponsiveError(c.opts.Dirs, op, stated, hasStated)
}

// unresponsiveError is the error of a link operation (op) the daemon of
// dirs accepted but never answered: bridge_unavailable, reason
// daemon_unresponsive, naming the daemon's pid (from its info file) and
// log.
func unresponsiveError(dirs home.Dirs, op string, stated time.Duration, hasStated bool) *protocol.Error {
	within := "before the deadline"
	if hasStated {
		within = fmt.Sprintf("within %s (the command's timeout)", stated)
	}
	who := "the bua daemon"
	if info, err := ReadInfo(dirs); err == nil && info.PID > 0 {
		who = fmt.Sprintf("the bua daemon (pid %d)", info.PID)
	}
	e := protocol.Errorf(protocol.CodeBridgeUnavailable, "%s accepted the connection but did not answer %s %s: it is suspended (Ctrl-Z, SIGSTOP) or stuck, and may still act on the request if it resumes; its log is %s", who, op, within, dirs.LogFile())
	e.Reason = protocol.ReasonDaemonUnresponsive
	return e
}

// Request runs a in the daemon, which validates it before sending
// (unless the client's options say the front end did: Checked): an
// invalid action fails invalid_action with Reason protocol.ReasonRefused
// and never reaches an extension. It implements Requester.
func (c *Client) Request(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "action does not encode: %v", err)
	}
	return c.RequestRaw(ctx, raw, c.opts.Checked)
}

// RequestOn is Request on the browser sel names (auto, or a browser's
// name), whatever the client's own Browser: `bua tabs` asks every
// connected browser in turn.
func (c *Client) RequestOn(ctx context.Context, sel Selection, a protocol.Action) (json.RawMessage, *protocol.Error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "action does not encode: %v", err)
	}
	return c.call(ctx, linkRequest{Op: linkwire.OpRequest, Action: raw, Browser: sel, Owner: c.opts.Owner, OwnWindow: c.opts.OwnWindow})
}

// RequestRaw sends a raw action object, which the daemon validates (see
// Request); with noValidate it does not, so the extension's own validation
// answers. Validating here too would only repeat the daemon's check.
func (c *Client) RequestRaw(ctx context.Context, action json.RawMessage, noValidate bool) (json.RawMessage, *protocol.Error) {
	return c.call(ctx, linkRequest{Op: linkwire.OpRequest, Action: action, Browser: c.opts.Browser, NoValidate: noValidate, Owner: c.opts.Owner, OwnWindow: c.opts.OwnWindow, Tab: c.opts.Tab})
}

// callInto runs one link operation and decodes its result into a T.
func callInto[T any](ctx context.Context, c *Client, req linkRequest) (T, *protocol.Error) {
	var v T
	raw, err := c.call(ctx, req)
	if err != nil {
		return v, err
	}
	if jerr := json.Unmarshal(raw, &v); jerr != nil {
		return v, protocol.Errorf(protocol.CodeInternalError, "%s: the daemon's answer does not decode: %v", req.Op, jerr)
	}
	return v, nil
}

// Status asks the daemon for its Status.
func (c *Client) Status(ctx context.Context) (Status, *protocol.Error) {
	return callInto[Status](ctx, c, linkRequest{Op: linkwire.OpStatus})
}

// StopDaemon asks the daemon to stop.
func (c *Client) StopDaemon(ctx context.Context) *protocol.Error {
	_, err := c.call(ctx, linkRequest{Op: linkwire.OpStop})
	return err
}

// PairCode mints a one-time pairing code for the user pairing named
// pairing ("" or user: the default one).
func (c *Client) PairCode(ctx context.Context, pairing string) (PairCode, *protocol.Error) {
	return callInto[PairCode](ctx, c, linkRequest{Op: linkwire.OpPairCode, Browser: Selection(pairing)})
}

// BrowserStart launches the managed browser named name ("": managed)
// unless it runs, and waits for its extension's hello.
func (c *Client) BrowserStart(ctx context.Context, name string, o BrowserOptions) (ManagedStatus, *protocol.Error) {
	return callInto[ManagedStatus](ctx, c, linkRequest{Op: linkwire.OpBrowserStart, Browser: Selection(name), Options: mustJSON(o)})
}

// BrowserStop stops the managed browser named name, or every managed
// browser when name is ""; false when none ran.
func (c *Client) BrowserStop(ctx context.Context, name string) (bool, *protocol.Error) {
	r, err := callInto[struct{ Stopped bool }](ctx, c, linkRequest{Op: linkwire.OpBrowserStop, Browser: Selection(name)})
	return r.Stopped, err
}

// Follow streams events as they arrive until ctx ends. subscribed, when not
// nil, runs once the daemon has subscribed this client, so a caller can
// print the log file first without missing events in between.
func (c *Client) Follow(ctx context.Context, subscribed func(), fn func(EventRecord)) *protocol.Error {
	ch, done, err := c.roundTrip(ctx, linkRequest{Op: linkwire.OpEvents}, 64)
	if err != nil {
		return err
	}
	defer done(true)
	for {
		select {
		case r, ok := <-ch:
			if !ok {
				return protocol.Errorf(protocol.CodeBridgeUnavailable, "the daemon stopped")
			}
			if r.Error != nil {
				return r.Error
			}
			if r.Event == nil {
				if subscribed != nil {
					subscribed()
				}
				continue
			}
			var rec EventRecord
			if err := json.Unmarshal(r.Event, &rec); err != nil {
				continue // not one this client reads
			}
			fn(rec)
		case <-ctx.Done():
			return nil
		}
	}
}

// mustJSON encodes v, a link payload that always encodes.
func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bridge: %T does not encode: %v", v, err)) // a plain struct: a build bug
	}
	return raw
}
