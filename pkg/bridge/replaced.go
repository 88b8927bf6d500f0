package bridge

import (
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// A newer connection with a pairing's token replaces the older one, which
// is closed with CloseReplaced (4003); the bua extension takes 4003 as
// final and stops reconnecting (docs/extension.md §ws-client rules). When
// the newer connection then goes away too, nothing of that pairing will
// come back by itself, so the daemon remembers the replacement: status
// shows it, and a request fails at once with the way out instead of
// waiting for a browser that will never say hello.

// markReplaced records that a connection of kind is being replaced now.
func (d *Daemon) markReplaced(kind Kind) {
	d.replacedMu.Lock()
	defer d.replacedMu.Unlock()
	if d.replaced == nil {
		d.replaced = make(map[Kind]time.Time)
	}
	d.replaced[kind] = time.Now()
}

// clearReplaced forgets a replacement: a connection of kind arrived with
// none to replace, so that pairing's extension is back.
func (d *Daemon) clearReplaced(kind Kind) {
	d.replacedMu.Lock()
	defer d.replacedMu.Unlock()
	delete(d.replaced, kind)
}

// replacedSince lists the pairings whose extension was replaced and has
// not connected since, for Status.
func (d *Daemon) replacedSince() map[Kind]time.Time {
	d.replacedMu.Lock()
	defer d.replacedMu.Unlock()
	if len(d.replaced) == 0 {
		return nil
	}
	out := make(map[Kind]time.Time, len(d.replaced))
	for k, at := range d.replaced {
		if d.pool.Conn(Selection(k)) == nil {
			out[k] = at
		}
	}
	return out
}

// replacedError is bridge_unavailable when sel would wait for a pairing
// whose extension was replaced and has not come back, else nil. A managed
// browser launched after the replacement is a new extension: it counts.
func (d *Daemon) replacedError(sel Selection) *protocol.Error {
	gone := d.replacedSince()
	if at, ok := gone[KindManaged]; ok && sel != SelectUser {
		if m := d.managed.status(d.cfg.Dirs); m.Running && m.StartedAt.Before(at) {
			return protocol.Errorf(protocol.CodeBridgeUnavailable,
				"the managed browser's extension was replaced at %s by another connection with the managed pairing's token, and a replaced extension does not reconnect (close code %d): restart the browser with `bua browser stop`, then `bua browser start`",
				at.Format(time.TimeOnly), protocol.CloseReplaced)
		}
	}
	if at, ok := gone[KindUser]; ok && LaunchPolicyFor(sel, d.cfg.Getenv, d.cfg.Dirs) == LaunchNever {
		return protocol.Errorf(protocol.CodeBridgeUnavailable,
			"your Chrome's bua extension was replaced at %s by another connection with your pairing's token, and a replaced extension does not reconnect (close code %d): %s",
			at.Format(time.TimeOnly), protocol.CloseReplaced, reconnectAdvice)
	}
	return nil
}

// reconnectAdvice is how a person brings a replaced extension back.
const reconnectAdvice = "open the bua extension's options in Chrome and save or reconnect (or restart Chrome), and look for a second browser or profile paired with the same token"
