package protocol

import (
	"context"
	"encoding/json"
	"time"
)

// Requester sends one action and waits for its result. Its
// implementations: bridge.Client (one link to the daemon, which one-shot
// commands use), bridge.Requester (the link that dials when first needed
// and, for bua mcp, again after the daemon went away: what flow runs and
// agents send through) and runnertest.Fake (a scripted extension for
// tests). The daemon's own pool does not implement it: it sends to a
// chosen browser connection. The flow runner, bua mcp and pkg/handoff
// take any of them.
//
// The result is the response's raw `result` JSON; on failure the *Error
// carries a protocol code (or CodeBridgeUnavailable). ctx's deadline, when
// set, replaces the action's default timeout (see DefaultTimeout) plus
// LadderMargin (set it with WithTimeout); a cancelled ctx resolves at once
// with internal_error "aborted by caller".
type Requester interface {
	Request(ctx context.Context, a Action) (json.RawMessage, *Error)
}

type timeoutKey struct{}

// LadderMargin is what the timeout ladder (schema x-ladder) adds on top of
// an action's own time: the extension's settle margin and its reply
// margin. A caller's context ends that much after the action's time, so
// the action gets all of it and the caller still hears the answer.
const LadderMargin = SettleMargin + ReplyMargin

// WithTimeout gives ctx the caller's timeout d (a CLI --timeout, a flow
// step's timeout) as the time an action sent with it may take (x-ladder
// level 1): its deadline is d plus LadderMargin from now, so that the
// action's own waits last d and their error still arrives. It remembers d,
// so an error far from the caller can state the timeout that applied
// (Timeout) rather than a default or what was left of d when it got there.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d+LadderMargin)
	return context.WithValue(ctx, timeoutKey{}, d), cancel
}

// WithExactTimeout is WithTimeout without the ladder's margin: for work
// that never reaches the extension (a question to the daemon, such as
// `bua status` or `bua stop`), where no reply margin is owed and d is the
// whole deadline. Timeout(ctx) still states d.
func WithExactTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, d)
	return context.WithValue(ctx, timeoutKey{}, d), cancel
}

// Timeout is the timeout the nearest WithTimeout or WithExactTimeout set
// on ctx.
func Timeout(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(timeoutKey{}).(time.Duration)
	return d, ok
}
