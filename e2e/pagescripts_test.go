package e2e

import (
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestPageScriptsLeaveNoGlobals: the page scripts the extension sends
// (extension/src/generated/page.js: extract's read, a changes read,
// describe, wait_for's probe) run in closures of their own, in real
// Chromium: a page that watches the names they use, and its window's
// properties, sees none of them read or set, and nothing added.
func TestPageScriptsLeaveNoGlobals(t *testing.T) {
	cl := benchClient(t)
	tab := openOn(t, cl, siteURL("mcp/signin.html"))
	evalOn(t, cl, tab, `
const touched = [];
Object.defineProperty(window, "__touched", { value: touched });
for (const name of ["__buaRun", "__bua", "run", "readPage", "readFrame", "listChanges", "describeElement", "probe",
  "collectElements", "toMarkdown", "domToTree", "__defProp", "__export"]) {
  Object.defineProperty(window, name, {
    configurable: true,
    get() { touched.push("read " + name); },
    set() { touched.push("set " + name); },
  });
}
Object.defineProperty(window, "__before", { value: null, writable: true });
window.__before = Object.getOwnPropertyNames(window);
return true`)

	var ex protocol.ExtractResult
	send(t, cl, map[string]any{"type": "extract", "tabId": tab}, &ex)
	if len(ex.Elements) == 0 {
		t.Fatalf("extract listed no elements: %+v", ex)
	}
	send(t, cl, map[string]any{"type": "extract", "tabId": tab, "changes": true}, nil)
	send(t, cl, map[string]any{"type": "describe", "tabId": tab, "uid": ex.Elements[0].UID}, nil)
	send(t, cl, map[string]any{"type": "wait_for", "tabId": tab, "selector": "form"}, nil)
	send(t, cl, map[string]any{"type": "wait_for", "tabId": tab, "uid": ex.Elements[0].UID, "state": "attached"}, nil)
	send(t, cl, map[string]any{"type": "wait_for", "tabId": tab, "text": "Sign in"}, nil)

	got := evalOn(t, cl, tab, `return {
  touched: window.__touched,
  added: Object.getOwnPropertyNames(window).filter((n) => !window.__before.includes(n)),
}`)
	raw, _ := json.Marshal(got)
	var r struct {
		Touched []string `json:"touched"`
		Added   []string `json:"added"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("the page's record %s: %v", raw, err)
	}
	if len(r.Touched) > 0 || len(r.Added) > 0 {
		t.Errorf("the page scripts touched the page's window: %s", raw)
	}
}
