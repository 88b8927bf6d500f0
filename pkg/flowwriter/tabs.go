package flowwriter

import (
	"encoding/json"
	"fmt"

	"github.com/bua-dev/bua/pkg/protocol"
)

// tabPlan says which steps need a tabId, and which steps bind the result
// that gives it. A replay's current tab moves as the runner moves it
// (docs/flows.md#actions, "The current tab"): the first tab acted on is current, open_tab
// makes its tab current, and close_tab of the current tab leaves none (the
// extension would pick one), so every later step names its tab. A step the
// recording took on another tab names it through the `as` of the first
// earlier step whose result reports that tab: the tab it acted on (tabId)
// or, for a tab an input opened, newTabId.
type tabPlan struct {
	ref map[int]string // entry -> the expression of the tab id it sends: tab_1.tabId
	as  map[int]string // entry -> the as name its step binds
}

// planTabs plans the tabs of the replayed entries (indexes into entries,
// in order), reporting a step on a tab no earlier step reports through
// problem: the step then runs on the current tab.
func planTabs(entries []Entry, replay []int, problem func(int, string)) tabPlan {
	p := tabPlan{ref: map[int]string{}, as: map[int]string{}}
	names := map[int]string{} // tab id -> the expression that gives it
	var cur *int
	started := false // cur is nil at the start, or after close_tab closed it
	for n, i := range replay {
		a := entries[i].Action
		var want *int // a tab the step must name
		switch {
		case a.Type == protocol.ActionCloseTab:
			want = a.TabID
			if cur != nil && want != nil && *cur == *want {
				cur = nil
			}
		case a.Type == protocol.ActionOpenTab:
			cur, started = resultTab(entries[i]), true
		default:
			t := resultTab(entries[i])
			if t == nil {
				t = a.TabID
			}
			switch {
			case t == nil:
			case !started:
				cur, started = t, true
			case cur == nil || *t != *cur:
				want = t
			}
		}
		if want == nil {
			continue
		}
		name, ok := names[*want]
		for _, j := range replay[:n] {
			if ok {
				break
			}
			if field := reports(entries[j], *want); field != "" {
				as := firstOf(p.as[j], entries[j].As)
				if as == "" {
					as = fmt.Sprintf("tab_%d", len(p.as)+1)
				}
				p.as[j] = as
				name, ok = as+"."+field, true
				names[*want] = name
			}
		}
		switch {
		case name == "" && a.Type == protocol.ActionCloseTab:
			problem(i, fmt.Sprintf("close_tab closed tab %d, which no earlier step reports (a tab the page opened on its own?): the step keeps the recording's tab id, which a replay's tab will not have", *want))
			continue
		case name == "":
			problem(i, fmt.Sprintf("%s acted on tab %d, which no earlier step reports (a tab the page opened on its own?): the replay acts on its current tab instead", a.Type, *want))
			continue
		}
		p.ref[i] = name
	}
	return p
}

// resultTab is the tab an entry's result reports: the tab it acted on, or
// the tab open_tab opened.
func resultTab(e Entry) *int {
	var r protocol.OKResult
	if json.Unmarshal(e.Result, &r) != nil {
		return nil
	}
	return r.TabID
}

// reports is the field of e's result that holds tab, "" when none does:
// tabId (the tab it acted on, or open_tab's new tab) or newTabId (the tab
// an input opened).
func reports(e Entry, tab int) string {
	var r protocol.OKResult
	switch {
	case json.Unmarshal(e.Result, &r) != nil:
	case r.TabID != nil && *r.TabID == tab:
		return "tabId"
	case r.NewTabID != nil && *r.NewTabID == tab:
		return "newTabId"
	}
	return ""
}
