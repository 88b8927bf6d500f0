package bridgetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

// Harness is a real daemon running in-process on 127.0.0.1:0 with a
// private, short temp home, for tests.
type Harness struct {
	Daemon *bridge.Daemon
	Dirs   home.Dirs
	// UserToken and ManagedToken pair fakes as either kind.
	UserToken, ManagedToken string
}

// StartDaemon runs a daemon for the test's lifetime. cfg may be zero;
// Dirs defaults to a private, short temp home, and Listen is always set by
// the harness. t.Cleanup stops it.
func StartDaemon(t testing.TB, cfg bridge.Config) *Harness {
	t.Helper()
	if cfg.Dirs == (home.Dirs{}) {
		dir, err := os.MkdirTemp("", "bua") // short: the socket path must fit sun_path
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		cfg.Dirs = home.Dirs{Config: dir, State: dir, Runtime: dir}
	}
	cfg.Listen = "127.0.0.1:0"
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = "0.0.0-test"
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	user, err := bridge.EnsureToken(cfg.Dirs.TokenFile(), false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := bridge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, func() { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("daemon: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("daemon did not start")
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	managed, _ := bridge.ReadToken(cfg.Dirs.ManagedTokenFile())
	return &Harness{Daemon: d, Dirs: cfg.Dirs, UserToken: user, ManagedToken: managed}
}

// URL is the daemon's extension endpoint.
func (h *Harness) URL() string { return h.Daemon.URL() }

// Connect dials a fake extension paired as the user's browser.
func (h *Harness) Connect(t testing.TB) *Extension {
	t.Helper()
	return h.ConnectWith(t, Options{})
}

// ConnectWith dials a fake extension paired as the user's browser, with o's
// options; URL and Token default to the harness's.
func (h *Harness) ConnectWith(t testing.TB, o Options) *Extension {
	t.Helper()
	if o.URL == "" {
		o.URL = h.URL()
	}
	if o.Token == "" {
		o.Token = h.UserToken
	}
	e, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatalf("fake extension: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	waitConnected(t, h.Daemon.Pool(), bridge.SelectUser)
	return e
}

// ConnectAs dials a fake extension paired as the user pairing named name
// (`bua pair --name NAME`: its token file is made when missing), with o's
// options; URL and Token default to the harness's and that pairing's.
func (h *Harness) ConnectAs(t testing.TB, name string, o Options) *Extension {
	t.Helper()
	tok, err := bridge.EnsureToken(bridge.PairingTokenFile(h.Dirs, name), false)
	if err != nil {
		t.Fatal(err)
	}
	if o.URL == "" {
		o.URL = h.URL()
	}
	if o.Token == "" {
		o.Token = tok
	}
	e, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatalf("fake extension %s: %v", name, err)
	}
	t.Cleanup(func() { e.Close() })
	waitConnected(t, h.Daemon.Pool(), bridge.Selection(name))
	return e
}

// ClientFor dials the daemon like a CLI command with --browser sel.
func (h *Harness) ClientFor(t testing.TB, sel bridge.Selection) *bridge.Client {
	t.Helper()
	c, err := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Browser: sel})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ConnectManaged dials a fake extension paired as the managed browser.
func (h *Harness) ConnectManaged(t testing.TB) *Extension {
	t.Helper()
	e, err := Dial(context.Background(), Options{URL: h.URL(), Token: h.ManagedToken})
	if err != nil {
		t.Fatalf("fake extension: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	waitConnected(t, h.Daemon.Pool(), bridge.SelectManaged)
	return e
}

// Client dials the daemon's unix socket like a CLI command.
func (h *Harness) Client(t testing.TB) *bridge.Client {
	t.Helper()
	return h.ClientAs(t, "")
}

// ClientAs dials the daemon like an agent (bua mcp) whose requests name
// owner, so the daemon keeps them to owner's own tabs; "" is Client.
func (h *Harness) ClientAs(t testing.TB, owner string) *bridge.Client {
	t.Helper()
	c, err := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Owner: owner})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitConnected waits until the pool has attached the new connection: the
// ack is written before Attach runs.
func waitConnected(t testing.TB, p *bridge.Pool, sel bridge.Selection) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.WaitConn(ctx, sel); err != nil {
		t.Fatalf("extension never attached: %v", err)
	}
}
