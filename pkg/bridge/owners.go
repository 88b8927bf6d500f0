package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Tab ownership, for callers that name an owner on their link requests:
// each `bua mcp` is one agent, and it must never act on another agent's
// tabs (docs/decisions/agent-answers.md). A one-shot
// CLI command names none and keeps the protocol's own tab choice.
//
//   - An owner's tab action with no tabId goes to the owner's most recently
//     used tab; navigate with none yet opens one (open_tab).
//   - A tab action with a tabId may use any tab that no other owner holds;
//     a tab another owner holds is refused (invalid_action, reason
//     ReasonTabHeld) before anything is sent.
//   - Every tab an owner's action succeeds on becomes its own (a tab its
//     click opened too, newTabId); get_tabs marks the owner's tabs mine,
//     its current one current, and other owners' heldByOther.
//   - An owner's tabs are released when its link connection closes (the
//     agent went away); the tabs stay open. A tab that closes is dropped.
//   - An owner that asks for a window of its own (linkRequest.OwnWindow: a
//     worker of `bua run --parallel` in the person's Chrome) has its tabs
//     opened there: open_tab, and navigate's first tab, carry a window key
//     of its own (windowKey), so each owner has an active tab to send
//     input to. Cookies are the browser's, shared by every window.
//
// Tabs are keyed by the browser that has them (its name) as well as their
// id: each browser numbers its tabs independently.

// tabKey is one tab of one browser.
type tabKey struct {
	browser string
	tab     int
}

// tabOwners records which owner holds which tabs.
type tabOwners struct {
	mu     sync.Mutex
	holder map[tabKey]string
	recent map[string][]tabKey // an owner's tabs, most recently used last
}

func newTabOwners() *tabOwners {
	return &tabOwners{holder: map[tabKey]string{}, recent: map[string][]tabKey{}}
}

// holderOf is the owner holding k, or "".
func (o *tabOwners) holderOf(k tabKey) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.holder[k]
}

// current is owner's most recently used tab in the browser so named.
func (o *tabOwners) current(owner string, browser string) (int, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tabs := o.recent[owner]
	for i := len(tabs) - 1; i >= 0; i-- {
		if tabs[i].browser == browser {
			return tabs[i].tab, true
		}
	}
	return 0, false
}

// claim gives k to owner unless another owner holds it; use makes it the
// owner's current tab too. It reports whether owner holds k now.
func (o *tabOwners) claim(owner string, k tabKey, use bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if h := o.holder[k]; h != "" && h != owner {
		return false
	}
	o.holder[k] = owner
	tabs := o.recent[owner]
	if i := slices.Index(tabs, k); i >= 0 {
		if !use {
			return true
		}
		tabs = slices.Delete(tabs, i, i+1)
	}
	if use {
		o.recent[owner] = append(tabs, k)
	} else {
		o.recent[owner] = append([]tabKey{k}, tabs...) // held, not current
	}
	return true
}

// drop forgets a tab that closed.
func (o *tabOwners) drop(k tabKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner := o.holder[k]
	if owner == "" {
		return
	}
	delete(o.holder, k)
	o.recent[owner] = slices.DeleteFunc(o.recent[owner], func(x tabKey) bool { return x == k })
}

// release forgets every tab owner holds: its link closed.
func (o *tabOwners) release(owner string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.recent[owner])
	for _, k := range o.recent[owner] {
		delete(o.holder, k)
	}
	delete(o.recent, owner)
	return n
}

// windowKey is open_tab's window key for owner: derived, since an owner
// id is the client's to choose and the key has the schema's pattern.
func windowKey(owner string) json.RawMessage {
	sum := sha256.Sum256([]byte(owner))
	return json.RawMessage(`"w` + hex.EncodeToString(sum[:8]) + `"`)
}

