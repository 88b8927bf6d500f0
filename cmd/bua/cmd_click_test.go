package main

import (
	"strings"
	"testing"
)

// TestClickButtonAndCount: bua click's --button and --click-count reach the
// action, and a button the schema does not know is refused before it is
// sent (exit 2, naming the values it takes).
func TestClickButtonAndCount(t *testing.T) {
	h, ext := startFake(t)
	if r := runCLI(t, h, "", "click", "#input", "--button", "right", "--click-count", "2"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := ext.Requests()[0]; got.Button != "right" || got.ClickCount == nil || *got.ClickCount != 2 {
		t.Fatalf("sent %+v", got)
	}
	if r := runCLI(t, h, "", "click", "--role", "button", "--name", "Go"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := ext.Requests()[1]; got.Button != "" || got.ClickCount != nil {
		t.Errorf("a plain click sent button %q, clickCount %v", got.Button, got.ClickCount)
	}
	r := runCLI(t, h, "", "click", "#input", "--button", "secondary")
	if r.code != 2 || !strings.Contains(r.stderr, `"left", "middle", "right", "back", "forward"`) {
		t.Errorf("--button secondary: exit %d: %s", r.code, r.stderr)
	}
	if n := len(ext.Requests()); n != 2 {
		t.Errorf("the refused click was sent: %d requests", n)
	}
}
