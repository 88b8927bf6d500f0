package bridge

import (
	"context"
	"errors"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

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

// ctxError is a's error when ctx ended before its answer: timeout,
// naming the caller's timeout when ctx carries it, at its deadline;
// internal_error "aborted by caller" when it was cancelled.
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
