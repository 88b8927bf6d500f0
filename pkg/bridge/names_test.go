package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Several browsers per daemon (docs/architecture.md#several-browsers):
// the pool keys its connections by the browser's name, which the daemon
// reads from the hello's token: user, a named user pairing, managed or
// managed-N.

func TestParseSelection(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bridge.Selection
		err  string
	}{
		{"", bridge.SelectAuto, ""},
		{"auto", bridge.SelectAuto, ""},
		{"user", bridge.SelectUser, ""},
		{"extension", bridge.SelectUser, ""},
		{"managed", bridge.SelectManaged, ""},
		{"managed-1", "managed-1", ""},
		{"managed-15", "managed-15", ""},
		{"work", "work", ""},
		{"home-2", "home-2", ""},
		{"managed-16", "", "managed-1 … managed-15"},
		{"managed-01", "", "managed-1 … managed-15"},
		{"managed-x", "", "managed-1 … managed-15"},
		{"Work", "", "the name of a pairing"},
		{"a b", "", "the name of a pairing"},
		{"2fa", "", "the name of a pairing"},
	} {
		got, err := bridge.ParseSelection(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseSelection(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseSelection(%q) = %q, %v; want an error naming %q", tc.in, got, err, tc.err)
		}
	}
}

func TestCheckPairingName(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  string // "" for a good name
	}{
		{"work", ""},
		{"home-2", ""},
		{"a", ""},
		{strings.Repeat("x", 32), ""},
		{"", "cannot be empty"},
		{strings.Repeat("x", 33), "1 to 32 lowercase letters"},
		{"Work", "1 to 32 lowercase letters"},
		{"my_chrome", "1 to 32 lowercase letters"},
		{"2fa", "starting with a letter"},
		{"../token", "1 to 32 lowercase letters"},
		{"auto", "reserved"},
		{"user", "reserved"},
		{"managed", "reserved"},
		{"extension", "reserved"},
		{"managed-3", "reserved"},
		{"managed-x", "reserved"},
	} {
		err := bridge.CheckPairingName(tc.name)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("CheckPairingName(%q) = %v, want ok", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CheckPairingName(%q) = %v, want an error with %q", tc.name, err, tc.err)
		}
	}
	for i := range bridge.MaxManaged {
		if n := bridge.ManagedName(i); !bridge.IsManaged(n) || (i == 0) != (n == "managed") {
			t.Errorf("ManagedName(%d) = %q, IsManaged %v", i, n, bridge.IsManaged(n))
		}
	}
	if bridge.IsManaged(bridge.ManagedName(bridge.MaxManaged)) {
		t.Errorf("%s is past MaxManaged and still managed", bridge.ManagedName(bridge.MaxManaged))
	}
}

