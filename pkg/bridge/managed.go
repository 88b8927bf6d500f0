package bridge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
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
	// DownloadDir is where the browser saves downloads without asking
	// (home.Dirs.Downloads).
	DownloadDir string
	Log         io.Writer // the browser's stderr
}

// BrowserProcess is a running managed browser.
type BrowserProcess interface {
	Pid() int // the browser's pid, which leads its process group
	Stop(ctx context.Context) error
	// Kill ends the browser and its helpers at once, without letting it
	// write its profile back, and does not wait: Stop still reaps it.
	Kill()
	Done() <-chan struct{}
	// Err is how the process exited, once Done is closed: nil for exit
	// status 0, else an error reading like "exit status 3"; nil while it
	// runs.
	Err() error
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

// ManagedStatus describes a managed browser for `bua status`.
type ManagedStatus struct {
	// Name is the browser's name: managed, managed-1, … (names.go).
	Name      string         `json:"name,omitempty"`
	Running   bool           `json:"running"`
	PID       int            `json:"pid,omitempty"`
	StartedAt time.Time      `json:"startedAt,omitzero"`
	Options   BrowserOptions `json:"options"`
	// Orphan marks a browser this daemon did not launch: one recorded in
	// its record (home.Dirs.BrowserRecord for managed, the same file in
	// its own folder for managed-N) by a daemon that died without
	// stopping it.
	// Running and PID describe it; Options are unknown.
	Orphan bool `json:"orphan,omitempty"`
	// Profile is the browser's profile dir, when known.
	Profile string `json:"profile,omitempty"`
	// RecordError, when set, says the browser record
	// (home.Dirs.BrowserRecord) is unreadable (browser.ErrCorruptRecord):
	// an orphan was then found by its command line (OrphanArgs), and
	// `bua browser stop` moves the record aside.
	RecordError string `json:"recordError,omitempty"`
}

// ManagedProfile is the managed browser's profile dir when `bua browser
// start --profile` names none.
func ManagedProfile(dirs home.Dirs) string {
	return managedPathsFor(dirs, string(SelectManaged)).profile
}

// managedPaths are where one managed browser keeps its files: managed's
// in home.Dirs.BrowserDir, managed-N's in a folder of its own under
// home.Dirs.BrowsersDir, laid out alike, so each has its own profile
// (cookies and storage: a parallel run's workers are isolated as
// Playwright's browser contexts are), extension copy (and so pairing.json
// and token), log and record.
type managedPaths struct {
	name    string
	base    string
	profile string // the default profile (--profile may name another)
	ext     string // the extension copy the browser loads
	record  string // its browser.Record
	log     string // its stderr
	// tokenFile holds managed's pairing token, kept across daemons (`bua
	// doctor` checks it); "" for managed-N, whose token is made fresh
	// at each launch and lives in its pairing.json and this daemon only.
	tokenFile string
}

func managedPathsFor(dirs home.Dirs, name string) managedPaths {
	p := managedPaths{name: name, base: dirs.BrowserDir(), tokenFile: dirs.ManagedTokenFile()}
	if name != string(SelectManaged) {
		p.base, p.tokenFile = filepath.Join(dirs.BrowsersDir(), name), ""
	}
	p.profile = filepath.Join(p.base, "profile")
	p.ext = filepath.Join(p.base, "extension")
	p.record = filepath.Join(p.base, "browser.json")
	p.log = filepath.Join(p.base, "browser.log")
	return p
}

// managedBrowser is one of the daemon's managed browsers, named by
// paths.name (managedSet holds them). Each launch is recorded in its
// record (paths.record) and the record removed when the browser exits, so a browser never outlives every process that knows of
// it: after a daemon is killed (kill -9, OOM), the next daemon stops the
// recorded browser before it serves (reapOrphan), and `bua browser stop`
// stops it with no daemon at all.
//
// The orphan is stopped, not adopted: its extension read pairing.json at
// its start and dials the dead daemon's port, which the next daemon
// rarely has (BUA_LISTEN=127.0.0.1:0 picks a new one), and its launch
// options and extension copy belong to the dead daemon. Stopping costs
// only the orphan's tabs, which the dead daemon's requests had lost
// anyway, and a fresh launch takes about a second.
type managedBrowser struct {
	paths   managedPaths
	mu      sync.Mutex
	proc    BrowserProcess
	started time.Time
	opts    BrowserOptions
	profile string
	// token is the browser's pairing token as last written to its
	// pairing.json (a string; Daemon.tokens reads it).
	token atomic.Value
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
		// reapOrphans stops any orphan before the daemon serves; one still
		// here would not stop, and status must not hide it.
		st := m.paths.orphanStatus()
		st.Name = m.paths.name
		return st
	}
	return ManagedStatus{Name: m.paths.name, Running: true, PID: m.proc.Pid(), StartedAt: m.started, Options: m.opts, Profile: m.profile}
}

