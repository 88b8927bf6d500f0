package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The tabs an agent opened are closed when it ends (otherwise one more
// pile of tabs per session otherwise), as Playwright MCP's closing its
// browser context does; `bua mcp --keep-tabs` keeps them. Only the tabs it
// opened: never the person's, nor a tab it was given (a tabId from
// get_tabs), which it only used.

// openedTabs are the tabs an agent opened, and every tab it has acted on
// or opened (known), from its actions' answers.
type openedTabs struct {
	mu     sync.Mutex
	opened []int // in the order it opened them
	known  map[int]bool
}

// note records what a's successful answer res says of tabs: open_tab's
// tab, navigate's when it had no tab to go to (its first: the daemon
// opened one, a tab it never saw), and a tab the action opened (newTabId:
// a target=_blank link); close_tab's is no longer open.
func (o *openedTabs) note(a protocol.Action, res json.RawMessage) {
	var r struct {
		TabID    *int `json:"tabId"`
		NewTabID *int `json:"newTabId"`
	}
	_ = json.Unmarshal(res, &r)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.known == nil {
		o.known = map[int]bool{}
	}
	if a.Type == protocol.ActionCloseTab && a.TabID != nil {
		o.opened = slices.DeleteFunc(o.opened, func(t int) bool { return t == *a.TabID })
		return
	}
	if a.TabID != nil {
		o.known[*a.TabID] = true
	}
	if r.TabID != nil {
		if a.Type == protocol.ActionOpenTab || (a.Type == protocol.ActionNavigate && a.TabID == nil && !o.known[*r.TabID]) {
			o.opened = append(o.opened, *r.TabID)
		}
		o.known[*r.TabID] = true
	}
	if r.NewTabID != nil && !slices.Contains(o.opened, *r.NewTabID) {
		o.opened = append(o.opened, *r.NewTabID)
		o.known[*r.NewTabID] = true
	}
}

// take returns the tabs opened and forgets them.
func (o *openedTabs) take() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	tabs := o.opened
	o.opened = nil
	return tabs
}

// CloseTabs closes the tabs this agent opened (its first navigate's,
// open_tab's, and those its actions opened) and not closed since, and
// returns how many it closed. A dialog open on one, a beforeunload
// included, is accepted: the agent is gone, and nobody else would answer
// it. A tab already closed, or one that will not close by ctx's end, is
// left; a second call closes nothing. Call it once the agent ended.
func (s *Server) CloseTabs(ctx context.Context) int {
	n := 0
	for _, tab := range s.opened.take() {
		a := protocol.CloseTab(tab)
		a.Dialogs = protocol.DialogsAccept
		_, err := s.o.Requester.Request(ctx, a)
		if err != nil && err.Reason == protocol.ReasonRefused {
			// An extension without dialog_policy: close it as it is.
			a.Dialogs = ""
			_, err = s.o.Requester.Request(ctx, a)
		}
		if err != nil {
			if err.Code != protocol.CodeTabNotFound {
				s.o.Log.Warn("a tab this agent opened was not closed", "tab", tab, "err", err.Message)
			}
			continue
		}
		n++
	}
	if n > 0 {
		s.o.Log.Info("closed the tabs this agent opened", "tabs", n)
	}
	return n
}
