package bridge

import (
	"context"
	"encoding/json"
	"errors"
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

// ManagedStatus describes the managed browser for `bua status`.
type ManagedStatus struct {
	Running   bool           `json:"running"`
	PID       int            `json:"pid,omitempty"`
	StartedAt time.Time      `json:"startedAt,omitzero"`
	Options   BrowserOptions `json:"options"`
	// Orphan marks a browser this daemon did not launch: one recorded in
	// home.Dirs.BrowserRecord by a daemon that died without stopping it.
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
func ManagedProfile(dirs home.Dirs) string { return filepath.Join(dirs.BrowserDir(), "profile") }

// managedExtension is where the daemon writes the managed browser's copy
// of the extension.
func managedExtension(dirs home.Dirs) string { return filepath.Join(dirs.BrowserDir(), "extension") }

// OrphanArgs are the command-line arguments that mark a managed browser of
// dirs in the process table when its record is lost (browser.FindByArgs):
// the default profile, and the extension copy every managed browser of the
// home loads, whatever its --profile.
func OrphanArgs(dirs home.Dirs) []string {
	ext := managedExtension(dirs)
	return []string{"--user-data-dir=" + ManagedProfile(dirs), "--load-extension=" + ext}
}

// OrphanStatus is the ManagedStatus of the browser recorded in dirs when
// it runs but no live daemon owns it, or the zero ManagedStatus: what
// `bua status` shows with the daemon down. An unreadable record is
// reported in RecordError, with the browser found by its command line
// (OrphanArgs) in its place; it is left where it is: StopOrphan moves it.
func OrphanStatus(dirs home.Dirs) ManagedStatus {
	r, err := browser.ReadRecord(dirs.BrowserRecord())
	if errors.Is(err, browser.ErrCorruptRecord) {
		st := ManagedStatus{RecordError: err.Error()}
		if found := browser.FindByArgs(OrphanArgs(dirs)...); len(found) > 0 {
			st.Running, st.PID, st.Orphan, st.Profile = true, found[0].PID, true, found[0].ProfileDir
		}
		return st
	}
	if err != nil || !r.Alive() {
		return ManagedStatus{}
	}
	return ManagedStatus{Running: true, PID: r.PID, StartedAt: r.StartedAt, Orphan: true, Profile: r.ProfileDir}
}

// StopOrphan stops the managed browser of dirs that no running daemon
// owns: the one recorded in dirs.BrowserRecord, or, when that record is
// unreadable, the ones found by OrphanArgs, the record being moved aside
// (browser.StopRecorded). It is how a daemon at start, a launch, and
// `bua browser stop` with no daemon all end such a browser.
func StopOrphan(ctx context.Context, dirs home.Dirs) (browser.Stopped, error) {
	return browser.StopRecorded(ctx, dirs.BrowserRecord(), OrphanArgs(dirs)...)
}

// logHealed logs an unreadable record StopOrphan moved aside, once.
func logHealed(log *slog.Logger, s browser.Stopped) {
	if s.Corrupt != nil {
		log.Warn("unreadable managed browser record moved aside; its browser was looked for by its profile", "err", s.Corrupt, "movedTo", s.MovedTo, "found", len(s.Browsers))
	}
}

// managedBrowser is the daemon's one managed browser. Each launch is
// recorded in home.Dirs.BrowserRecord and the record removed when the
// browser exits, so a browser never outlives every process that knows of
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
	mu      sync.Mutex
	proc    BrowserProcess
	started time.Time
	opts    BrowserOptions
	profile string
	log     string // the browser's stderr, browser/browser.log
	// token is the managed pairing's token as last written to a
	// browser's pairing.json (a string; Daemon.tokens reads it).
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

func (m *managedBrowser) status(dirs home.Dirs) ManagedStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		// reapOrphan stops any orphan before the daemon serves; one still
		// here would not stop, and status must not hide it.
		return OrphanStatus(dirs)
	}
	return ManagedStatus{Running: true, PID: m.proc.Pid(), StartedAt: m.started, Options: m.opts, Profile: m.profile}
}

// reapOrphan stops the browser recorded by an earlier daemon of this home,
// if it still runs. Run calls it once it holds the home's lock (so that
// daemon is dead) and before it listens, so the orphan's extension never
// reaches this daemon and the next launch never meets the profile's
// SingletonLock. It takes at most browser.StopGrace plus a moment.
func (m *managedBrowser) reapOrphan(ctx context.Context, dirs home.Dirs, log *slog.Logger) {
	start := time.Now()
	s, err := StopOrphan(ctx, dirs)
	logHealed(log, s)
	if err != nil {
		log.Warn("orphaned managed browser would not stop", "err", err)
	}
	for _, r := range s.Browsers {
		log.Info("stopped the managed browser an earlier daemon left running", "pid", r.PID, "daemonPid", r.DaemonPID, "took", time.Since(start).Round(time.Millisecond))
	}
}

