package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

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