// start launches the browser unless it is running.
func (m *managedBrowser) start(d *Daemon, o BrowserOptions) *protocol.Error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running() {
		return nil
	}
	if why := d.homeLost(); why != "" {
		// Creating the profile would create the deleted home again.
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "this daemon's home is gone (%s), so it launches no browser there and is stopping: retry, and the next command starts a new daemon", why)
	}
	if d.cfg.Launch == nil {
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "this daemon cannot launch browsers")
	}
	dirs, paths := d.cfg.Dirs, m.paths
	// An orphan that would not stop at start-up still holds its profile.
	s, err := paths.stopOrphan(context.Background())
	logHealed(d.log, s)
	if err != nil {
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "%v (left running by an earlier daemon): run `bua browser stop`, then retry", err)
	}
	tok, profile, perr := m.prepare(d, o)
	if perr != nil {
		return perr
	}
	extDir := paths.ext
	logPath := paths.log
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "browser log: %v", err)
	}
	// Known before the launch: the extension may say hello before Launch
	// returns.
	m.token.Store(tok)
	// The browser outlives the request that launched it.
	proc, err := d.cfg.Launch(context.Background(), LaunchOptions{
		Exec: o.Chrome, Headless: o.Headless, ProfileDir: profile, ExtensionDir: extDir, DownloadDir: dirs.Downloads(), Log: logf,
	})
	if err != nil {
		logf.Close()
		m.token.Store("")
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "launch browser: %v", err)
	}
	pid := proc.Pid()
	// Only a process that is really a browser on this profile is recorded
	// (browser.Identify), never a test's fake, so a later StopRecorded can
	// only ever signal that browser's group.
	if rec, err := browser.Identify(pid, profile); err != nil {
		d.log.Warn("managed browser not recorded: a crash of this daemon would leave it running", "pid", pid, "err", err)
	} else if err := browser.WriteRecord(paths.record, rec); err != nil {
		d.log.Warn("managed browser not recorded", "pid", pid, "err", err)
	}
	go func() {
		<-proc.Done()
		logf.Close()
		// Helpers a browser started before it died (a zygote, crashpad)
		// stay in its group: end them, or they hold the profile.
		_ = proc.Stop(context.Background())
		m.mu.Lock()
		browser.RemoveRecord(paths.record, pid)
		m.mu.Unlock()
	}()
	m.proc, m.started, m.opts, m.profile = proc, time.Now(), o, profile
	d.log.Info("managed browser launched", "browser", paths.name, "pid", pid, "headless", o.Headless, "profile", profile)
	return nil
}

