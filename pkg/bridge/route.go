package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// request runs one CLI request: pick (or wait for, or launch) a browser,
// then send. It is where --browser and the auto-launch policy meet.
func (d *Daemon) request(ctx context.Context, lr *linkRequest) (json.RawMessage, *protocol.Error) {
	d.lastActivity.Store(time.Now().UnixMilli())
	sel, err := d.checkBrowser(lr.Browser)
	if err != nil {
		return nil, err
	}
	if lr.Tab != "" {
		// Before the check: close_tab needs the tabId the handle gives.
		if sel, err = d.resolveTab(lr, sel); err != nil {
			return nil, err
		}
	}
	if !lr.NoValidate {
		// The one check of an action on its way out: the CLI leaves it to
		// the daemon, so a one-shot command does not check it twice.
		if err := protocol.ValidateAction(lr.Action); err != nil {
			err.Reason = protocol.ReasonRefused
			return nil, err
		}
	}
	if err := checkUploadFiles(lr.Action); err != nil {
		return nil, err
	}
	if lr.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withCallerTimeout(ctx, time.Duration(lr.TimeoutMs)*time.Millisecond, lr.StatedTimeout())
		defer cancel()
	}
	c, err := d.acquire(ctx, sel)
	if err != nil {
		return nil, err
	}
	if lr.Owner != "" {
		res, err := d.requestOwned(ctx, c, lr.Owner, lr.OwnWindow, lr.Action)
		if err != nil {
			return nil, err
		}
		return hashDownload(res), nil
	}
	// Validated above (or deliberately not): send the caller's bytes as
	// they are rather than re-encoding them.
	res, err := d.pool.Send(ctx, c, lr.Action)
	if err != nil {
		return nil, d.tabGone(lr, c.Name, err)
	}
	return d.withHandles(lr, c.Name, hashDownload(res)), nil
}

// checkBrowser reads a request's browser (CheckBrowser): a name this
// daemon does not know is invalid_action, reason refused, listing the
// names there are: a raw frame may carry anything, and a typo must not
// wait for a browser that will never come, nor launch one.
func (d *Daemon) checkBrowser(sel Selection) (Selection, *protocol.Error) {
	parsed, err := CheckBrowser(d.cfg.Dirs, string(sel))
	if err != nil {
		e := protocol.Errorf(protocol.CodeInvalidAction, "unknown browser %q in the request: %v", sel, err)
		e.Reason = protocol.ReasonRefused
		return "", e
	}
	return parsed, nil
}
