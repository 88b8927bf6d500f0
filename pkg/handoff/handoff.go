// Package handoff hands a tab to the person when a page needs a human (a
// captcha, a login wall) and takes it back once they have cleared it: the
// `handoff` obstacle policy of flows, `bua extract --handoff` and `bua
// wait-for-human` all run Wait. It speaks only the protocol (the handoff
// action, a pure addition to v4, and extract), through a
// protocol.Requester.
package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bua-dev/bua/internal/ctxtime"
	"github.com/bua-dev/bua/pkg/protocol"
)

// DefaultTimeout is how long a person gets to clear the page.
const DefaultTimeout = 5 * time.Minute

// Polling bounds: the page is read again after MinPoll, then after twice as
// long each time, up to MaxPoll, so a person who is quick is noticed at
// once and a slow one costs one extract every 2 s.
const (
	MinPoll = 250 * time.Millisecond
	MaxPoll = 2 * time.Second
)

// abandonBudget bounds the abandoned message sent after the caller's own
// ctx has ended (Ctrl-C): the tab must still go back.
const abandonBudget = 5 * time.Second

// Options are one handoff's settings.
type Options struct {
	// Extract is the extract read again until the page needs no person;
	// its TabID is set to the handed tab.
	Extract protocol.Action
	// Timeout is how long the person gets (DefaultTimeout when zero).
	Timeout time.Duration
	// Needs reports whether a verdict still needs a person (default: a
	// high-confidence verdict, the obstacle policy's `high`).
	Needs func(*protocol.Obstacle) bool
	// OnRequested, when set, is called once the tab is in front of the
	// person, so a CLI can say what it waits for.
	OnRequested func(tabID int, o *protocol.Obstacle)
	// Sleep waits d or until ctx ends (tests shorten it); time.After by
	// default.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Outcome is how a handoff ended.
type Outcome struct {
	TabID int
	// Resolved is true when an extract saw no obstacle that needs a person;
	// false when Timeout passed first (the tab was handed back abandoned).
	Resolved bool
	// Waited is from the request to the resolution or the give-up.
	Waited time.Duration
	// Result is the last extract's raw result: the cleared page when
	// Resolved.
	Result json.RawMessage
	// Verdict is the last verdict seen: nil when Resolved, else the
	// obstacle the person did not clear.
	Verdict *protocol.Obstacle
}

// HighOnly is the default Needs: a verdict of high confidence.
func HighOnly(o *protocol.Obstacle) bool { return o != nil && o.Confidence == "high" }

// Wait hands tabID to the person for verdict (handoff requested), reads the
// page again with backoff until no verdict Needs a person, and hands the tab
// back (resolved). When Timeout passes first it hands the tab back
// abandoned and returns Resolved false and a nil error. When ctx ends
// (Ctrl-C) or a request fails for good (the person pressed Stop, the tab
// closed) it hands the tab back abandoned, within a short budget of its own,
// and returns the error.
func Wait(ctx context.Context, r protocol.Requester, tabID int, verdict *protocol.Obstacle, o Options) (Outcome, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Needs == nil {
		o.Needs = HighOnly
	}
	if o.Sleep == nil {
		o.Sleep = ctxtime.Sleep
	}
	out := Outcome{TabID: tabID, Verdict: verdict}
	start := time.Now()
	var typ, msg string
	if verdict != nil {
		typ, msg = string(verdict.Type), verdict.Message
	}
	req := protocol.Handoff(protocol.HandoffRequested, typ, msg).OnTab(tabID)
	if _, err := r.Request(ctx, req); err != nil {
		return out, err
	}
	if o.OnRequested != nil {
		o.OnRequested(tabID, verdict)
	}
	giveBack := func(state string) error {
		out.Waited = time.Since(start)
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abandonBudget)
		defer cancel()
		_, err := r.Request(bctx, protocol.Handoff(state, "", "").OnTab(tabID))
		if err != nil {
			return err
		}
		return nil
	}
	ex := o.Extract
	ex.Type = protocol.ActionExtract
	ex = ex.OnTab(tabID)
	deadline := start.Add(o.Timeout)
	for poll := MinPoll; ; poll = min(2*poll, MaxPoll) {
		wait := min(poll, time.Until(deadline))
		if wait > 0 {
			if err := o.Sleep(ctx, wait); err != nil {
				_ = giveBack(protocol.HandoffAbandoned)
				return out, protocol.Errorf(protocol.CodeInternalError, "aborted by caller while waiting for a person")
			}
		}
		raw, err := r.Request(ctx, ex)
		switch {
		case err != nil && ctx.Err() != nil:
			_ = giveBack(protocol.HandoffAbandoned)
			return out, err
		case err != nil && !passing(err):
			if gerr := giveBack(protocol.HandoffAbandoned); gerr != nil {
				return out, fmt.Errorf("%w (and the tab could not be handed back: %v)", err, gerr)
			}
			return out, err
		case err == nil:
			var res protocol.ExtractResult
			if jerr := json.Unmarshal(raw, &res); jerr != nil {
				_ = giveBack(protocol.HandoffAbandoned)
				return out, protocol.Errorf(protocol.CodeInternalError, "extract result is not JSON: %v", jerr)
			}
			out.Result = raw
			if !o.Needs(res.Obstacle) {
				out.Verdict = nil
				out.Resolved = true
				return out, giveBack(protocol.HandoffResolved)
			}
			out.Verdict = res.Obstacle
		}
		if !time.Now().Before(deadline) {
			return out, giveBack(protocol.HandoffAbandoned)
		}
	}
}

// passing reports whether an extract error may pass while a person works
// on the page (it is navigating after they submitted a form): the wait
// goes on. Anything else (the person pressed Stop, the tab closed, the
// domain was blocked) ends it.
func passing(err *protocol.Error) bool {
	switch err.Code {
	case protocol.CodeTimeout, protocol.CodeDebuggerAttachFailed:
		return true
	case protocol.CodeInternalError:
		return err.Reason == ""
	}
	return false
}

// Mode is BUA_HANDOFF: whether a handoff may happen at all.
type Mode string

// Modes.
const (
	// ModeAuto hands over to a person's own Chrome and to a headful managed
	// browser, and acts as stop for a headless one, which nobody can see.
	ModeAuto Mode = ""
	// ModeOff always acts as stop.
	ModeOff Mode = "off"
	// ModeForce hands over even to a headless managed browser: for tests and
	// demos, where something other than a person clears the page.
	ModeForce Mode = "force"
)

// ParseMode reads BUA_HANDOFF.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeAuto, "auto", "on":
		return ModeAuto, nil
	case ModeOff, ModeForce:
		return Mode(s), nil
	}
	return "", fmt.Errorf("BUA_HANDOFF=%q: want off, force or unset", s)
}

// Gate reports whether a tab can be handed to a person now: nil, or an
// Unavailable error saying why not.
type Gate func(ctx context.Context) error

// Unavailable says why nobody can be handed the browser; the handoff
// policy then acts as stop, with this as its reason.
type Unavailable struct{ Reason string }

func (u *Unavailable) Error() string { return u.Reason }