// prepare writes what a launch needs before the browser starts: the
// pairing token (managed's healed from its file, managed-N's new), the
// extension copy with its pairing.json (a fresh copy, so an older
// binary's never loads), and the profile, which is o.Profile or the
// browser's default.
func (m *managedBrowser) prepare(d *Daemon, o BrowserOptions) (tok, profile string, _ *protocol.Error) {
	paths := m.paths
	tok = NewToken()
	if paths.tokenFile != "" {
		var err error
		if tok, err = HealToken(paths.tokenFile, d.log); err != nil {
			return "", "", protocol.Errorf(protocol.CodeInternalError, "managed token: %v", err)
		}
	}
	pairing, _ := json.MarshalIndent(Pairing{Kind: KindManaged, URL: d.URL(), Token: tok, Blocklist: o.Block}, "", "  ")
	extDir := paths.ext
	newBuild := extension.WrittenVersion(extDir) != extension.Version()
	_ = os.RemoveAll(extDir) // a stale copy from an older binary must not load
	if _, err := extension.WriteTo(extDir, map[string][]byte{"pairing.json": pairing}); err != nil {
		return "", "", protocol.Errorf(protocol.CodeInternalError, "write extension: %v", err)
	}
	profile = o.Profile
	if profile == "" {
		profile = paths.profile
	}
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return "", "", protocol.Errorf(protocol.CodeInternalError, "profile: %v", err)
	}
	if newBuild {
		// Chromium runs the service worker it stored in the profile, even
		// for an unpacked extension whose files and version changed: a new
		// bua would drive the browser with the old build's extension.
		if err := browser.ForgetServiceWorkers(profile); err != nil {
			return "", "", protocol.Errorf(protocol.CodeInternalError, "profile: %v", err)
		}
	}
	return tok, profile, nil
}

// exited is the launched browser's error when it has exited (its
// launchError, once the helpers left in its group are stopped too), else
// nil, and the channel closed when it exits (nil when none was launched).
func (m *managedBrowser) exited(getenv func(string) string) (<-chan struct{}, *protocol.Error) {
	m.mu.Lock()
	proc, headless, log := m.proc, m.opts.Headless, m.paths.log
	m.mu.Unlock()
	if proc == nil {
		return nil, nil
	}
	select {
	case <-proc.Done():
		// Its helpers go before the caller hears of it, so a retry never
		// meets them holding the profile.
		_ = proc.Stop(context.Background())
		return proc.Done(), launchError(proc.Err(), headless, log, getenv)
	default:
		return proc.Done(), nil
	}
}

// done is closed when the launched browser exits (nil when none was
// launched).
func (m *managedBrowser) done() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil {
		return nil
	}
	return m.proc.Done()
}

// kill ends the managed browser this daemon launched at once, its whole
// process group (launchers start it as the group's leader; on Windows its
// job), with SIGKILL: for a home that was deleted, where a browser given
// SIGTERM writes its profile back and so creates the home again. stop
// then reaps it.
func (m *managedBrowser) kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		return
	}
	m.proc.Kill()
}

// exe is the executable of the browser this daemon launched, "" when it
// launched none or its launcher does not say (a test's fake).
func (m *managedBrowser) exe() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.proc.(interface{ Exe() string }); ok {
		return p.Exe()
	}
	return ""
}

// brandedChrome reports whether that executable is branded Google Chrome
// (browser.IsBrandedChrome), whose extension never connects: BUA_CHROME
// or --chrome may name it, since the person chose it.
func (m *managedBrowser) brandedChrome() bool {
	exe := m.exe()
	return exe != "" && browser.IsBrandedChrome(exe)
}

// profileGone says why the running browser's profile is gone (deleted
// under it), or "".
func (m *managedBrowser) profileGone() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() || m.profile == "" {
		return ""
	}
	if _, err := os.Stat(m.profile); os.IsNotExist(err) {
		return "the managed browser's profile is gone (" + m.profile + ")"
	}
	return ""
}

// stop stops this browser: the one this daemon launched, else one an
// earlier daemon left under its name. It reports whether one ran.
func (m *managedBrowser) stop(ctx context.Context, log *slog.Logger) (bool, error) {
	m.mu.Lock()
	proc := m.proc
	m.proc = nil
	m.mu.Unlock()
	if proc == nil {
		s, err := m.paths.stopOrphan(ctx)
		logHealed(log, s)
		return len(s.Browsers) > 0, err
	}
	err := proc.Stop(ctx)
	// Removed here too, not only when Done fires: a daemon that is
	// exiting may not live to run that goroutine.
	m.mu.Lock()
	browser.RemoveRecord(m.paths.record, proc.Pid())
	m.mu.Unlock()
	return true, err
}
