package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// hold keeps r alive after its connection old dropped before the answer,
// while the extension's actions run on (it resumes requests: the replay
// feature), until old's instance connects again: it returns that
// connection, on which r is re-sent with the same id and what is left of
// its deadline, and the extension answers it from its replay cache or
// from the action still running, never running it twice
// (docs/cancellation.md#reconnect). The wait ends at the grace after the
// drop, r's deadline, or ReplayMaxAge after r was first sent (beyond
// which the extension may have let the id go), whichever is first; or at
// once when another instance takes the browser's name (its cache is not
// this one's) or the browser is gone. r then fails as a drop always did:
// internal_error, reason outcome_unknown; or timeout at the deadline; or
// "aborted by caller", after which the extension is told to stop the
// action if it comes back in time.
func (p *Pool) hold(ctx context.Context, old *Conn, r *outbound) (*Conn, *protocol.Error) {
	_, droppedAt := old.held()
	until := droppedAt.Add(p.grace)
	for _, t := range []time.Time{r.deadline, r.sent.Add(protocol.ReplayMaxAge)} {
		if t.Before(until) {
			until = t
		}
	}
	p.held.Add(1)
	defer p.held.Add(-1)
	p.log.Info("request held for a reconnect", "id", r.id, "action", r.a.Type, "browser", old.Name, "for", time.Until(until).Round(time.Millisecond))
	c, why := p.awaitResume(ctx, old, until)
	if c != nil {
		p.log.Info("request re-sent after a reconnect", "id", r.id, "action", r.a.Type, "browser", c.Name, "heldFor", time.Since(droppedAt).Round(time.Millisecond))
		return c, nil
	}
	if ctx.Err() != nil {
		err := ctxError(ctx, r.a)
		p.log.Info("request cancelled", "id", r.id, "action", r.a.Type, "reason", err.Message, "code", err.Code, "cancelSent", "after a reconnect")
		go p.cancelOnResume(old, r.id, until)
		return nil, err
	}
	if !time.Now().Before(r.deadline) {
		return nil, r.timeoutError(ctx)
	}
	p.log.Info("held request failed", "id", r.id, "action", r.a.Type, "browser", old.Name, "why", why)
	if why == whyBrowserExited {
		return nil, browserExited(old.Name)
	}
	return nil, outcomeUnknown("extension disconnected before answering, and %s, so the action may or may not have run: look at the page (extract) before sending it again", why)
}

// isGone reports whether the browser named name is gone for good now
// (gone).
func (p *Pool) isGone(name string) bool {
	if p.gone == nil {
		return false
	}
	select {
	case <-p.gone(name):
		return true
	default:
		return false
	}
}

// whyBrowserExited is awaitResume's why when the browser is gone.
const whyBrowserExited = "its browser exited"

// browserExited is the error of a request whose managed browser died
// before answering: bridge_unavailable, since no browser is there to
// answer (a parallel run's flow fails so, and its worker's next request
// launches a new browser), reason outcome_unknown, since the action may
// have run before the end.
func browserExited(name string) *protocol.Error {
	err := protocol.Errorf(protocol.CodeBridgeUnavailable, "the managed browser %s exited before answering, so the action may or may not have run: the next request launches a new one", name)
	err.Reason = protocol.ReasonOutcomeUnknown
	return err
}

// awaitResume waits until old's extension instance has a new connection
// (Conn.resumes), and returns it; else nil and why not: until passed,
// another instance took the pairing, the browser is gone, or ctx ended
// (why is then "").
func (p *Pool) awaitResume(ctx context.Context, old *Conn, until time.Time) (*Conn, string) {
	wait := time.NewTimer(time.Until(until))
	defer wait.Stop()
	var gone <-chan struct{}
	if p.gone != nil {
		gone = p.gone(old.Name)
	}
	for {
		p.mu.Lock()
		changed, c := p.changed, p.conns[old.Name]
		p.mu.Unlock()
		if c != nil && c != old {
			if c.resumes(old) {
				return c, ""
			}
			return nil, "another extension instance connected with its pairing (the browser or the extension restarted, which empties the replay cache)"
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ""
		case <-gone:
			return nil, whyBrowserExited
		case <-wait.C:
			_, droppedAt := old.held()
			return nil, fmt.Sprintf("it did not reconnect within %s", time.Since(droppedAt).Round(100*time.Millisecond))
		}
	}
}

// cancelOnResume sends cancel {id} for a request whose caller gave up
// while it was held, if old's instance reconnects before until: the
// action may still be running there (docs/cancellation.md#cancellation).
func (p *Pool) cancelOnResume(old *Conn, id string, until time.Time) {
	c, _ := p.awaitResume(context.Background(), old, until)
	if c != nil && c.Supports(protocol.FeatureCancel) && c.cancel(id) {
		p.log.Info("cancel sent after a reconnect", "id", id, "browser", c.Name)
	}
}
