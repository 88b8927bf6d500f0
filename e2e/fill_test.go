package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestTypeClearFills: type with clear: true sets the value of a field no
// one types into, as a fill does (Chrome Recorder's change step, which
// bua import writes as this one step): a <select>'s option by value or by
// label (whitespace in the text collapsed as in the label, and nothing
// else: "Tall glas" is no "Tall glass"), a date or color input's value, each firing input then change; a
// text field is still typed into. A value the field cannot take is
// invalid_action, and leaves it as it was.
func TestTypeClearFills(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("fill.html"))
	events := func() string {
		return fmt.Sprint(evalOn(t, cl, tab, "const e = window.events.join('; '); window.events = []; return e"))
	}
	for _, tc := range []struct {
		sel, text, value, events string
	}{
		{"#size", "m", "m", "size:input=m; size:change=m"},
		{"#size", "Large", "l", "size:input=l; size:change=l"},
		{"#cup", " Tall \t glass ", "t", "cup:input=t; cup:change=t"},
		{"#day", "2024-02-29", "2024-02-29", "day:input=2024-02-29; day:change=2024-02-29"},
		{"#colour", "#333333", "#333333", "colour:input=#333333; colour:change=#333333"},
		{"#name", "new", "new", "name:input=; name:input=new"},
	} {
		send(t, cl, map[string]any{"type": "type", "tabId": tab, "selector": tc.sel, "text": tc.text, "clear": true}, nil)
		if got := fmt.Sprint(evalOn(t, cl, tab, fmt.Sprintf("return document.querySelector(%q).value", tc.sel))); got != tc.value {
			t.Errorf("type %q into %s: value %q, want %q", tc.text, tc.sel, got, tc.value)
		}
		if got := events(); got != tc.events {
			t.Errorf("type %q into %s: events %q, want %q", tc.text, tc.sel, got, tc.events)
		}
	}
	for _, tc := range []struct{ sel, text, want string }{
		{"#size", "Huge", `no option whose value or label is "Huge" (values: s, m, l)`},
		{"#cup", "Tall glas", `no option whose value or label is "Tall glas" (values: t, m)`},
		{"#day", "tomorrow", `"tomorrow" is not a value an <input type=date> takes`},
	} {
		err := actErr(t, cl, map[string]any{"type": "type", "tabId": tab, "selector": tc.sel, "text": tc.text, "clear": true})
		if err == nil || err.Code != protocol.CodeInvalidAction || !strings.Contains(err.Message, tc.want) {
			t.Errorf("type %q into %s: %v, want invalid_action %q", tc.text, tc.sel, err, tc.want)
		}
	}
	if got := fmt.Sprint(evalOn(t, cl, tab, "return [size.value, day.value].join()")); got != "l,2024-02-29" {
		t.Errorf("after the refused values: %s, want l,2024-02-29 (unchanged)", got)
	}
}
