package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
)

// Launcher stands in for Chromium behind bridge.Config.Launch: each launch
// reads the pairing.json the daemon wrote into the extension copy, as the
// real extension does, and dials a fake Extension with its URL and token,
// so a managed browser of any name (managed, managed-N) connects as that
// name with no browser at all.
type Launcher struct {
	t testing.TB

	mu       sync.Mutex
	browsers []*FakeBrowser
}

// NewLauncher returns a Launcher whose fakes close when t ends.
func NewLauncher(t testing.TB) *Launcher { return &Launcher{t: t} }

// FakeBrowser is one launch: its options, its pairing and its fake
// extension.
type FakeBrowser struct {
	Opts    bridge.LaunchOptions
	Pairing bridge.Pairing

	ext   *Extension
	ready chan struct{} // closed once the extension dialled (ext set) or failed to
	once  sync.Once
	done  chan struct{}
}

// Ext is the browser's fake extension, once it has dialled the daemon (nil
// if it could not): it waits for the dial, which runs after Launch returns
// as a real browser's extension connects after its launch.
func (b *FakeBrowser) Ext() *Extension {
	<-b.ready
	return b.ext
}

// Launch implements bridge.Launcher.
func (l *Launcher) Launch(ctx context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
	data, err := os.ReadFile(filepath.Join(o.ExtensionDir, "pairing.json"))
	if err != nil {
		return nil, err
	}
	b := &FakeBrowser{Opts: o, done: make(chan struct{}), ready: make(chan struct{})}
	if err := json.Unmarshal(data, &b.Pairing); err != nil {
		return nil, fmt.Errorf("pairing.json: %w", err)
	}
	// Connect after the launch returns, as a browser's extension does.
	go func() {
		defer close(b.ready)
		ext, err := Dial(context.Background(), Options{URL: b.Pairing.URL, Token: b.Pairing.Token})
		if err != nil {
			l.t.Errorf("fake browser on %s: %v", o.ProfileDir, err)
			return
		}
		b.ext = ext
		go func() {
			<-b.done
			ext.Close()
		}()
	}()
	l.mu.Lock()
	l.browsers = append(l.browsers, b)
	l.mu.Unlock()
	l.t.Cleanup(func() {
		<-b.ready
		b.Kill()
	})
	return b, nil
}

// Launched lists the launches so far, in order.
func (l *Launcher) Launched() []*FakeBrowser {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*FakeBrowser(nil), l.browsers...)
}

// Pid implements bridge.BrowserProcess: no process, so the daemon records
// none (browser.Identify fails).
func (b *FakeBrowser) Pid() int { return 1 }

// Kill ends the fake as a crash would: its extension's connection closes
// and Done is closed.
func (b *FakeBrowser) Kill() { b.once.Do(func() { close(b.done) }) }

// Stop implements bridge.BrowserProcess.
func (b *FakeBrowser) Stop(context.Context) error {
	b.Kill()
	return nil
}

// Done implements bridge.BrowserProcess.
func (b *FakeBrowser) Done() <-chan struct{} { return b.done }

// Err implements bridge.BrowserProcess.
func (b *FakeBrowser) Err() error { return nil }
