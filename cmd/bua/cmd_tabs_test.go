package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestClickSaysWhereItWent: an input's line says where it went, with the
// tabs by the handles the daemon gives them (t1, t2): the URL it
// navigated to, the tab it opened with that tab's URL, or neither; --quiet
// prints the opened tab's id alone. The handle then works as --tab, and
// one the daemon never gave says what to do.
func TestClickSaysWhereItWent(t *testing.T) {
	h, ext := startFake(t)
	tab, newTab := 660577608, 660577611
	ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		r := protocol.OKResult{OK: true, TabID: &tab}
		switch a.Selector {
		case "#next":
			r.URL = "https://a.test/welcome"
		case "#blank":
			r.NewTabID, r.NewTabURL = &newTab, "https://a.test/new?x=1&y=2"
		case "#both":
			r.URL, r.NewTabID, r.NewTabURL = "https://a.test/a#b", &newTab, "https://a.test/new"
		}
		return r, nil
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"click", "#stay"}, "ok (t1)\n"},
		{[]string{"click", "#next"}, "ok: navigated to https://a.test/welcome (t1)\n"},
		{[]string{"click", "#blank"}, "ok: opened t2 https://a.test/new?x=1&y=2 (act on it with --tab t2)\n"},
		{[]string{"click", "#both"}, "ok: navigated to https://a.test/a#b (t1); opened t2 https://a.test/new (act on it with --tab t2)\n"},
		{[]string{"click", "-q", "#blank"}, "660577611\n"},
		{[]string{"click", "-q", "#stay"}, ""},
	} {
		if r := runCLI(t, h, "", tc.args...); r.code != 0 || r.stdout != tc.want {
			t.Errorf("bua %s: exit %d, stdout %q, want %q", strings.Join(tc.args, " "), r.code, r.stdout, tc.want)
		}
	}

	// --tab t2 is the opened tab's id on the wire; --tab with the id works
	// as before.
	for _, arg := range []string{"t2", "660577611"} {
		if r := runCLI(t, h, "", "eval", "--tab", arg, "return 1"); r.code != 0 {
			t.Fatalf("eval --tab %s: exit %d\n%s", arg, r.code, r.stderr)
		}
		if got := ext.Requests()[len(ext.Requests())-1]; got.Type != protocol.ActionEvaluate || got.TabID == nil || *got.TabID != newTab {
			t.Errorf("eval --tab %s sent %+v, want evaluate on tab %d", arg, got, newTab)
		}
	}
	sent := len(ext.Requests())
	r := runCLI(t, h, "", "eval", "--tab", "t9", "return 1")
	if r.code != exitFailure || !strings.Contains(r.stderr, "no tab t9: bua tabs lists them") {
		t.Errorf("eval --tab t9 (no such handle): exit %d, stderr %q", r.code, r.stderr)
	}
	if len(ext.Requests()) != sent {
		t.Errorf("an unknown handle was sent to the browser")
	}
}

// TestTabsHandles: `bua tabs` starts each row with the tab's handle, then
// its id; close takes the handle, after which the handle names nothing.
func TestTabsHandles(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionGetTabs, func(protocol.Action) (any, *protocol.Error) {
		return []protocol.TabInfo{{TabID: 660577608, URL: "https://a.test/", Title: "A", Domain: "a.test"}, {TabID: 42, URL: "https://b.test/", Title: "B", Domain: "b.test"}}, nil
	})
	ext.Handle(protocol.ActionCloseTab, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.OKResult{OK: true, TabID: a.TabID}, nil
	})
	want := "t1\t660577608\ta.test\tA\thttps://a.test/\nt2\t42\tb.test\tB\thttps://b.test/\n"
	for range 2 { // the same handles the second time
		if r := runCLI(t, h, "", "tabs"); r.code != 0 || r.stdout != want {
			t.Fatalf("tabs: exit %d\n%s%s\nwant\n%s", r.code, r.stdout, r.stderr, want)
		}
	}
	if r := runCLI(t, h, "", "close", "t2"); r.code != 0 || r.stdout != "closed (t2)\n" {
		t.Errorf("close t2: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := ext.Requests()[len(ext.Requests())-1]; got.Type != protocol.ActionCloseTab || got.TabID == nil || *got.TabID != 42 {
		t.Errorf("close t2 sent %+v, want close_tab of tab 42", got)
	}
	if r := runCLI(t, h, "", "close", "t2"); r.code != exitFailure || !strings.Contains(r.stderr, "no tab t2: bua tabs lists them") {
		t.Errorf("close t2 again: exit %d, stderr %q", r.code, r.stderr)
	}
}
