package bridgetest

import (
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// fakeTraces is the fake's stand-in for the extension's per-tab trace
// rings (docs/extension.md §Trace), so runner tests can read a trace with
// get_trace: events added with Extension.Trace and one action event per
// action the fake served, bounded like the real ring by
// protocol.TraceMaxEvents (not by bytes).
type fakeTraces struct {
	mu    sync.Mutex
	rings map[int]*fakeRing
}

type fakeRing struct {
	events []protocol.TraceEvent
	next   int
}

// tabKey is the ring an action's events go to: its tabId, 0 without one.
func tabKey(tabID *int) int {
	if tabID == nil {
		return 0
	}
	return *tabID
}

func (f *fakeTraces) add(tab int, evs ...protocol.TraceEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rings == nil {
		f.rings = map[int]*fakeRing{}
	}
	r := f.rings[tab]
	if r == nil {
		r = &fakeRing{next: 1}
		f.rings[tab] = r
	}
	for _, ev := range evs {
		ev.Seq = r.next
		r.next++
		if ev.T == 0 {
			ev.T = float64(time.Now().UnixMilli())
		}
		r.events = append(r.events, ev)
		if len(r.events) > protocol.TraceMaxEvents {
			r.events = r.events[1:]
		}
	}
}

// read answers get_trace as the extension does (core/trace.js read).
func (f *fakeTraces) read(a protocol.Action) protocol.TraceResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	since := 0
	if a.SinceSeq != nil {
		since = *a.SinceSeq
	}
	res := protocol.TraceResult{Events: []protocol.TraceEvent{}, NextSeq: 1, TabID: a.TabID}
	r := f.rings[tabKey(a.TabID)]
	if r == nil {
		return res
	}
	res.NextSeq = r.next
	if since < 1 || since > r.next {
		since = 1
	}
	first := r.next
	if len(r.events) > 0 {
		first = r.events[0].Seq
	}
	res.Dropped = max(0, first-since)
	for _, ev := range r.events {
		if ev.Seq >= since {
			res.Events = append(res.Events, ev)
		}
	}
	return res
}

// Trace adds events to tab's trace ring (tab 0: actions sent without a
// tabId), as if the page had logged them; Seq is assigned, and T when it
// is zero.
func (e *Extension) Trace(tab int, evs ...protocol.TraceEvent) {
	e.traces.add(tab, evs...)
}

// recordAction adds the action event the extension records when an action
// ends: its type, duration and error code.
func (e *Extension) recordAction(a protocol.Action, took time.Duration, perr *protocol.Error) {
	if a.Type == protocol.ActionGetTrace || perr == Silent || perr == Hangup || perr == Malformed {
		return // get_trace is not traced, as in the extension; a failure mode never ended
	}
	ev := protocol.TraceEvent{Kind: protocol.TraceAction, Action: string(a.Type), DurationMs: int(took.Milliseconds())}
	if perr != nil {
		ev.Code = string(perr.Code)
	}
	e.traces.add(tabKey(a.TabID), ev)
}
