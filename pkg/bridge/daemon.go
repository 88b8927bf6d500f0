package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/internal/exclusive"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// DefaultListen is the extension's default daemon address, per
// docs/extension.md#pairing.
const DefaultListen = "127.0.0.1:48123"

// Failure budgets for the handshake and for pairing codes, each its own
// token bucket: FailureBurst failures at once, then one per
// FailureInterval.
const (
	FailureBurst    = 20
	FailureInterval = 3 * time.Second
)

// Config configures a Daemon. Zero values take the documented defaults.
type Config struct {
	Dirs home.Dirs
	// Listen is the WebSocket address; "127.0.0.1:0" picks a free port.
	Listen string
	// ExtensionID is the pinned extension; its Origin is always allowed.
	ExtensionID string
	// StoreExtensionIDs are the IDs the Chrome Web Store and Edge Add-ons
	// gave the extension (they refuse a manifest's key, so the pinned ID
	// is only the unpacked and managed extension's): `bua serve` reads
	// them from BUA_EXTENSION_IDS (ParseExtensionIDs). Each is accepted
	// as the exact Origin chrome-extension://ID; New refuses one that is
	// not an extension ID.
	StoreExtensionIDs []string
	// AllowOrigins adds exact Origins (for example a dev build's ID).
	AllowOrigins []string
	// ServerVersion is sent in ack.
	ServerVersion string
	// IdleTimeout stops the daemon after this long with no CLI request
	// and no agent's link open (default 1h; negative disables).
	IdleTimeout time.Duration
	// ConnectGrace is how long a request that may only be served by the
	// person's extension waits for it to connect before failing (default
	// 2s; see LaunchPolicy). Requests that may launch never wait it.
	ConnectGrace time.Duration
	// ReconnectGrace is how long a request whose extension's connection
	// dropped waits for that extension to reconnect (default
	// ReconnectGrace; see Pool's hold).
	ReconnectGrace time.Duration
	// Getenv reads CI and friends (default os.Getenv).
	Getenv func(string) string
	// Launch starts a managed browser; nil disables launching.
	Launch Launcher
	// Prelaunch, when set, is the --browser selection of the command that
	// started this daemon to send it actions: if a request with it would
	// launch the managed browser at once (LaunchPolicyFor), Run launches
	// it as soon as it listens, before that request arrives
	// (docs/cold-start.md#who-may-launch-a-browser). "" launches nothing unasked.
	Prelaunch Selection
	// Log receives the daemon's structured log (default: discard).
	Log *slog.Logger
}

// Daemon is `bua serve`: the extension's WebSocket endpoint, the pool, and
// the CLI's link (a unix socket, or loopback TCP on Windows: home.ListenLink).
type Daemon struct {
	cfg     Config
	log     *slog.Logger
	pool    *Pool
	origins map[string]struct{}
	// helloLimiter and codeLimiter count failures only: wrong pairing
	// tokens in hellos, and wrong one-time codes at /pair/claim. They are
	// separate budgets, so a flood of one never refuses the other, and a
	// right token is accepted before helloLimiter is consulted.
	helloLimiter *rate.Limiter
	codeLimiter  *rate.Limiter
	codes        pairCodes
	events       *eventLog
	managed      managedSet  // the managed browsers, by name (managed.go)
	handles      *tabHandles // the tabs' short handles, t1, t2, … (handles.go)
	// logs bounds what peers can make the daemon log (loglimit.go);
	// gate caps the extension port's unauthenticated connections
	// (gate.go); freed wakes an accept loop that waits out a lack of
	// descriptors when a connection closes (accept.go).
	logs   *logLimiter
	gate   *gate
	freed  waker
	owners *tabOwners   // agents' tabs (owners.go)
	agents atomic.Int32 // link connections of agents (owners), which keep the daemon from idling out

	port         int
	addr         string
	started      time.Time
	lastActivity atomic.Int64
	stopOnce     sync.Once
	stopCh       chan struct{}
	replacedMu   sync.Mutex
	replaced     map[string]time.Time // by browser name: see replaced.go

	held atomic.Pointer[heldHome] // see homewatch.go
}

