package render

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestTraceLineActionStack: an action that failed with internal_error
// prints its stack after its timing, on one line; one that did not prints
// no text.
func TestTraceLineActionStack(t *testing.T) {
	ev := protocol.TraceEvent{Kind: protocol.TraceAction, Action: "navigate", DurationMs: 12, Code: "internal_error",
		Text: "BridgeError: the page could not be loaded\n    at navigate (src/actions/nav.js:137:13)"}
	got := TraceLine(ev)
	if want := "internal_error navigate 12ms: BridgeError: the page could not be loaded ⏎ at navigate (src/actions/nav.js:137:13)"; !strings.HasSuffix(got, want) {
		t.Errorf("TraceLine = %q, want it to end %q", got, want)
	}
	ev.Code, ev.Text = "", ""
	if got := TraceLine(ev); !strings.HasSuffix(got, "action     ok       navigate 12ms") {
		t.Errorf("TraceLine = %q", got)
	}
}
