package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Step is one action the agent ran that succeeded, as a flow writer needs
// it to write a flow that replays with no agent (bua mcp --record).
// Entries turns steps into the flow writer's entries.
type Step struct {
	// Action is what was sent; its tabId is the agent's when it gave one.
	// A handoff is recorded as the handoff it made: state requested, with
	// the obstacle type the person cleared.
	Action protocol.Action
	// Result is the action's raw protocol result (its tabId says where it
	// ran; a click's newTabId the tab it opened).
	Result json.RawMessage
	// Target is the action's target described before it ran (describe:
	// readable locators, best first, with their match counts; whether it
	// is a password field): how a uid becomes a locator that replays. nil
	// when the action has no target or the extension cannot describe
	// (no describe feature).
	Target *protocol.DescribeResult
	// URLBefore is the URL of the tab an input, navigation or evaluate
	// ran on, read (get_tabs) just before it ran; "" when it was not read
	// (a read, a browser action, or no tab yet).
	URLBefore string
	// URLAfter and Title are the tab's URL and title after the action:
	// what an input's answer read, an extract's or a wait_for's page, the
	// page a handoff's person left. "" when not read.
	URLAfter, Title string
	// Dialog is the message of a dialog the action opened (reason
	// dialog_opened: the action ran up to it), else "".
	Dialog string
	// Time is when the call arrived.
	Time time.Time
}

// Recorder receives each Step as it happens, in order. A flow writer
// implements it, or reads a Log.
type Recorder interface {
	Record(Step)
}

// Log is a Recorder that keeps every step in memory, for a flow writer to
// read when the server ends. It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	steps []Step
}

// Record keeps st.
func (l *Log) Record(st Step) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, st)
}

// Steps returns the steps so far, oldest first.
func (l *Log) Steps() []Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Step(nil), l.steps...)
}

// Entries are steps as the flow writer's entries (docs/record.md, "For
// producers"): the action, its result and its target's describe result as
// they were, the URLs before and after, a dialog the action opened.
//
// A tab can navigate after the action that caused it answered: a click
// whose form submits by script, a redirect a moment after the load. The
// next step on that tab then sees a URL that no action's answer showed.
// Such a navigation is the doing of the last input or navigation on that
// tab, so that entry's URLAfter becomes the new URL, and the writer puts
// a wait_for on it right after that step, where a replay needs it. A
// read or a wait_for that saw the new URL (extract's page, wait_for's
// url) observed the navigation, never caused it.
func Entries(steps []Step) []flowwriter.Entry {
	out := make([]flowwriter.Entry, len(steps))
	type tabState struct {
		url   string // the last URL seen on the tab
		cause int    // the last entry that could navigate it, -1 for none
	}
	tabs := map[int]*tabState{}
	for i, st := range steps {
		e := flowwriter.Entry{Action: st.Action, Result: st.Result, Target: st.Target,
			URLBefore: st.URLBefore, URLAfter: st.URLAfter, Title: st.Title}
		if st.Dialog != "" {
			// The dialog stops a replay's action, as it stopped the agent's,
			// unless the flow answers dialogs itself.
			e.Problem = fmt.Sprintf("%s opened a dialog (%q), which stops a replay's %s: give the flow dialogs: accept (or dismiss) and remove the handle_dialog step that answered it", st.Action.Type, st.Dialog, st.Action.Type)
		}
		tab := stepTab(st)
		if tab == nil {
			out[i] = e
			continue
		}
		if st.Action.Type == protocol.ActionCloseTab {
			delete(tabs, *tab)
			out[i] = e
			continue
		}
		ts := tabs[*tab]
		if ts == nil {
			ts = &tabState{cause: -1}
			tabs[*tab] = ts
		}
		observer := observes(st.Action.Type)
		seen := e.URLBefore
		if observer {
			seen = e.URLAfter
			e.URLBefore = e.URLAfter // it waited for or read the page: it did not move it
		}
		if seen != "" && ts.url != "" && seen != ts.url && ts.cause >= 0 {
			c := &out[ts.cause]
			c.URLAfter, c.Title = seen, ""
			if observer {
				c.Title = e.Title
			}
		}
		switch {
		case e.URLAfter != "":
			ts.url = e.URLAfter
		case seen != "":
			ts.url = seen
		}
		if !observer {
			ts.cause = i
		}
		out[i] = e
	}
	return out
}

// observes reports whether an action of type t only looks at the page
// (the schema's x-reads: extract, screenshot, wait_for, get_tabs,
// get_trace, describe): a navigation it sees happened before it.
func observes(t protocol.ActionType) bool {
	spec := protocol.ActionSpecs[t]
	return spec != nil && spec.Reads
}

// stepTab is the tab a step ran on: the tab its result reports (open_tab's
// new tab), else the one its action named; nil when neither says.
func stepTab(st Step) *int {
	var r protocol.OKResult
	if json.Unmarshal(st.Result, &r) == nil && r.TabID != nil {
		return r.TabID
	}
	return st.Action.TabID
}

// recording reports whether this server records its steps.
func (s *Server) recording() bool { return s.o.Recorder != nil }

// record hands st to the Recorder, when there is one.
func (s *Server) record(st Step) {
	if s.o.Recorder != nil {
		s.o.Recorder.Record(st)
	}
}

// urlBefore is the URL of the tab a is about to run on, for the record: a
// wait_for after a navigation needs to know the URL changed. Only an
// action on a tab that is not a read needs it (a read's own page says
// where it looked); a browser action (open_tab, close_tab) has no tab yet.
func (s *Server) urlBefore(ctx context.Context, a protocol.Action) string {
	spec := protocol.ActionSpecs[a.Type]
	if !s.recording() || spec.Reads || spec.Scope != protocol.ScopeTab {
		return ""
	}
	t, ok := s.tabInfo(ctx, a.TabID)
	if !ok {
		return ""
	}
	return t.URL
}

// pageAfter fills st's URLAfter and Title when the answer did not read
// them: an extract's own page, else (an evaluate, a wait_for, an input
// whose answer read nothing) the tab's, from get_tabs.
func (s *Server) pageAfter(ctx context.Context, st *Step) {
	if st.URLAfter != "" {
		return
	}
	switch t := st.Action.Type; {
	case t == protocol.ActionExtract:
		var r protocol.ExtractResult
		if json.Unmarshal(st.Result, &r) == nil {
			st.URLAfter, st.Title = r.URL, r.Title
		}
		return
	case t == protocol.ActionCloseTab || (observes(t) && t != protocol.ActionWaitFor):
		return // nothing to read, or nothing it could have moved
	}
	tab := stepTab(*st)
	if tab == nil {
		return
	}
	if info, ok := s.tabInfo(ctx, tab); ok {
		st.URLAfter, st.Title = info.URL, info.Title
	}
}