// New checks cfg and returns a daemon ready to Run.
func New(cfg Config) (*Daemon, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.ExtensionID == "" {
		cfg.ExtensionID = extension.ID
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = time.Hour
	}
	if cfg.ConnectGrace == 0 {
		cfg.ConnectGrace = 2 * time.Second
	}
	if cfg.ReconnectGrace == 0 {
		cfg.ReconnectGrace = ReconnectGrace
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{
		cfg: cfg, log: log, pool: NewPool(log),
		origins: map[string]struct{}{ExtensionOrigin(cfg.ExtensionID): {}},
		// 20 failures at once, then one every 3 s; beyond that a wrong
		// hello is closed with 4029 (not a terminal reject) and a wrong
		// code gets 429. The right token is never limited.
		helloLimiter: rate.NewLimiter(rate.Every(FailureInterval), FailureBurst),
		codeLimiter:  rate.NewLimiter(rate.Every(FailureInterval), FailureBurst),
		events:       &eventLog{path: cfg.Dirs.EventLog()},
		owners:       newTabOwners(),
		handles:      newTabHandles(),
		managed:      managedSet{dirs: cfg.Dirs},
		stopCh:       make(chan struct{}),
		logs:         newLogLimiter(log),
	}
	d.gate = &gate{max: MaxUnauthenticated, logs: d.logs, freed: &d.freed}
	for _, id := range cfg.StoreExtensionIDs {
		if !ValidExtensionID(id) {
			return nil, fmt.Errorf("store extension ID %q is not a Chrome extension ID (%d letters a to p): fix %s", clipInput(id), ExtensionIDLen, EnvExtensionIDs)
		}
		d.origins[ExtensionOrigin(id)] = struct{}{}
	}
	for _, o := range cfg.AllowOrigins {
		d.origins[o] = struct{}{}
	}
	d.pool.grace = cfg.ReconnectGrace
	d.pool.gone = d.browserGone
	return d, nil
}

// Pool returns the daemon's pool.
func (d *Daemon) Pool() *Pool { return d.pool }

// Addr is the WebSocket listener's address once Run has started.
func (d *Daemon) Addr() string { return d.addr }

// URL is the extension's WebSocket URL.
func (d *Daemon) URL() string { return "ws://" + d.addr + "/ws/browser" }

// Info is what daemon.json holds for the CLI: who serves, and where.
type Info struct {
	PID       int       `json:"pid"`
	Listen    string    `json:"listen"`
	URL       string    `json:"url"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"startedAt"`
}

// ReadInfo reads the running daemon's info file.
func ReadInfo(dirs home.Dirs) (Info, error) {
	var info Info
	data, err := os.ReadFile(dirs.InfoFile())
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal(data, &info)
}

// Stop asks Run to return.
func (d *Daemon) Stop() { d.stopOnce.Do(func() { close(d.stopCh) }) }

// Run takes the lock, listens, and serves until ctx ends, Stop is called or
// the daemon has been idle for IdleTimeout. ready, when not nil, is called
// once both listeners are up.
func (d *Daemon) Run(ctx context.Context, ready func()) error {
	dirs := d.cfg.Dirs
	if err := dirs.Ensure(); err != nil {
		return err
	}
	lock, err := home.Lock(dirs.LockFile())
	if err != nil {
		return err
	}
	defer lock.Close()
	tok, err := HealToken(dirs.ManagedTokenFile(), d.log)
	if err != nil {
		return err
	}
	d.managed.get(string(SelectManaged)).token.Store(tok)
	reapOrphans(ctx, dirs, d.log)

	// No other process, of any user, may bind the port beside the
	// daemon (SO_EXCLUSIVEADDRUSE on Windows: internal/exclusive).
	tcp, err := exclusive.Listen(ctx, "tcp", d.cfg.Listen)
	if err != nil {
		return listenError(d.cfg.Listen, err)
	}
	d.addr = tcp.Addr().String()
	d.port = tcp.Addr().(*net.TCPAddr).Port
	sock, err := home.ListenLink(dirs)
	if err != nil {
		tcp.Close()
		return err
	}
	// What the CLI will check before it speaks: refuse to serve where it
	// would refuse to be served.
	if err := dirs.CheckLink(false); err != nil {
		sock.Close()
		tcp.Close()
		return err
	}
	d.started = time.Now()
	d.lastActivity.Store(d.started.UnixMilli())
	info, _ := json.Marshal(Info{PID: os.Getpid(), Listen: d.addr, URL: d.URL(), Version: d.cfg.ServerVersion, StartedAt: d.started})
	if err := home.WriteFile(dirs.InfoFile(), info); err != nil {
		return err
	}

	srv := &http.Server{
		Handler: d,
		// Every connection that has not said hello has a deadline
		// (issue 20 §2): its request's headers within 5 s, its next
		// request on a kept-alive connection within HTTPIdleTimeout, its
		// hello within HandshakeTimeout (serveWS). And the gate sheds
		// the oldest past MaxUnauthenticated (gate.go).
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       HTTPIdleTimeout,
		ConnContext:       withGatedConn,
		ErrorLog:          log.New(limitedWriter{d.logs, "net/http errors"}, "", 0),
	}
	tcpLn := gateListener{d.patient(tcp, "the extension port"), d.gate}
	sockLn := d.patient(sock, "the CLI link")
	go func() {
		if err := srv.Serve(tcpLn); !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("the extension port stopped accepting: stopping", "err", err)
			d.Stop()
		}
	}()
	go d.acceptLink(sockLn, sock)
	held, err := holdHome(dirs, lock)
	if err != nil {
		return err
	}
	d.held.Store(&held)
	d.log.Info("daemon listening", "ws", d.URL(), "link", dirs.Link())
	d.prelaunch()
	if ready != nil {
		ready()
	}

	idle := time.NewTicker(time.Minute)
	defer idle.Stop()
	homeCheck, unwatch := watchHome(dirs)
	defer unwatch()
	lost := false
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-d.stopCh:
			break loop
		case <-homeCheck:
			if why := d.lostHome(); why != "" {
				d.log.Warn("home lost: stopping", "why", why)
				lost = true
				break loop
			}
		case <-idle.C:
			last := time.UnixMilli(d.lastActivity.Load())
			// An agent (bua mcp) may think for longer than an hour; while
			// its link is open, its tabs and browser must stay.
			if d.cfg.IdleTimeout > 0 && time.Since(last) > d.cfg.IdleTimeout && d.pool.Stats().InFlight == 0 && d.agents.Load() == 0 {
				d.log.Info("idle: stopping", "idleFor", time.Since(last).Round(time.Second))
				break loop
			}
		}
	}

	if lost {
		// At once and without SIGTERM: Chromium flushes its profile on
		// SIGTERM, which would create the deleted home again.
		d.managed.killAll()
	}
	d.log.Info("daemon stopping")
	sockLn.Close()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	for _, c := range d.pool.Conns() {
		c.Close(1001, "bua daemon stopping")
	}
	if _, err := d.managed.stopAll(shutCtx, d.log); err != nil {
		d.log.Warn("a managed browser did not stop", "err", err)
	}
	if lost {
		d.clearLostHome(held)
	}
	// Unless they are gone, or another daemon's now.
	if held.still(dirs.Link()) {
		_ = os.Remove(dirs.Link())
	}
	if held.still(dirs.LockFile()) {
		_ = os.Remove(dirs.InfoFile())
	}
	d.logs.flush()
	return nil
}

