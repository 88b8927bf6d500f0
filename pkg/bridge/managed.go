package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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

// recordedPaths are the paths of every managed browser of dirs that may
// have left a record: managed, and each managed-N folder there is.
func recordedPaths(dirs home.Dirs) []managedPaths {
	out := []managedPaths{managedPathsFor(dirs, string(SelectManaged))}
	entries, _ := os.ReadDir(dirs.BrowsersDir())
	for _, e := range entries {
		if e.IsDir() && IsManaged(e.Name()) && e.Name() != string(SelectManaged) {
			out = append(out, managedPathsFor(dirs, e.Name()))
		}
	}
	return out
}

// OrphanArgs are the command-line arguments that mark the managed
// browser managed of dirs in the process table when its record is lost
// (browser.FindByArgs): the default profile, and the extension copy every
// managed browser of that name loads, whatever its --profile.
func OrphanArgs(dirs home.Dirs) []string {
	return managedPathsFor(dirs, string(SelectManaged)).orphanArgs()
}

func (p managedPaths) orphanArgs() []string {
	return []string{"--user-data-dir=" + p.profile, "--load-extension=" + p.ext}
}

// OrphanStatus is the ManagedStatus of the browser managed recorded in
// dirs when it runs but no live daemon owns it, or the zero ManagedStatus:
// what `bua status` shows with the daemon down. An unreadable record is
// reported in RecordError, with the browser found by its command line
// (OrphanArgs) in its place; it is left where it is: StopOrphan moves it.
func OrphanStatus(dirs home.Dirs) ManagedStatus {
	return managedPathsFor(dirs, string(SelectManaged)).orphanStatus()
}

// Orphans are the ManagedStatus of every managed browser of dirs that
// runs with no live daemon owning it (OrphanStatus, for each name), or
// whose record is unreadable.
func Orphans(dirs home.Dirs) []ManagedStatus {
	var out []ManagedStatus
	for _, p := range recordedPaths(dirs) {
		if st := p.orphanStatus(); st.Running || st.RecordError != "" {
			out = append(out, st)
		}
	}
	return out
}

func (p managedPaths) orphanStatus() ManagedStatus {
	r, err := browser.ReadRecord(p.record)
	if errors.Is(err, browser.ErrCorruptRecord) {
		st := ManagedStatus{Name: p.name, RecordError: err.Error()}
		if found := browser.FindByArgs(p.orphanArgs()...); len(found) > 0 {
			st.Running, st.PID, st.Orphan, st.Profile = true, found[0].PID, true, found[0].ProfileDir
		}
		return st
	}
	if err != nil || !r.Alive() {
		return ManagedStatus{}
	}
	return ManagedStatus{Name: p.name, Running: true, PID: r.PID, StartedAt: r.StartedAt, Orphan: true, Profile: r.ProfileDir}
}

