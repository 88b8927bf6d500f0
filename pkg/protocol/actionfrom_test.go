package protocol_test

import (
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestActionFrom: Go values take their param's kind, raw JSON passes as
// it is, target reads as a uid or a selector, and a refusal names the
// field and returns what the params built.
func TestActionFrom(t *testing.T) {
	a, err := protocol.ActionFrom("wait_for", map[string]any{"target": "e3", "timeoutMs": "250"})
	if err != nil || a.UID != "e3" || a.TimeoutMs == nil || *a.TimeoutMs != 250 {
		t.Fatalf("wait_for: %+v, %v", a, err)
	}
	a, err = protocol.ActionFrom("select_option", map[string]any{"target": "#s", "index": 2.0})
	if err != nil || a.Selector != "#s" || len(a.Index) != 1 || a.Index[0] != 2 {
		t.Fatalf("select_option: %+v, %v", a, err)
	}
	a, err = protocol.ActionFrom("scroll", map[string]any{"direction": json.RawMessage(`"down"`), "amount": json.RawMessage(`3`)})
	if err != nil || a.Direction != "down" || a.Amount == nil || *a.Amount != 3 {
		t.Fatalf("scroll: %+v, %v", a, err)
	}
	a, err = protocol.ActionFrom("select_option", map[string]any{"target": "#s", "value": "b"})
	if err != nil || len(a.Value) != 1 || a.Value[0] != "b" {
		t.Fatalf("select_option value: %+v, %v", a, err)
	}
	a, err = protocol.ActionFrom("type", map[string]any{"target": "#q", "text": "", "clear": "true"})
	if err != nil || a.Text == nil || *a.Text != "" || !a.Clear {
		t.Fatalf("type: %+v, %v", a, err)
	}
	a, err = protocol.ActionFrom("wait_for", map[string]any{"selector": json.RawMessage(`"#a"`), "timeoutMs": json.RawMessage(`"soon"`)})
	if err == nil || err.Schema == nil || err.Schema.Path != "action.timeoutMs" {
		t.Fatalf("raw timeoutMs soon: %+v, %+v", a, err)
	}
	a, err = protocol.ActionFrom("navigate", map[string]any{"url": "javascript:alert(1)"})
	if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused || err.Schema == nil || err.Schema.Path != "action.url" || a.URL != "javascript:alert(1)" {
		t.Fatalf("navigate javascript: %+v, %+v", a, err)
	}
	if _, err = protocol.ActionFrom("click", map[string]any{"target": "#a", "text": "x"}); err == nil {
		t.Error("click with text: no error")
	}
	if _, err = protocol.ActionFrom("wait_for", map[string]any{"target": "#a", "timeoutMs": "soon"}); err == nil || err.Reason != "" {
		t.Errorf("timeoutMs soon: %+v", err)
	}
	if _, err = protocol.ActionFrom("drag", nil); err == nil {
		t.Error("drag: no error")
	}
}