// HTTPIdleTimeout closes a kept-alive HTTP connection to the extension
// port after this long without a request. The extension's WebSocket is not
// one (it was hijacked), and a pairing-code claim is one request, so
// nothing needs a long one; without it an idle connection stayed open for
// good (issue 20 §2).
const HTTPIdleTimeout = 5 * time.Second

// patient wraps ln so that its Accept waits out temporary errors
// (accept.go); name says which listener in the log.
func (d *Daemon) patient(ln net.Listener, name string) *patientListener {
	return &patientListener{Listener: ln, name: name, logs: d.logs, freed: &d.freed}
}

// tokens are the pairings' tokens for a hello, by browser name: the
// user's, and each named user pairing's, as their files hold them now
// (`bua pair --rotate` takes effect at once), "" while a file is
// malformed; each managed browser's as this daemon last handed it to that
// browser (managedBrowser.token), so a token file damaged under a running
// browser does not lock its extension out when it reconnects. err is a
// read of a user pairing's file that failed for now (out of descriptors,
// say), not a malformed or missing file: the caller then says "try later"
// rather than a final reject.
func (d *Daemon) tokens() (map[string]string, error) {
	tokens := map[string]string{}
	var failed error
	for _, name := range append([]string{string(SelectUser)}, PairingNames(d.cfg.Dirs.PairingsDir())...) {
		tok, err := ReadToken(PairingTokenFile(d.cfg.Dirs, name))
		var unreadable *fs.PathError
		if errors.As(err, &unreadable) && failed == nil {
			failed = err
		}
		tokens[name] = tok
	}
	d.managed.tokens(tokens)
	return tokens, failed
}