// StopOrphan stops every managed browser of dirs that no running daemon
// owns: each one recorded (managed's record, and each managed-N's), or,
// where a record is unreadable, the ones found by that browser's
// OrphanArgs, the record being moved aside (browser.StopRecorded). It is
// how a daemon at start and `bua browser stop` with no daemon end such
// browsers. Stopped lists them all; its Corrupt and MovedTo are the first
// unreadable record's.
func StopOrphan(ctx context.Context, dirs home.Dirs) (browser.Stopped, error) {
	var all browser.Stopped
	for _, p := range recordedPaths(dirs) {
		s, err := p.stopOrphan(ctx)
		all.Browsers = append(all.Browsers, s.Browsers...)
		if all.Corrupt == nil {
			all.Corrupt, all.MovedTo = s.Corrupt, s.MovedTo
		}
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// stopOrphan is StopOrphan for this one browser.
func (p managedPaths) stopOrphan(ctx context.Context) (browser.Stopped, error) {
	return browser.StopRecorded(ctx, p.record, p.orphanArgs()...)
}

// logHealed logs an unreadable record StopOrphan moved aside, once.
func logHealed(log *slog.Logger, s browser.Stopped) {
	if s.Corrupt != nil {
		log.Warn("unreadable managed browser record moved aside; its browser was looked for by its profile", "err", s.Corrupt, "movedTo", s.MovedTo, "found", len(s.Browsers))
	}
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

// reapOrphans stops the managed browsers recorded by an earlier daemon of
// this home, if they still run. Run calls it once it holds the home's
// lock (so that daemon is dead) and before it listens, so no orphan's
// extension reaches this daemon and the next launch never meets a
// profile's SingletonLock. It takes at most browser.StopGrace plus a
// moment.
func reapOrphans(ctx context.Context, dirs home.Dirs, log *slog.Logger) {
	start := time.Now()
	s, err := StopOrphan(ctx, dirs)
	logHealed(log, s)
	if err != nil {
		log.Warn("orphaned managed browser would not stop", "err", err)
	}
	for _, r := range s.Browsers {
		log.Info("stopped the managed browser an earlier daemon left running", "pid", r.PID, "profile", r.ProfileDir, "daemonPid", r.DaemonPID, "took", time.Since(start).Round(time.Millisecond))
	}
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
	tok := NewToken()
	if paths.tokenFile != "" {
		if tok, err = HealToken(paths.tokenFile, d.log); err != nil {
			return protocol.Errorf(protocol.CodeInternalError, "managed token: %v", err)
		}
	}
	pairing, _ := json.MarshalIndent(Pairing{Kind: KindManaged, URL: d.URL(), Token: tok, Blocklist: o.Block}, "", "  ")
	extDir := paths.ext
	newBuild := extension.WrittenVersion(extDir) != extension.Version()
	_ = os.RemoveAll(extDir) // a stale copy from an older binary must not load
	if _, err := extension.WriteTo(extDir, map[string][]byte{"pairing.json": pairing}); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "write extension: %v", err)
	}
	profile := o.Profile
	if profile == "" {
		profile = paths.profile
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

// managedSet is the daemon's managed browsers by name, each made on first
// use (a request or `bua browser start` naming it) and kept: its token
// must still pair its extension after a reconnect.
type managedSet struct {
	dirs home.Dirs
	mu   sync.Mutex
	m    map[string]*managedBrowser
}

// get is the managed browser named name (IsManaged(name) holds).
func (s *managedSet) get(name string) *managedBrowser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*managedBrowser{}
	}
	m := s.m[name]
	if m == nil {
		m = &managedBrowser{paths: managedPathsFor(s.dirs, name)}
		s.m[name] = m
	}
	return m
}

// all lists the managed browsers made so far, by index.
func (s *managedSet) all() []*managedBrowser {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*managedBrowser, 0, len(s.m))
	for _, m := range s.m {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *managedBrowser) int { return compareBrowsers(a.paths.name, b.paths.name) })
	return out
}

// statuses are the ManagedStatus of every managed browser that runs, by
// index, orphans that would not stop included.
func (s *managedSet) statuses() []ManagedStatus {
	out := []ManagedStatus{}
	for _, m := range s.all() {
		if st := m.status(); st.Running || st.RecordError != "" {
			out = append(out, st)
		}
	}
	return out
}

// tokens adds each managed browser's token to t, by name.
func (s *managedSet) tokens(t map[string]string) {
	for _, m := range s.all() {
		if tok, _ := m.token.Load().(string); tok != "" {
			t[m.paths.name] = tok
		}
	}
}

// stopAll stops every managed browser this daemon launched, and any an
// earlier daemon left; it reports whether one ran and the first error.
func (s *managedSet) stopAll(ctx context.Context, log *slog.Logger) (bool, error) {
	var (
		mu      sync.Mutex
		stopped bool
		first   error
		wg      sync.WaitGroup
	)
	for _, m := range s.all() {
		wg.Go(func() { // together: each may take the SIGTERM grace
			ran, err := m.stop(ctx, log)
			mu.Lock()
			defer mu.Unlock()
			stopped = stopped || ran
			if first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	st, err := StopOrphan(ctx, s.dirs) // names this daemon never used
	logHealed(log, st)
	return stopped || len(st.Browsers) > 0, cmp.Or(first, err)
}

// killAll is kill for every managed browser.
func (s *managedSet) killAll() {
	for _, m := range s.all() {
		m.kill()
	}
}

// profileGone is the first running browser's profileGone, or "".
func (s *managedSet) profileGone() string {
	for _, m := range s.all() {
		if why := m.profileGone(); why != "" {
			return why
		}
	}
	return ""
}