// TestManagedBrowsersByName: a request naming managed-2 launches a managed
// browser of its own (profile, extension copy and token apart from
// managed's), and is served by it alone; status lists both, by name; when
// managed-2's browser dies, the next request for it launches a new one.
func TestManagedBrowsersByName(t *testing.T) {
	l := bridgetest.NewLauncher(t)
	h := bridgetest.StartDaemon(t, bridge.Config{Launch: l.Launch, Getenv: func(k string) string {
		if k == "CI" {
			return "true"
		}
		return ""
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	two, def := h.ClientFor(t, "managed-2"), h.ClientFor(t, bridge.SelectAuto)
	if _, err := two.Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on managed-2: %v", err)
	}
	if _, err := def.Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on auto (CI: managed): %v", err)
	}
	launched := l.Launched()
	if len(launched) != 2 {
		t.Fatalf("%d launches, want managed-2's and managed's", len(launched))
	}
	b2, b0 := launched[0], launched[1]
	if want := filepath.Join(h.Dirs.BrowsersDir(), "managed-2", "profile"); b2.Opts.ProfileDir != want {
		t.Errorf("managed-2's profile = %s, want %s", b2.Opts.ProfileDir, want)
	}
	if want := bridge.ManagedProfile(h.Dirs); b0.Opts.ProfileDir != want {
		t.Errorf("managed's profile = %s, want %s", b0.Opts.ProfileDir, want)
	}
	if b2.Opts.ExtensionDir == b0.Opts.ExtensionDir || b2.Pairing.Token == b0.Pairing.Token || b2.Pairing.Token == "" {
		t.Errorf("managed-2 shares managed's extension copy or token: %s %s", b2.Opts.ExtensionDir, b0.Opts.ExtensionDir)
	}
	if n0, n2 := len(b0.Ext().Requests()), len(b2.Ext().Requests()); n0 != 1 || n2 != 1 {
		t.Errorf("requests: managed got %d, managed-2 got %d; want one each", n0, n2)
	}
	st, err := def.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var conns, managed []string
	for _, c := range st.Connections {
		conns = append(conns, c.Browser+"/"+string(c.Kind))
	}
	for _, m := range st.ManagedBrowsers {
		managed = append(managed, m.Name)
	}
	if !slices.Equal(conns, []string{"managed/managed", "managed-2/managed"}) || !slices.Equal(managed, []string{"managed", "managed-2"}) {
		t.Errorf("status: connections %v, managed browsers %v", conns, managed)
	}

	b2.Kill()
	// A request sent before the daemon has seen the connection end fails
	// (its browser is dying); the next one after that launches anew.
	for gone := false; !gone; {
		st, err := def.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gone = !slices.ContainsFunc(st.Connections, func(c bridge.ConnStatus) bool { return c.Browser == "managed-2" })
		if !gone {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := two.Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on managed-2 after its browser died: %v", err)
	}
	launched = l.Launched()
	if len(launched) != 3 || launched[2].Opts.ProfileDir != b2.Opts.ProfileDir || len(launched[2].Ext().Requests()) != 1 {
		t.Fatalf("after managed-2 died: %d launches; want a third, on managed-2's profile, serving the request", len(launched))
	}
	if n := len(b0.Ext().Requests()); n != 1 {
		t.Errorf("managed got %d requests, want its one: another browser's death must not move requests to it", n)
	}
}

// TestNamedPairing: a Chrome paired as work (its own token file) is the
// browser work: the daemon knows it by its token at hello, requests that
// name it reach it alone, auto still means user, status lists it, and a
// pairing code minted for a name claims that pairing's token. An unknown
// name is refused with the names there are.
func TestNamedPairing(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{ConnectGrace: 50 * time.Millisecond})
	user := h.Connect(t)
	work := h.ConnectAs(t, "work", bridgetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.ClientFor(t, "work").Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on work: %v", err)
	}
	if _, err := h.ClientFor(t, bridge.SelectAuto).Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on auto: %v", err)
	}
	if nu, nw := len(user.Requests()), len(work.Requests()); nu != 1 || nw != 1 {
		t.Errorf("requests: user got %d, work got %d; want one each (auto is user)", nu, nw)
	}
	st, err := h.Client(t).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var conns []string
	for _, c := range st.Connections {
		conns = append(conns, c.Browser+"/"+string(c.Kind))
	}
	if !slices.Equal(conns, []string{"user/user", "work/user"}) || !slices.Equal(st.Pairings, []string{"work"}) {
		t.Errorf("status: connections %v, pairings %v", conns, st.Pairings)
	}

	_, perr := h.ClientFor(t, "home").Request(ctx, protocol.GetTabs())
	if perr == nil || perr.Code != protocol.CodeInvalidAction || perr.Reason != protocol.ReasonRefused || !strings.Contains(perr.Message, "managed-15, work") {
		t.Fatalf("unknown pairing home: %+v, want invalid_action listing work", perr)
	}

	pc, perr := h.Client(t).PairCode(ctx, "home")
	if perr != nil {
		t.Fatal(perr)
	}
	body, _ := json.Marshal(bridge.ClaimRequest{Code: pc.Code})
	req, _ := http.NewRequest("POST", "http://"+h.Daemon.Addr()+"/pair/claim", bytes.NewReader(body))
	req.Header.Set("Origin", extension.Origin)
	resp, herr := http.DefaultClient.Do(req)
	if herr != nil {
		t.Fatal(herr)
	}
	defer resp.Body.Close()
	var cr bridge.ClaimResponse
	_ = json.NewDecoder(resp.Body).Decode(&cr)
	homeTok, _ := bridge.ReadToken(bridge.PairingTokenFile(h.Dirs, "home"))
	if resp.StatusCode != http.StatusOK || cr.Token != homeTok || homeTok == "" || homeTok == h.UserToken {
		t.Fatalf("claim of home's code: %d, token %q; want home's own token %q", resp.StatusCode, cr.Token, homeTok)
	}
	if err := home.CheckPrivate(bridge.PairingTokenFile(h.Dirs, "home")); err != nil {
		t.Errorf("home's token file: %v", err)
	}
	_, perr = h.ClientFor(t, "home").Request(ctx, protocol.GetTabs())
	if perr == nil || perr.Code != protocol.CodeBridgeUnavailable || !strings.Contains(perr.Message, `paired as "home" is not connected`) {
		t.Fatalf("home, paired but not connected: %+v, want bridge_unavailable naming it", perr)
	}
	if _, err := h.Client(t).PairCode(ctx, "managed-2"); err == nil || err.Code != protocol.CodeInvalidAction {
		t.Errorf("a pairing code for managed-2: %v, want invalid_action", err)
	}
}