func (d *Daemon) onEvent(c *Conn, ev protocol.Event) {
	d.log.Info("extension event", "browser", c.Name, "type", ev.Type, "event", string(ev.Raw))
	if ev.Type == protocol.EventGlobalStop {
		// Before the log write: the callers hear of the stop at once.
		d.pool.stopAll(c)
	}
	if ev.Type == protocol.EventTabClosed {
		var closed struct {
			TabID int `json:"tabId"`
		}
		if json.Unmarshal(ev.Raw, &closed) == nil {
			d.owners.drop(tabKey{c.Name, closed.TabID})
			d.handles.drop(tabKey{c.Name, closed.TabID})
		}
	}
	if err := d.events.append(EventRecord{Time: time.Now(), Kind: c.Kind, Browser: c.Name, Event: ev}); err != nil {
		d.log.Warn("event log write failed", "err", err)
	}
}

// browserGone is closed once the browser named name is gone for good, so
// a request held for its reconnect fails at once: a managed browser this
// daemon launched has exited. A person's Chrome gives no such sign (nil).
func (d *Daemon) browserGone(name string) <-chan struct{} {
	if !IsManaged(name) {
		return nil
	}
	return d.managed.get(name).done()
}

// request runs one CLI request: pick (or wait for, or launch) a browser,
// then send. It is where --browser and the auto-launch policy meet.
func (d *Daemon) request(ctx context.Context, lr *linkRequest) (json.RawMessage, *protocol.Error) {
	d.lastActivity.Store(time.Now().UnixMilli())
	sel, err := d.checkBrowser(lr.Browser)
	if err != nil {
		return nil, err
	}
	if lr.Tab != "" {
		// Before the check: close_tab needs the tabId the handle gives.
		if sel, err = d.resolveTab(lr, sel); err != nil {
			return nil, err
		}
	}
	if !lr.NoValidate {
		// The one check of an action on its way out: the CLI leaves it to
		// the daemon, so a one-shot command does not check it twice.
		if err := protocol.ValidateAction(lr.Action); err != nil {
			err.Reason = protocol.ReasonRefused
			return nil, err
		}
	}
	if err := checkUploadFiles(lr.Action); err != nil {
		return nil, err
	}
	if lr.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withCallerTimeout(ctx, time.Duration(lr.TimeoutMs)*time.Millisecond, lr.StatedTimeout())
		defer cancel()
	}
	c, err := d.acquire(ctx, sel)
	if err != nil {
		return nil, err
	}
	if lr.Owner != "" {
		res, err := d.requestOwned(ctx, c, lr.Owner, lr.OwnWindow, lr.Action)
		if err != nil {
			return nil, err
		}
		return hashDownload(res), nil
	}
	// Validated above (or deliberately not): send the caller's bytes as
	// they are rather than re-encoding them.
	res, err := d.pool.Send(ctx, c, lr.Action)
	if err != nil {
		return nil, d.tabGone(lr, c.Name, err)
	}
	return d.withHandles(lr, c.Name, hashDownload(res)), nil
}

// checkBrowser reads a request's browser (CheckBrowser): a name this
// daemon does not know is invalid_action, reason refused, listing the
// names there are: a raw frame may carry anything, and a typo must not
// wait for a browser that will never come, nor launch one.
func (d *Daemon) checkBrowser(sel Selection) (Selection, *protocol.Error) {
	parsed, err := CheckBrowser(d.cfg.Dirs, string(sel))
	if err != nil {
		e := protocol.Errorf(protocol.CodeInvalidAction, "unknown browser %q in the request: %v", sel, err)
		e.Reason = protocol.ReasonRefused
		return "", e
	}
	return parsed, nil
}

// launchName is the managed browser that sel launches where its policy
// allows (LaunchPolicyFor): its own, or managed for auto.
func launchName(sel Selection) string {
	if IsManaged(string(sel)) {
		return string(sel)
	}
	return string(SelectManaged)
}

