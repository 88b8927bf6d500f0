package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestSeveralBrowsers: with the person's Chrome (user) and a second Chrome
// paired as work, `bua tabs` lists both browsers' tabs, each row naming
// its browser (a column, and browser in --json), `--browser work` lists
// work's alone (without the column), and `bua status` names the pairing and shows each
// connection's browser.
func TestSeveralBrowsers(t *testing.T) {
	h, user := startFake(t)
	work := h.ConnectAs(t, "work", bridgetest.Options{})
	tabs := func(id int, url string) bridgetest.Handler {
		return func(protocol.Action) (any, *protocol.Error) {
			return []protocol.TabInfo{{TabID: id, URL: url, Title: "t", Domain: "a.test"}}, nil
		}
	}
	user.Handle(protocol.ActionGetTabs, tabs(7, "https://a.test/mine"))
	work.Handle(protocol.ActionGetTabs, tabs(7, "https://a.test/work"))

	// Both browsers have a tab 7: their handles tell them apart.
	r := runCLI(t, h, "", "tabs")
	if r.code != 0 || r.stdout != "t1\t7\tuser\ta.test\tt\thttps://a.test/mine\nt2\t7\twork\ta.test\tt\thttps://a.test/work\n" {
		t.Fatalf("tabs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// One browser's tabs keep the columns of a single browser's, which
	// scripts cut: no browser column.
	r = runCLI(t, h, "", "tabs", "--browser", "work")
	if r.code != 0 || r.stdout != "t2\t7\ta.test\tt\thttps://a.test/work\n" {
		t.Fatalf("tabs --browser work: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, h, "", "tabs", "--json")
	var rows []struct {
		TabID   int    `json:"tabId"`
		URL     string `json:"url"`
		Browser string `json:"browser"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != 2 || rows[0].Browser != "user" || rows[1].Browser != "work" || rows[1].URL != "https://a.test/work" {
		t.Fatalf("tabs --json: exit %d, rows %+v\n%s", r.code, rows, r.stdout)
	}

	r = runCLI(t, h, "", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "named:      work (--browser NAME)") || !strings.Contains(r.stdout, "\nwork\tuser\t0.0.0-fake\t") {
		t.Fatalf("status: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, h, "", "status", "--json")
	var st bridge.Status
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || len(st.Connections) != 2 || st.Connections[1].Browser != "work" || len(st.Pairings) != 1 {
		t.Fatalf("status --json: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, h, "", "tabs", "--browser", "home")
	if r.code != exitUsage || !strings.Contains(r.stderr, "managed-15, work") {
		t.Fatalf("tabs --browser home (no such pairing): exit %d\n%s", r.code, r.stderr)
	}
}

// TestPairName: `bua pair --name NAME` writes that pairing's own token
// file, says how to reach it, and refuses a reserved or malformed name.
func TestPairName(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"BUA_HOME": home}
	r := runCLIEnv(t, nil, env, "", "pair", "--name", "work")
	if r.code != 0 || !strings.Contains(r.stdout, "--browser work") {
		t.Fatalf("pair --name work: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLIEnv(t, nil, env, "", "pair", "--name", "work", "--quiet")
	d, _ := dirs(&Env{Getenv: func(k string) string { return env[k] }})
	tok, err := bridge.ReadToken(bridge.PairingTokenFile(d, "work"))
	if r.code != 0 || tok == "" || strings.TrimSpace(r.stdout) != tok || err != nil {
		t.Fatalf("pair --name work --quiet: %q, file %q, %v", r.stdout, tok, err)
	}
	if user, _ := bridge.ReadToken(d.TokenFile()); user != "" {
		t.Errorf("pair --name wrote the default pairing's token too")
	}
	for _, bad := range []string{"managed", "user", "auto", "managed-2", "Work", "../x", ""} {
		r = runCLIEnv(t, nil, env, "", "pair", "--name", bad)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--name") {
			t.Errorf("pair --name %q: exit %d, stderr %q, want a usage error", bad, r.code, r.stderr)
		}
	}
}
