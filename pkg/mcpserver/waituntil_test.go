package mcpserver

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFirstNavigateWaitUntil: an agent's first navigate, which opens its
// tab, passes waitUntil on as every later one does (the daemon sends
// open_tab for it).
func TestFirstNavigateWaitUntil(t *testing.T) {
	f := start(t, Options{}, nil)
	res, text := f.call(t, map[string]any{"action": "navigate", "url": "https://a.test/", "waitUntil": "commit"})
	if res.IsError {
		t.Fatal(text)
	}
	f.call(t, map[string]any{"action": "navigate", "url": "https://a.test/2", "waitUntil": "domcontentloaded"})
	var got []string
	for _, r := range f.ext.Requests() {
		if r.Type == protocol.ActionOpenTab || r.Type == protocol.ActionNavigate {
			got = append(got, string(r.Type)+" "+r.WaitUntil)
		}
	}
	if want := []string{"open_tab commit", "navigate domcontentloaded"}; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("sent %q, want %q", got, want)
	}
}
