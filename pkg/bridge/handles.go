package bridge

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Tab handles: short names a person can type for tabs (t1, t2, …), where
// Chrome's tab ids run to nine or ten digits and each browser numbers its
// tabs on its own. The daemon gives a tab its handle the first time an
// answer to a caller that names no owner (the CLI) mentions it, one
// counter across every browser, so a handle names one tab of one browser.
// A tab keeps its handle as long as the daemon runs; a handle is never
// given to another tab, even once its tab closed, so an old handle fails
// (no tab t3) rather than act on a stranger. Agents (bua mcp) keep tab
// ids: their answers carry no handles.
//
// The daemon adds them to answers (handle on get_tabs' rows, tabHandle
// and newTabHandle on the results of actions that are not reads, and of
// wait_for), and resolves a link request's Tab: the request goes to that
// tab's browser, and a tab action that names no tabId acts on that tab.

// tabHandles maps tabs to their handles and back. A closed tab leaves
// tab but stays in handle: close_tab's own answer, which may come after
// the tab_closed event, still names it by its handle.
type tabHandles struct {
	mu     sync.Mutex
	last   int               // the number of the last handle given
	handle map[tabKey]string // every tab seen, open or closed
	tab    map[string]tabKey // the open ones, by handle
}

func newTabHandles() *tabHandles {
	return &tabHandles{handle: map[tabKey]string{}, tab: map[string]tabKey{}}
}

// of is k's handle, the next one when k has none yet, or had one and
// closed (a browser that started again may number a new tab as an old
// one).
func (h *tabHandles) of(k tabKey) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.handle[k]; ok && h.tab[s] == k {
		return s
	}
	h.last++
	s := "t" + strconv.Itoa(h.last)
	h.handle[k], h.tab[s] = s, k
	return s
}

// lookup is the tab a handle names, while it is open as far as the
// daemon knows.
func (h *tabHandles) lookup(handle string) (tabKey, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k, ok := h.tab[handle]
	return k, ok
}

// had is the handle k had, open or closed, and whether it had one.
func (h *tabHandles) had(k tabKey) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.handle[k]
	return s, ok
}

// drop retires k's handle: its tab closed. The handle names nothing from
// now on and is not given again.
func (h *tabHandles) drop(k tabKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.handle[k]; ok && h.tab[s] == k {
		delete(h.tab, s)
	}
}

