package bridgetest

import (
	"net/url"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Tabs is a fake browser's tabs for a fake extension: open_tab opens one
// (ids from 1), navigate loads a URL into the tab it names (or the most
// recently used one), get_tabs lists them, close_tab closes one, and every
// other tab action answers {ok, tabId} on its tab, or tab_not_found for a
// tab that is not open. Handlers a test sets after Serve win.
type Tabs struct {
	mu     sync.Mutex
	next   int
	order  []int // open tabs, most recently used last
	urls   map[int]string
	titles map[int]string
}

// NewTabs returns a browser with no tab open.
func NewTabs() *Tabs { return &Tabs{next: 1, urls: map[int]string{}, titles: map[int]string{}} }

// Serve makes e answer from the tabs.
func (b *Tabs) Serve(e *Extension) {
	e.HandleAll(b.handle)
}

// URL is tab's URL, "" when it is not open.
func (b *Tabs) URL(tab int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.urls[tab]
}

// Open opens a tab at u as the person would (no action), returning its id.
func (b *Tabs) Open(u string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.openLocked(u)
}

func (b *Tabs) openLocked(u string) int {
	id := b.next
	b.next++
	b.urls[id], b.titles[id] = u, "Page "+u
	b.order = append(b.order, id)
	return id
}

// Load loads u into tab as the page would on its own (a script, a
// redirect): no action, the title following the URL.
func (b *Tabs) Load(tab int, u string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.urls[tab], b.titles[tab] = u, "Page "+u
}

// Close closes tab as the person would (no action).
func (b *Tabs) Close(tab int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closeLocked(tab)
}

func (b *Tabs) closeLocked(tab int) {
	delete(b.urls, tab)
	for i, t := range b.order {
		if t == tab {
			b.order = append(b.order[:i:i], b.order[i+1:]...)
			return
		}
	}
}

// resolve is the action's tab: its tabId, else the most recent one.
func (b *Tabs) resolveLocked(a protocol.Action) (int, *protocol.Error) {
	if a.TabID != nil {
		if _, ok := b.urls[*a.TabID]; !ok {
			return 0, protocol.Errorf(protocol.CodeTabNotFound, "no tab with id %d", *a.TabID)
		}
		return *a.TabID, nil
	}
	if len(b.order) == 0 {
		return 0, protocol.Errorf(protocol.CodeSessionNotFound, "no tab to act on")
	}
	return b.order[len(b.order)-1], nil
}

func (b *Tabs) use(tab int) {
	for i, t := range b.order {
		if t == tab {
			b.order = append(append(b.order[:i:i], b.order[i+1:]...), tab)
			return
		}
	}
}

func (b *Tabs) handle(a protocol.Action) (any, *protocol.Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch a.Type {
	case protocol.ActionOpenTab:
		id := b.openLocked(a.URL)
		u, _ := url.Parse(a.URL)
		return protocol.OpenTabResult{TabID: id, WindowID: 1, Domain: u.Hostname()}, nil
	case protocol.ActionGetTabs:
		out := []protocol.TabInfo{}
		for _, id := range b.order {
			u, _ := url.Parse(b.urls[id])
			out = append(out, protocol.TabInfo{TabID: id, URL: b.urls[id], Title: b.titles[id], Domain: u.Hostname()})
		}
		return out, nil
	case protocol.ActionCloseTab:
		if _, ok := b.urls[*a.TabID]; !ok {
			return nil, protocol.Errorf(protocol.CodeTabNotFound, "no tab with id %d", *a.TabID)
		}
		b.closeLocked(*a.TabID)
		return protocol.OKResult{OK: true}, nil
	}
	tab, err := b.resolveLocked(a)
	if err != nil {
		return nil, err
	}
	b.use(tab)
	if a.Type == protocol.ActionNavigate {
		b.urls[tab], b.titles[tab] = a.URL, "Page "+a.URL
	}
	return protocol.OKResult{OK: true, TabID: &tab}, nil
}