// acquire returns the connection sel picks, launching a managed browser
// where policy allows (LaunchPolicy): at once when nothing else could
// connect, so a cold start pays for the launch and nothing more; after
// ConnectGrace when only the person's extension could serve, which may be
// reconnecting with backoff. sel has passed checkBrowser.
func (d *Daemon) acquire(ctx context.Context, sel Selection) (*Conn, *protocol.Error) {
	if sel == "" {
		sel = SelectAuto
	}
	if c := d.pool.Conn(sel); c != nil {
		return c, nil
	}
	if err := d.replacedError(sel); err != nil {
		return nil, err
	}
	policy := LaunchPolicyFor(sel, d.cfg.Getenv, d.cfg.Dirs)
	if policy != LaunchAtOnce {
		pairing := string(sel)
		if sel == SelectAuto {
			pairing = string(SelectUser)
		}
		if _, terr := ReadToken(PairingTokenFile(d.cfg.Dirs, pairing)); terr != nil {
			// No extension can pair with a bad token file, so waiting
			// for one would only cost the grace.
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "%v: no extension can pair as that browser until you run `bua pair%s` (then paste its token into the extension's options), or use --browser managed", terr, nameFlag(pairing))
		}
		graceCtx, cancel := context.WithTimeout(ctx, d.cfg.ConnectGrace)
		c, _ := d.pool.WaitConn(graceCtx, sel)
		cancel()
		if c != nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctxError(ctx, protocol.Action{Type: "request"})
		}
		switch sel {
		case SelectAuto:
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "your paired Chrome is not connected: open Chrome (the bua extension reconnects by itself), or run `bua browser start` for a managed browser")
		case SelectUser:
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "your Chrome is not connected: open Chrome with the bua extension (pair it with `bua pair`), or use --browser managed")
		default:
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "the Chrome paired as %q is not connected: open it with the bua extension (pair it with `bua pair --name %s`), or use --browser managed", sel, sel)
		}
	}
	if d.cfg.Launch == nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "no browser is connected and this daemon cannot launch one: run `bua browser start`")
	}
	name := launchName(sel)
	if err := d.managed.get(name).start(d, BrowserOptions{Headless: true}); err != nil {
		return nil, err
	}
	return d.waitManaged(ctx, name)
}

// nameFlag is ` --name NAME` for a named pairing, "" for user's.
func nameFlag(pairing string) string {
	if pairing == string(SelectUser) {
		return ""
	}
	return " --name " + pairing
}

// prelaunch starts the managed browser in the background when the command
// that started the daemon is about to ask for it (Config.Prelaunch), so
// its launch overlaps that command's dial and request. The request then
// finds it launching and waits for its hello as usual; a failed launch is
// logged, and the request's own attempt reports it.
func (d *Daemon) prelaunch() {
	sel := d.cfg.Prelaunch
	if sel == "" || d.cfg.Launch == nil || LaunchPolicyFor(sel, d.cfg.Getenv, d.cfg.Dirs) != LaunchAtOnce {
		return
	}
	go func() {
		if err := d.managed.get(launchName(sel)).start(d, BrowserOptions{Headless: true}); err != nil {
			d.log.Warn("managed browser not launched at start", "err", err)
		}
	}()
}

// LaunchPolicy is what a request does when no extension that may serve it
// is connected.
type LaunchPolicy int

// Launch policies, per docs/cold-start.md#who-may-launch-a-browser.
const (
	// LaunchAtOnce launches (or waits for) a managed browser without
	// waiting for anything else: --browser managed (or managed-N), and
	// --browser auto when no user pairing exists or CI=true, since then
	// nothing else may serve.
	LaunchAtOnce LaunchPolicy = iota
	// LaunchNever waits ConnectGrace for the person's extension, then
	// fails bridge_unavailable: --browser user or a pairing's name, and
	// --browser auto when a user pairing exists outside CI, because a
	// headless browser without the person's logins would surprise them.
	LaunchNever
)

// LaunchPolicyFor is sel's policy under getenv (CI) and the pairing in
// dirs. `bua doctor` asks the same question, so both read it here.
func LaunchPolicyFor(sel Selection, getenv func(string) string, dirs home.Dirs) LaunchPolicy {
	switch {
	case IsManaged(string(sel)):
		return LaunchAtOnce
	case sel != SelectAuto && sel != "": // user, or a named pairing
		return LaunchNever
	}
	if MayAutoLaunch(getenv, dirs) {
		return LaunchAtOnce
	}
	return LaunchNever
}