// TestHoldResumesByName: a request held for a reconnect is resumed by the
// same browser's extension instance only. Two pairings whose extensions
// happen to name the same instance are two browsers: home's reconnect
// does not take work's held click; work's reconnect does, and the click
// runs once.
func TestHoldResumesByName(t *testing.T) {
	h, _ := replayDaemon(t, 0)
	home := h.ConnectAs(t, "home", bridgetest.Options{Instance: "same"})
	work := h.ConnectAs(t, "work", bridgetest.Options{Instance: "same"})
	var runs atomic.Int32
	work.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		runs.Add(1)
		work.Drop()
		go func() {
			home.Drop()
			if err := home.Redial(context.Background()); err != nil {
				t.Errorf("home: reconnect: %v", err)
			}
			time.Sleep(300 * time.Millisecond) // work's reconnect comes after home's
			if err := work.Redial(context.Background()); err != nil {
				t.Errorf("work: reconnect: %v", err)
			}
		}()
		return bridgetest.OK(a)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := h.ClientFor(t, "work").Request(ctx, protocol.Click(protocol.Target{UID: "e1"}))
	if err != nil || !strings.Contains(string(res), `"ok":true`) {
		t.Fatalf("click on work across a reconnect: %s, %v", res, err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the click ran %d times, want once", n)
	}
	assertResent(t, work)
	if n := len(home.Requests()); n != 0 {
		t.Fatalf("home got %d requests: work's held click went to another browser", n)
	}
}

// TestManagedBrowserDiesMidRequest: a managed browser that dies while it
// runs a request fails that request with bridge_unavailable, reason
// outcome_unknown (no browser is there to answer, and the action may have
// run): the flow a parallel run's worker was running fails so, and the
// worker's next request launches a new browser on the same profile.
func TestManagedBrowserDiesMidRequest(t *testing.T) {
	l := bridgetest.NewLauncher(t)
	h := bridgetest.StartDaemon(t, bridge.Config{Launch: l.Launch})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := h.ClientFor(t, "managed-1")
	if _, err := cl.Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs on managed-1: %v", err)
	}
	b := l.Launched()[0]
	running := make(chan struct{})
	b.Ext().Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		close(running)
		return nil, bridgetest.Silent
	})
	go func() {
		<-running
		b.Kill()
	}()
	_, err := cl.Request(ctx, protocol.Action{Type: protocol.ActionClick, Selector: "#go"})
	if err == nil || err.Code != protocol.CodeBridgeUnavailable || err.Reason != protocol.ReasonOutcomeUnknown || !strings.Contains(err.Message, "managed-1 exited") {
		t.Fatalf("click whose browser died: %v (reason %q), want bridge_unavailable, outcome_unknown, naming managed-1", err, errReason(err))
	}
	if _, err := cl.Request(ctx, protocol.GetTabs()); err != nil {
		t.Fatalf("get_tabs after the death: %v", err)
	}
	if n := len(l.Launched()); n != 2 || l.Launched()[1].Opts.ProfileDir != b.Opts.ProfileDir {
		t.Errorf("%d launches; want a second, on managed-1's profile", n)
	}
}

func errReason(err *protocol.Error) string {
	if err == nil {
		return ""
	}
	return err.Reason
}
