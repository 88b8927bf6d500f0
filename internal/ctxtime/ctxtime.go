// Package ctxtime holds the one context-aware sleep the flow runner's
// sleep step, the handoff wait and `bua trace --follow` share.
package ctxtime

import (
	"context"
	"time"
)

// Sleep blocks for d or until ctx is done, whichever comes first, and
// returns ctx.Err() in the second case (nil when d elapsed). A d <= 0
// returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
