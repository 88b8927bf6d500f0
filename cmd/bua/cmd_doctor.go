package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(func(env *Env) *cli.Command { return newDoctorCommand(env, nil) }, "doctor")
}

// check is one diagnostic, in the shape of a provider's status check: a
// level, what was found, and manual steps when it is not ok.
type check struct {
	Name    string   `json:"name"`
	Level   string   `json:"level"` // ok, warn or fail
	Message string   `json:"message"`
	Steps   []string `json:"steps,omitempty"`
}

type doctorReport struct {
	Ready  bool    `json:"ready"` // bua can serve actions now
	Checks []check `json:"checks"`
}

// doctorOptions is `bua doctor`'s command line: the global flags alone
// (--json for the report as JSON, --quiet for the lines that are not ok,
// --timeout).
type doctorOptions struct {
	globalOptions
}

func newDoctorCommand(env *Env, runF func(*doctorOptions) error) *cli.Command {
	o := &doctorOptions{}
	return &cli.Command{
		Name:     "doctor",
		Category: catSetup,
		Usage:    "check each part of the setup and say what to do about each problem",
		Description: "Exits 0 when bua can serve actions now (a connected browser, or a managed\n" +
			"one it may launch), non-zero otherwise. Optional parts that are missing, like\n" +
			"no user pairing on a CI machine, are warnings.",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, runDoctor)
		},
	}
}