// MayAutoLaunch is the --browser auto policy: launch a managed browser
// unprompted only when no user pairing exists or CI=true, because a
// headless browser without the person's logins would surprise them.
// `bua doctor` asks the same question, so both read it here.
func MayAutoLaunch(getenv func(string) string, dirs home.Dirs) bool {
	if getenv("CI") == "true" {
		return true
	}
	// A bad token file (ErrBadToken) still says the person paired their
	// own browser once: it counts as a pairing.
	tok, err := ReadToken(dirs.TokenFile())
	return tok == "" && err == nil
}

// ManagedConnectTimeout bounds how long a launched browser has to load the
// extension and say hello.
const ManagedConnectTimeout = 30 * time.Second

// waitManaged waits for the extension of the managed browser named name:
// at most ManagedConnectTimeout, or less when the caller's deadline comes
// first, or until the browser exits. Its error names whichever of the two
// ran out, or how the browser exited and why (launchError).
func (d *Daemon) waitManaged(ctx context.Context, name string) (*Conn, *protocol.Error) {
	wctx, cancel := context.WithTimeout(ctx, ManagedConnectTimeout)
	defer cancel()
	m := d.managed.get(name)
	if exited, _ := m.exited(d.cfg.Getenv); exited != nil {
		go func() {
			select {
			case <-exited:
				cancel()
			case <-wctx.Done():
			}
		}()
	}
	c, err := d.pool.WaitConn(wctx, Selection(name))
	if err == nil {
		return c, nil
	}
	if _, lerr := m.exited(d.cfg.Getenv); lerr != nil {
		return nil, lerr
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, protocol.Errorf(protocol.CodeInternalError, "aborted by caller")
	}
	within := ManagedConnectTimeout.String()
	if ctx.Err() != nil { // the caller's deadline ran out first
		within = "the caller's deadline"
		if ct, ok := callerTimeout(ctx); ok {
			within = fmt.Sprintf("%s (the caller's timeout)", ct)
		}
	}
	why := ""
	if m.brandedChrome() {
		why = fmt.Sprintf(": it is branded Google Chrome (%s), which since version 137 ignores --load-extension, so bua's extension never loaded; %s", m.exe(), browser.InstallHint)
	}
	return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "the managed browser %s did not connect within %s%s: see %s, and run `bua doctor`", name, within, why, d.cfg.Dirs.LogFile())
}

// ListenError is the daemon's failure to listen on its WebSocket address:
// usually another program holds the port. Owner names it when that can be
// known ("pid 1234 (python3)").
type ListenError struct {
	Addr  string
	Owner string
	Err   error
}

// AddrInUse reports whether err is a listen that failed because another
// socket holds the address (on Windows also one that SO_EXCLUSIVEADDRUSE
// keeps).
func AddrInUse(err error) bool { return isErrno(err, addrInUseErrnos) }

func listenError(addr string, err error) *ListenError {
	le := &ListenError{Addr: addr, Err: err}
	if _, p, splitErr := net.SplitHostPort(addr); splitErr == nil {
		if port, convErr := strconv.Atoi(p); convErr == nil && isErrno(err, addrInUseErrnos) {
			le.Owner = home.PortOwner(port)
		}
	}
	return le
}

func (e *ListenError) Error() string {
	if isErrno(e.Err, addrInUseErrnos) {
		holder := "another program"
		if e.Owner != "" {
			holder = e.Owner
		}
		return fmt.Sprintf("cannot listen on %s: the port is taken by %s: stop it, or give bua another port with BUA_LISTEN=127.0.0.1:PORT (or serve --listen) and pair the extension with that port", e.Addr, holder)
	}
	return fmt.Sprintf("cannot listen on %s: %v: pass another address with BUA_LISTEN or serve --listen", e.Addr, e.Err)
}

func (e *ListenError) Unwrap() error { return e.Err }

// Reason is protocol.ReasonPortInUse for a taken port, else "".
func (e *ListenError) Reason() string {
	if isErrno(e.Err, addrInUseErrnos) {
		return protocol.ReasonPortInUse
	}
	return ""
}

// LogFailure writes why the daemon could not run to its log, where a
// command that started it reads it back (Dial): reason first, then err.
func LogFailure(log *slog.Logger, err error) {
	reason := ""
	var le *ListenError
	if errors.As(err, &le) {
		reason = le.Reason()
	}
	log.Error("daemon failed", "reason", reason, "err", err.Error())
}