// IsTabHandle reports whether s has a tab handle's form: t and a number
// from 1, as `bua tabs` shows them (t1, t2, …). Whether a tab has it is
// the daemon's to say.
func IsTabHandle(s string) bool {
	n, ok := strings.CutPrefix(s, "t")
	if !ok || n == "" || n[0] == '0' {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// noTab is the error for a handle that names no open tab.
func noTab(handle string) *protocol.Error {
	return protocol.Errorf(protocol.CodeTabNotFound, "no tab %s: bua tabs lists them", handle)
}

// resolveTab points lr at the tab its Tab handle names: sel, the
// request's browser as checked, becomes that tab's browser (refused when
// the request names another one), and a tab action that names no tabId
// gets that tab's. It returns the browser to use.
func (d *Daemon) resolveTab(lr *linkRequest, sel Selection) (Selection, *protocol.Error) {
	k, ok := d.handles.lookup(lr.Tab)
	if !ok {
		return "", noTab(lr.Tab)
	}
	if sel != "" && sel != SelectAuto && string(sel) != k.browser {
		e := protocol.Errorf(protocol.CodeInvalidAction, "tab %s is in browser %s, not %s: leave out --browser, or name a tab of %s (bua tabs --browser %s lists them)", lr.Tab, k.browser, sel, sel, sel)
		e.Reason = protocol.ReasonRefused
		return "", e
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(lr.Action, &fields); err != nil {
		return "", protocol.Errorf(protocol.CodeInvalidAction, "action is not a JSON object: %v", err)
	}
	var typ protocol.ActionType
	_ = json.Unmarshal(fields["type"], &typ)
	spec := protocol.ActionSpecs[typ]
	if _, set := fields["tabId"]; !set && spec != nil && (spec.Scope == protocol.ScopeTab || typ == protocol.ActionCloseTab) {
		fields["tabId"] = json.RawMessage(strconv.Itoa(k.tab))
		lr.Action, _ = json.Marshal(fields)
	}
	return Selection(k.browser), nil
}

// actionHead is what withHandles and tabGone read of a request's action.
type actionHead struct {
	Type  protocol.ActionType `json:"type"`
	TabID *int                `json:"tabId"`
}

func headOf(lr *linkRequest) actionHead {
	var h actionHead
	_ = json.Unmarshal(lr.Action, &h)
	return h
}

// tabGone is the error for lr's failure err on browser: tab_not_found for
// the tab lr's handle named is "no tab tN" (its tab closed without the
// daemon hearing of it: no session there reported tab_closed), and the
// handle is dropped; any other error is err.
func (d *Daemon) tabGone(lr *linkRequest, browser string, err *protocol.Error) *protocol.Error {
	if lr.Tab == "" || err.Code != protocol.CodeTabNotFound {
		return err
	}
	k, ok := d.handles.lookup(lr.Tab)
	if h := headOf(lr); !ok || h.TabID == nil || k != (tabKey{browser, *h.TabID}) {
		return err
	}
	d.handles.drop(k)
	return noTab(lr.Tab)
}

// withHandles adds the tabs' handles to res, lr's answer on browser:
// handle on each of get_tabs' rows; tabHandle and newTabHandle beside
// tabId and newTabId on the result of an action that is not a read, or of
// wait_for (reads answer with pages, screenshots and traces, which are not
// decoded only to name their tab). close_tab's tab loses its handle once
// its answer names it. An answer that does not decode goes back as it
// came.
func (d *Daemon) withHandles(lr *linkRequest, browser string, res json.RawMessage) json.RawMessage {
	h := headOf(lr)
	switch spec := protocol.ActionSpecs[h.Type]; {
	case h.Type == protocol.ActionGetTabs:
		var rows []map[string]json.RawMessage // the extension's fields, kept as they came
		if json.Unmarshal(res, &rows) != nil {
			return res
		}
		for _, row := range rows {
			var id int
			if json.Unmarshal(row["tabId"], &id) == nil {
				row["handle"] = quoted(d.handles.of(tabKey{browser, id}))
			}
		}
		return remarshal(res, rows)
	case h.Type == protocol.ActionCloseTab:
		// The tab is gone (its tab_closed event may have come first): its
		// answer names it by the handle it had, and the handle retires.
		if h.TabID == nil {
			return res
		}
		k := tabKey{browser, *h.TabID}
		d.handles.drop(k)
		s, ok := d.handles.had(k)
		var fields map[string]json.RawMessage
		if !ok || json.Unmarshal(res, &fields) != nil {
			return res
		}
		fields["tabHandle"] = quoted(s)
		return remarshal(res, fields)
	case spec == nil || (spec.Reads && h.Type != protocol.ActionWaitFor):
		return res
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(res, &fields) != nil {
		return res
	}
	named := false
	for _, f := range [][2]string{{"tabId", "tabHandle"}, {"newTabId", "newTabHandle"}} {
		var id int
		if raw, ok := fields[f[0]]; ok && json.Unmarshal(raw, &id) == nil {
			fields[f[1]] = quoted(d.handles.of(tabKey{browser, id}))
			named = true
		}
	}
	if !named {
		return res
	}
	return remarshal(res, fields)
}

// quoted is s as a JSON string.
func quoted(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// remarshal encodes v, or gives back res when it cannot. URLs keep their
// & and < as the extension sent them (no HTML escaping: the CLI prints
// these bytes).
func remarshal(res json.RawMessage, v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return res
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