func runDoctor(o *doctorOptions) error {
	env := o.env
	ctx, cancel := o.commandContext()
	defer cancel()
	rep := diagnose(ctx, env)
	if o.JSON {
		if err := printJSON(env, rep); err != nil {
			return err
		}
	} else {
		// --quiet prints only the checks that are not ok, without the verdict.
		for _, ch := range rep.Checks {
			if o.Quiet && ch.Level == "ok" {
				continue
			}
			mark := map[string]string{"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[ch.Level]
			fmt.Fprintf(env.Stdout, "[%s] %-10s %s\n", mark, ch.Name, ch.Message)
			for _, s := range ch.Steps {
				fmt.Fprintf(env.Stdout, "             → %s\n", s)
			}
		}
		if !o.Quiet {
			fmt.Fprintln(env.Stdout, "\n"+rep.verdict())
		}
	}
	if !rep.Ready {
		return exit(exitUnavailable)
	}
	return nil
}

func (rep *doctorReport) add(name, level, msg string, steps ...string) {
	rep.Checks = append(rep.Checks, check{name, level, msg, steps})
}

// diagnose checks each part in turn: the home, the browser bua would
// launch, the pairing tokens, the files, then the daemon (running or
// not). A part the next ones rest on stops the report when it fails.
func diagnose(ctx context.Context, env *Env) doctorReport {
	var rep doctorReport
	d, err := dirs(env)
	if err != nil {
		rep.add("home", "fail", err.Error(), "set BUA_HOME to a writable directory")
		return rep
	}
	rep.add("version", "ok", fmt.Sprintf("bua %s, protocol v%d, bundled extension %s", version, protocol.ProtocolVersion, extension.Version()))
	found := rep.browserCheck(env)
	rep.Checks = append(rep.Checks, sandboxCheck(browser.SandboxOff()))
	paired := rep.tokenChecks(d)
	if !rep.fileChecks(d) {
		return rep
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cl, berr := env.connect(dctx, bridge.ClientOptions{Dirs: d})
	if berr != nil && berr.Reason == protocol.ReasonUnsafeSocket {
		rep.add(home.LinkCheck, "fail", berr.Message) // the daemon's uid, or its proof of the link key (home.DialLink)
		return rep
	}
	mayLaunch := found && bridge.MayAutoLaunch(env.Getenv, d)
	if berr != nil {
		rep.Ready = rep.daemonDown(env, d) && mayLaunch
		return rep
	}
	defer cl.Close()
	st, serr := cl.Status(dctx)
	if serr != nil {
		rep.add("daemon", "fail", serr.Message, "run `bua stop`, then retry")
		return rep
	}
	rep.daemonUp(st, paired)
	rep.Ready = len(st.Connections) > 0 || mayLaunch
	return rep
}

// browserCheck says which browser a managed launch would use; false when
// none would do.
func (rep *doctorReport) browserCheck(env *Env) bool {
	exe, ferr := browser.Find(env.Getenv)
	install := "install Chrome for Testing (`npx @puppeteer/browsers install chrome@stable`) or Chromium (`apt-get install -y chromium`, macOS `brew install --cask chromium`), or set BUA_CHROME to its executable"
	switch {
	case errors.Is(ferr, browser.ErrBrandedChrome):
		// Find returns the branded Chrome it found: name it, and why it
		// will not do, rather than only what to install.
		rep.add("browser", "warn", "only branded Google Chrome found ("+exe+"): since version 137 it ignores --load-extension, so a managed browser would start without bua's extension", install)
	case errors.Is(ferr, browser.ErrNotFound): // its message repeats the install step
		rep.add("browser", "warn", "no Chromium browser found on PATH, in the usual install folders, Playwright's and Puppeteer's caches or ./chrome/", install)
	case ferr != nil:
		rep.add("browser", "warn", ferr.Error(), install)
	default:
		rep.add("browser", "ok", exe)
	}
	return ferr == nil
}

// tokenChecks checks the pairing tokens and the managed browser's record;
// true when the user pairing has a token.
func (rep *doctorReport) tokenChecks(d home.Dirs) bool {
	tok, terr := bridge.ReadToken(d.TokenFile())
	switch {
	case terr != nil:
		rep.add("token", "fail", terr.Error()+": no extension can pair as your browser with it",
			"run `bua pair` for a new token, and paste it into the bua extension's options (or pair with a code: `bua pair --code`)")
	case tok == "":
		rep.add("token", "warn", "no user pairing: actions use a managed browser", "to use your own Chrome: `bua pair`")
	default:
		if perr := home.CheckPrivate(d.TokenFile()); perr != nil {
			rep.add("token", "fail", perr.Error(), home.PrivateFix(d.TokenFile(), false))
		} else {
			rep.add("token", "ok", "user pairing token set ("+home.PrivateFiles+")")
		}
	}
	if _, merr := bridge.ReadToken(d.ManagedTokenFile()); merr != nil {
		rep.add("token", "warn", merr.Error(), "nothing to do: the daemon replaces the managed pairing's token when it next starts or launches its browser")
	}
	if _, rerr := browser.ReadRecord(d.BrowserRecord()); errors.Is(rerr, browser.ErrCorruptRecord) {
		rep.add("managed", "warn", rerr.Error(), "`bua browser stop` (or the next launch) moves it aside, and stops the browser it stood for, found by its profile")
	}
	return tok != ""
}

// fileChecks checks the link and bua's files; false when the link is not
// the user's alone, so nothing further can be checked.
func (rep *doctorReport) fileChecks(d home.Dirs) bool {
	var unsafe *home.UnsafeError
	if errors.As(d.CheckLink(false), &unsafe) {
		// The CLI refuses to speak on this link, and the daemon to
		// serve from it: nothing further can be checked.
		rep.add(home.LinkCheck, "fail", unsafe.Problem, unsafe.Fix)
		return false
	}
	var bad []string
	for _, p := range []string{d.Config, d.State, d.Runtime, filepath.Dir(d.Link()), d.Link(), d.InfoFile(), d.ManagedTokenFile()} {
		if perr := home.CheckPrivate(p); perr != nil && !home.IsNotExist(perr) {
			bad = append(bad, perr.Error())
		}
	}
	if len(bad) > 0 {
		rep.add("files", "fail", strings.Join(bad, "; "), "run the command each one names, or remove bua's directories and rerun")
	} else {
		rep.add("files", "ok", home.PrivateFiles)
	}
	return true
}

// daemonDown reports a daemon that does not run: a browser it left behind,
// and whether the port a new one would listen on is free (the result).
func (rep *doctorReport) daemonDown(env *Env, d home.Dirs) (portFree bool) {
	rep.add("daemon", "warn", "not running (any action command starts it)", "or run `bua serve` to see its log in the terminal")
	if o := bridge.OrphanStatus(d); o.Running {
		rep.add("managed", "warn", fmt.Sprintf("a managed browser (pid %d) was left running by a daemon that is gone; the next daemon stops it", o.PID), "or stop it now: `bua browser stop`")
	}
	listen := listenAddr(env)
	if _, port, _ := net.SplitHostPort(listen); port == "0" {
		rep.add("port", "ok", listen+": the daemon will pick a free port")
	} else if ln, lerr := net.Listen("tcp", listen); lerr != nil {
		rep.add("port", "fail", listen+" is taken by another program", "stop that program, or run `bua serve --listen 127.0.0.1:PORT` and set that URL in the extension")
		return false
	} else {
		ln.Close()
		rep.add("port", "ok", listen+" is free")
	}
	return true
}

// daemonUp reports a running daemon (st) and its extensions; paired says
// the user pairing has a token.
func (rep *doctorReport) daemonUp(st bridge.Status, paired bool) {
	rep.add("daemon", "ok", fmt.Sprintf("running (pid %d, %s)", st.PID, st.Version))
	if st.Version != version {
		rep.add("daemon", "warn", fmt.Sprintf("daemon is version %s, this binary %s", st.Version, version), "restart it: `bua stop`")
	}
	rep.add("port", "ok", "listening on "+st.URL)
	if len(st.Connections) == 0 {
		msg := "no extension connected"
		if paired {
			rep.add("extension", "warn", msg, "open Chrome with the bua extension loaded; it reconnects by itself", "or start a managed browser: `bua browser start`")
		} else {
			rep.add("extension", "warn", msg+": the first action launches a managed browser")
		}
	}
	for name, at := range st.Replaced {
		// The replaced extension took close 4003 as final: it will not
		// come back by itself (pkg/bridge/replaced.go).
		msg := fmt.Sprintf("the %s pairing's extension was replaced at %s by another connection with its token, which has gone: it does not reconnect by itself", name, at.Format(time.TimeOnly))
		step := "restart the managed browser: `bua browser stop`, then `bua browser start`"
		if !bridge.IsManaged(name) {
			step = "reconnect from the bua extension's options in Chrome, and look for a second browser or profile paired with the same token"
		}
		rep.add("extension", "warn", msg, step)
	}
	for _, cn := range st.Connections {
		level, steps := "ok", []string(nil)
		msg := fmt.Sprintf("%s browser connected: extension %s, protocol v%d", cn.Browser, cn.ClientVersion, cn.ProtocolVersion)
		if cn.ClientVersion != extension.Version() {
			level = "warn"
			msg += fmt.Sprintf(" (this binary bundles %s)", extension.Version())
			steps = []string{"reload the extension from `bua extension path` in chrome://extensions"}
		}
		rep.add("extension", level, msg, steps...)
	}
}

// sandboxCheck says whether the managed browser runs with Chromium's
// sandbox: off only when bua runs as root (browser.SandboxOff), because
// Chromium refuses to start as root with it on.
func sandboxCheck(off bool) check {
	if off {
		return check{Name: "sandbox", Level: "warn",
			Message: "off: bua runs as root, and Chromium refuses root with its sandbox on, so the managed browser gets --no-sandbox",
			Steps:   []string{"run bua as a normal user to keep the sandbox on (fine in a throwaway CI container)"}}
	}
	return check{Name: "sandbox", Level: "ok", Message: "on: the managed browser runs with Chromium's sandbox (bua is not root)"}
}

// verdict is doctor's last line: ready, or what stands in the way, naming
// only the kind of line that is really there.
func (r doctorReport) verdict() string {
	if r.Ready {
		return "bua can serve actions now."
	}
	levels := map[string]bool{}
	for _, ch := range r.Checks {
		levels[ch.Level] = true
	}
	switch {
	case levels["fail"]:
		return "bua cannot serve actions yet: fix the FAIL lines above."
	case levels["warn"]:
		return "bua cannot serve actions yet: see the warn lines above, and follow their steps."
	}
	return "bua cannot serve actions yet: no browser is connected, and none may be launched: pair Chrome with `bua pair` or run `bua browser start`."
}
