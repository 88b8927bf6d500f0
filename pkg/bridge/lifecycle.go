package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/bua-dev/bua/internal/exclusive"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

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

	tcp, sock, err := d.listen(ctx)
	if err != nil {
		return err
	}
	srv, sockLn := d.serve(tcp, sock)
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
	lost := d.wait(ctx)
	d.shutdown(srv, sockLn, held, lost)
	return nil
}

// listen opens the extension's port and the CLI's link, and writes
// daemon.json saying where they are.
func (d *Daemon) listen(ctx context.Context) (tcp net.Listener, sock *home.LinkListener, err error) {
	dirs := d.cfg.Dirs
	// No other process, of any user, may bind the port beside the
	// daemon (SO_EXCLUSIVEADDRUSE on Windows: internal/exclusive).
	tcp, err = exclusive.Listen(ctx, "tcp", d.cfg.Listen)
	if err != nil {
		return nil, nil, listenError(d.cfg.Listen, err)
	}
	d.addr = tcp.Addr().String()
	d.port = tcp.Addr().(*net.TCPAddr).Port
	sock, err = home.ListenLink(dirs)
	if err != nil {
		tcp.Close()
		return nil, nil, err
	}
	// What the CLI will check before it speaks: refuse to serve where it
	// would refuse to be served.
	if err := dirs.CheckLink(false); err != nil {
		sock.Close()
		tcp.Close()
		return nil, nil, err
	}
	d.started = time.Now()
	d.lastActivity.Store(d.started.UnixMilli())
	info, _ := json.Marshal(Info{PID: os.Getpid(), Listen: d.addr, URL: d.URL(), Version: d.cfg.ServerVersion, StartedAt: d.started})
	if err := home.WriteFile(dirs.InfoFile(), info); err != nil {
		return nil, nil, err
	}
	return tcp, sock, nil
}

// serve starts serving the extension's port (HTTP: the WebSocket and
// pairing) and accepting on the CLI's link, each in its own goroutine; it
// returns the HTTP server and the link's listener, for shutdown.
func (d *Daemon) serve(tcp net.Listener, sock *home.LinkListener) (*http.Server, net.Listener) {
	srv := &http.Server{
		Handler: d,
		// Every connection that has not said hello has a deadline
		// (docs/decisions/daemon-limits.md): its request's headers within 5 s, its next
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
	return srv, sockLn
}

// wait returns when ctx ends, Stop is called, the daemon has been idle
// for IdleTimeout, or its home is lost (then true).
func (d *Daemon) wait(ctx context.Context) (lost bool) {
	idle := time.NewTicker(time.Minute)
	defer idle.Stop()
	homeCheck, unwatch := watchHome(d.cfg.Dirs)
	defer unwatch()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-d.stopCh:
			return false
		case <-homeCheck:
			if why := d.lostHome(); why != "" {
				d.log.Warn("home lost: stopping", "why", why)
				return true
			}
		case <-idle.C:
			last := time.UnixMilli(d.lastActivity.Load())
			// An agent (bua mcp) may think for longer than an hour; while
			// its link is open, its tabs and browser must stay.
			if d.cfg.IdleTimeout > 0 && time.Since(last) > d.cfg.IdleTimeout && d.pool.Stats().InFlight == 0 && d.agents.Load() == 0 {
				d.log.Info("idle: stopping", "idleFor", time.Since(last).Round(time.Second))
				return false
			}
		}
	}
}

// shutdown stops the listeners, the extensions' connections and the
// managed browsers, and removes the link and daemon.json unless they are
// another daemon's now; lost (the home was deleted) kills the browsers at
// once and clears what the daemon wrote.
func (d *Daemon) shutdown(srv *http.Server, sockLn net.Listener, held heldHome, lost bool) {
	dirs := d.cfg.Dirs
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
}

// HTTPIdleTimeout closes a kept-alive HTTP connection to the extension
// port after this long without a request. The extension's WebSocket is not
// one (it was hijacked), and a pairing-code claim is one request, so
// nothing needs a long one; without it an idle connection stayed open for
// good (docs/decisions/daemon-limits.md).
const HTTPIdleTimeout = 5 * time.Second

// patient wraps ln so that its Accept waits out temporary errors
// (accept.go); name says which listener in the log.
func (d *Daemon) patient(ln net.Listener, name string) *patientListener {
	return &patientListener{Listener: ln, name: name, logs: d.logs, freed: &d.freed}
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