// requestOwned sends an owner's action on c, with the rules above; with
// ownWindow its tabs open in a window of its own. action has been
// validated (or deliberately not).
func (d *Daemon) requestOwned(ctx context.Context, c *Conn, owner string, ownWindow bool, action json.RawMessage) (json.RawMessage, *protocol.Error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(action, &fields); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidAction, "action is not a JSON object: %v", err)
	}
	var head struct {
		Type  protocol.ActionType `json:"type"`
		TabID *int                `json:"tabId"`
	}
	_ = json.Unmarshal(action, &head)
	spec := protocol.ActionSpecs[head.Type]
	if spec == nil || (spec.Scope != protocol.ScopeTab && head.Type != protocol.ActionCloseTab) {
		if _, set := fields["window"]; ownWindow && head.Type == protocol.ActionOpenTab && !set {
			fields["window"] = windowKey(owner)
			action, _ = json.Marshal(fields)
		}
		res, err := d.pool.Send(ctx, c, action)
		if err != nil {
			return nil, err
		}
		switch head.Type {
		case protocol.ActionOpenTab:
			var r protocol.OpenTabResult
			if json.Unmarshal(res, &r) == nil {
				d.owners.claim(owner, tabKey{c.Name, r.TabID}, true)
			}
		case protocol.ActionGetTabs:
			res = d.markTabs(res, owner, c.Name)
		}
		return res, nil
	}

	var tab int
	switch cur, has := d.owners.current(owner, c.Name); {
	case head.TabID != nil:
		tab = *head.TabID
		// Held from now on, before it is sent: two agents that reach for
		// one free tab at once cannot both act on it.
		if !d.owners.claim(owner, tabKey{c.Name, tab}, false) {
			e := protocol.Errorf(protocol.CodeInvalidAction, "tab %d is held by another agent (another bua mcp on this daemon), so this one may not act on it: act on your own tabs (get_tabs marks them), or open one with navigate or open_tab", tab)
			e.Reason = protocol.ReasonTabHeld
			return nil, e
		}
	case has:
		tab = cur
		fields["tabId"] = json.RawMessage(fmt.Sprint(cur))
		action, _ = json.Marshal(fields)
	case head.Type == protocol.ActionNavigate:
		return d.openOwned(ctx, c, owner, ownWindow, fields)
	default:
		return nil, protocol.Errorf(protocol.CodeSessionNotFound, "this agent has no tab yet: navigate to a URL first (it opens a tab), or pass a tabId from get_tabs")
	}
	k := tabKey{c.Name, tab}
	res, err := d.pool.Send(ctx, c, action)
	if err != nil {
		if err.Code == protocol.CodeTabNotFound {
			d.owners.drop(k)
		}
		return nil, err
	}
	if head.Type == protocol.ActionCloseTab {
		d.owners.drop(k)
		return res, nil
	}
	var r struct {
		TabID    *int `json:"tabId"`
		NewTabID *int `json:"newTabId"`
	}
	_ = json.Unmarshal(res, &r)
	if r.TabID != nil {
		k.tab = *r.TabID
	}
	d.owners.claim(owner, k, true)
	if r.NewTabID != nil { // a tab the action opened (a target=_blank link) is this owner's too
		d.owners.claim(owner, tabKey{c.Name, *r.NewTabID}, false)
	}
	return res, nil
}

// openOwned is navigate for an owner with no tab yet: open_tab with its
// url and waitUntil (a first navigate waits as every later one does), in
// its own window with ownWindow, answered as navigate answers ({ok,
// tabId}).
func (d *Daemon) openOwned(ctx context.Context, c *Conn, owner string, ownWindow bool, nav map[string]json.RawMessage) (json.RawMessage, *protocol.Error) {
	fields := map[string]json.RawMessage{"type": json.RawMessage(`"open_tab"`), "url": nav["url"]}
	if w, ok := nav["waitUntil"]; ok {
		fields["waitUntil"] = w
	}
	if ownWindow {
		fields["window"] = windowKey(owner)
	}
	open, _ := json.Marshal(fields)
	res, err := d.pool.Send(ctx, c, open)
	if err != nil {
		return nil, err
	}
	var r protocol.OpenTabResult
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "open_tab's answer does not decode: %v", err)
	}
	d.owners.claim(owner, tabKey{c.Name, r.TabID}, true)
	out, _ := json.Marshal(protocol.OKResult{OK: true, TabID: &r.TabID})
	return out, nil
}

// markTabs adds mine, current and heldByOther to get_tabs' answer for
// owner; an answer that does not decode goes back as it came.
func (d *Daemon) markTabs(res json.RawMessage, owner string, browser string) json.RawMessage {
	var tabs []map[string]json.RawMessage // the extension's fields, kept as they came
	if json.Unmarshal(res, &tabs) != nil {
		return res
	}
	yes := json.RawMessage("true")
	cur, hasCur := d.owners.current(owner, browser)
	for _, t := range tabs {
		var id int
		if json.Unmarshal(t["tabId"], &id) != nil {
			continue
		}
		switch h := d.owners.holderOf(tabKey{browser, id}); {
		case h == owner:
			t["mine"] = yes
			if hasCur && id == cur {
				t["current"] = yes
			}
		case h != "":
			t["heldByOther"] = yes
		}
	}
	out, err := json.Marshal(tabs)
	if err != nil {
		return res
	}
	return out
}
