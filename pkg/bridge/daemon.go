package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/bua-dev/bua/extension"
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