// start launches the managed browser unless one is running.
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
	dirs := d.cfg.Dirs
	// An orphan that would not stop at start-up still holds its profile.
	s, err := StopOrphan(context.Background(), dirs)
	logHealed(d.log, s)
	if err != nil {
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "%v (left running by an earlier daemon): run `bua browser stop`, then retry", err)
	}
	tok, err := HealToken(dirs.ManagedTokenFile(), d.log)
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "managed token: %v", err)
	}
	pairing, _ := json.MarshalIndent(Pairing{Kind: KindManaged, URL: d.URL(), Token: tok, Blocklist: o.Block}, "", "  ")
	base := dirs.BrowserDir()
	extDir := managedExtension(dirs)
	newBuild := extension.WrittenVersion(extDir) != extension.Version()
	_ = os.RemoveAll(extDir) // a stale copy from an older binary must not load
	if _, err := extension.WriteTo(extDir, map[string][]byte{"pairing.json": pairing}); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "write extension: %v", err)
	}
	profile := o.Profile
	if profile == "" {
		profile = ManagedProfile(dirs)
	}
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "profile: %v", err)
	}
	if newBuild {
		// Chromium runs the service worker it stored in the profile, even
		// for an unpacked extension whose files and version changed: a new
		// bua would drive the browser with the old build's extension.
		if err := browser.ForgetServiceWorkers(profile); err != nil {
			return protocol.Errorf(protocol.CodeInternalError, "profile: %v", err)
		}
	}
	logPath := filepath.Join(base, "browser.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "browser log: %v", err)
	}
	// The browser outlives the request that launched it.
	proc, err := d.cfg.Launch(context.Background(), LaunchOptions{
		Exec: o.Chrome, Headless: o.Headless, ProfileDir: profile, ExtensionDir: extDir, DownloadDir: dirs.Downloads(), Log: logf,
	})
	if err != nil {
		logf.Close()
		return protocol.Errorf(protocol.CodeBridgeUnavailable, "launch browser: %v", err)
	}
	pid := proc.Pid()
	// Only a process that is really a browser on this profile is recorded
	// (browser.Identify), never a test's fake, so a later StopRecorded can
	// only ever signal that browser's group.
	if rec, err := browser.Identify(pid, profile); err != nil {
		d.log.Warn("managed browser not recorded: a crash of this daemon would leave it running", "pid", pid, "err", err)
	} else if err := browser.WriteRecord(dirs.BrowserRecord(), rec); err != nil {
		d.log.Warn("managed browser not recorded", "pid", pid, "err", err)
	}
	go func() {
		<-proc.Done()
		logf.Close()
		// Helpers a browser started before it died (a zygote, crashpad)
		// stay in its group: end them, or they hold the profile.
		_ = proc.Stop(context.Background())
		m.mu.Lock()
		browser.RemoveRecord(dirs.BrowserRecord(), pid)
		m.mu.Unlock()
	}()
	m.proc, m.started, m.opts, m.profile, m.log = proc, time.Now(), o, profile, logPath
	m.token.Store(tok)
	d.log.Info("managed browser launched", "pid", pid, "headless", o.Headless, "profile", profile)
	return nil
}

// exited is the launched browser's error when it has exited (its
// launchError, once the helpers left in its group are stopped too), else
// nil, and the channel closed when it exits (nil when none was launched).
func (m *managedBrowser) exited(getenv func(string) string) (<-chan struct{}, *protocol.Error) {
	m.mu.Lock()
	proc, headless, log := m.proc, m.opts.Headless, m.log
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
// process group (launchers start it as the group's leader), with SIGKILL:
// for a home that was deleted, where a browser given SIGTERM writes its
// profile back and so creates the home again. stop then reaps it.
func (m *managedBrowser) kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		return
	}
	_ = browser.GroupOf(m.proc.Pid()).Kill()
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

// stop stops the managed browser of this home: the one this daemon
// launched, else one an earlier daemon left. It reports whether one ran.
func (m *managedBrowser) stop(ctx context.Context, dirs home.Dirs, log *slog.Logger) (bool, error) {
	m.mu.Lock()
	proc := m.proc
	m.proc = nil
	m.mu.Unlock()
	if proc == nil {
		s, err := StopOrphan(ctx, dirs)
		logHealed(log, s)
		return len(s.Browsers) > 0, err
	}
	err := proc.Stop(ctx)
	// Removed here too, not only when Done fires: a daemon that is
	// exiting may not live to run that goroutine.
	m.mu.Lock()
	browser.RemoveRecord(dirs.BrowserRecord(), proc.Pid())
	m.mu.Unlock()
	return true, err
}
