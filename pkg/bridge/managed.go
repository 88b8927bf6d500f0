package bridge

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Launcher starts a browser with the extension at o.ExtensionDir loaded.
// pkg/browser provides the real one; the daemon only needs this much.
type Launcher func(ctx context.Context, o LaunchOptions) (BrowserProcess, error)

// LaunchOptions are a Launcher's inputs.
type LaunchOptions struct {
	Exec         string // browser executable; "" lets the launcher find one
	Headless     bool
	ProfileDir   string
	ExtensionDir string
	Log          io.Writer // the browser's stderr
}

// BrowserProcess is a running managed browser.
type BrowserProcess interface {
	Pid() int
	Stop(ctx context.Context) error
	Done() <-chan struct{}
}

// BrowserOptions are `bua browser start`'s flags.
type BrowserOptions struct {
	Headless bool     `json:"headless"`
	Block    []string `json:"block,omitempty"`   // blocklist seed, e.g. blocked.localhost
	Chrome   string   `json:"chrome,omitempty"`  // executable; "" finds one
	Profile  string   `json:"profile,omitempty"` // profile dir; "" is under BUA_HOME
}

// Pairing is the pairing.json the daemon writes beside a managed copy of
// the extension: the extension reads it at start-up, so the URL (and port)
// always comes from the daemon that launched it, never from a constant.
type Pairing struct {
	Kind      Kind     `json:"kind"`
	URL       string   `json:"url"`
	Token     string   `json:"token"`
	Blocklist []string `json:"blocklist,omitempty"`
}

// ManagedStatus describes the managed browser for `bua status`.
type ManagedStatus struct {
	Running   bool           `json:"running"`
	PID       int            `json:"pid,omitempty"`
	StartedAt time.Time      `json:"startedAt,omitzero"`
	Options   BrowserOptions `json:"options"`
}

type managedBrowser struct {
	mu      sync.Mutex
	proc    BrowserProcess
	started time.Time
	opts    BrowserOptions
}

func (m *managedBrowser) running() bool {
	if m.proc == nil {
		return false
	}
	select {
	case <-m.proc.Done():
		return false
	default:
		return true
	}
}

func (m *managedBrowser) status() ManagedStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		return ManagedStatus{}
	}
	return ManagedStatus{Running: true, PID: m.proc.Pid(), StartedAt: m.started, Options: m.opts}
}

// start launches the managed browser unless one is running.
func (m *managedBrowser) start(d *Daemon, o BrowserOptions) *protocol.Error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running() {
		return nil
	}
	if d.cfg.Launch == nil {
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "this daemon cannot launch browsers")
	}
	dirs := d.cfg.Dirs
	tok, err := EnsureToken(dirs.ManagedTokenFile(), false)
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "managed token: %v", err)
	}
	pairing, _ := json.MarshalIndent(Pairing{Kind: KindManaged, URL: d.URL(), Token: tok, Blocklist: o.Block}, "", "  ")
	base := dirs.BrowserDir()
	extDir := filepath.Join(base, "extension")
	_ = os.RemoveAll(extDir) // a stale copy from an older binary must not load
	if _, err := extension.WriteTo(extDir, map[string][]byte{"pairing.json": pairing}); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "write extension: %v", err)
	}
	profile := o.Profile
	if profile == "" {
		profile = filepath.Join(base, "profile")
	}
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "profile: %v", err)
	}
	logf, err := os.OpenFile(filepath.Join(base, "browser.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "browser log: %v", err)
	}
	// The browser outlives the request that launched it.
	proc, err := d.cfg.Launch(context.Background(), LaunchOptions{
		Exec: o.Chrome, Headless: o.Headless, ProfileDir: profile, ExtensionDir: extDir, Log: logf,
	})
	if err != nil {
		logf.Close()
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "launch browser: %v", err)
	}
	go func() { <-proc.Done(); logf.Close() }()
	m.proc, m.started, m.opts = proc, time.Now(), o
	d.log.Info("managed browser launched", "pid", proc.Pid(), "headless", o.Headless, "profile", profile)
	return nil
}

func (m *managedBrowser) stop(ctx context.Context) bool {
	m.mu.Lock()
	proc := m.proc
	m.proc = nil
	m.mu.Unlock()
	if proc == nil {
		return false
	}
	_ = proc.Stop(ctx)
	return true
}
