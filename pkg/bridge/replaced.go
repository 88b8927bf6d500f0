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

// attach makes c its pairing's connection, recording whether it replaced
// one (the older one stops reconnecting) or found none (that pairing's
// extension is back). The check and the attach are one step under
// replacedMu: two hellos of one pairing at once must not both find the
// pool empty, or the one replaced would go unrecorded.
func (d *Daemon) attach(c *Conn) {
	d.replacedMu.Lock()
	defer d.replacedMu.Unlock()
	// A connection of the same extension instance coming back (replay)
	// resumes the old one rather than replacing it.
	if old := d.pool.Conn(Selection(c.Name)); old != nil && !c.resumes(old) {
		if d.replaced == nil {
			d.replaced = make(map[string]time.Time)
		}
		d.replaced[c.Name] = time.Now()
	} else {
		delete(d.replaced, c.Name)
	}
	d.pool.Attach(c)
}

// replacedSince lists the browsers (by name) whose extension was replaced
// and has no connection among conns, the pool's connections as the caller read
// them. Status reads the pool once for both its Connections and its
// Replaced, so the two agree: read twice, a replacement that closed in
// between showed in neither.
func (d *Daemon) replacedSince(conns []*Conn) map[string]time.Time {
	d.replacedMu.Lock()
	defer d.replacedMu.Unlock()
	if len(d.replaced) == 0 {
		return nil
	}
	out := make(map[string]time.Time, len(d.replaced))
	for k, at := range d.replaced {
		out[k] = at
	}
	for _, c := range conns {
		delete(out, c.Name)
	}
	return out
}

// replacedError is bridge_unavailable when sel would wait for a browser
// whose extension was replaced and has not come back, else nil. A managed
// browser launched after the replacement is a new extension: it counts.
func (d *Daemon) replacedError(sel Selection) *protocol.Error {
	gone := d.replacedSince(d.pool.Conns())
	policy := LaunchPolicyFor(sel, d.cfg.Getenv, d.cfg.Dirs)
	name := string(sel)
	if sel == SelectAuto {
		name = string(SelectUser)
		if policy == LaunchAtOnce {
			name = string(SelectManaged)
		}
	}
	at, ok := gone[name]
	switch {
	case !ok:
		return nil
	case IsManaged(name):
		if m := d.managed.get(name).status(); m.Running && m.StartedAt.Before(at) {
			return protocol.Errorf(protocol.CodeBridgeUnavailable,
				"the managed browser %s's extension was replaced at %s by another connection with its pairing's token, and a replaced extension does not reconnect (close code %d): restart the browser with `bua browser stop`, then `bua browser start`",
				name, at.Format(time.TimeOnly), protocol.CloseReplaced)
		}
		return nil
	}
	return protocol.Errorf(protocol.CodeBridgeUnavailable,
		"your Chrome's bua extension (%s) was replaced at %s by another connection with that pairing's token, and a replaced extension does not reconnect (close code %d): %s",
		name, at.Format(time.TimeOnly), protocol.CloseReplaced, reconnectAdvice)
}

// reconnectAdvice is how a person brings a replaced extension back.
const reconnectAdvice = "open the bua extension's options in Chrome and save or reconnect (or restart Chrome), and look for a second browser or profile paired with the same token"
