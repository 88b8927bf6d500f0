//go:build linux

// Package person runs bua the way a person does: their own, headful
// Chromium (under Xvfb when there is no display), with the extension loaded
// unpacked from `bua extension path` into a normal profile, paired by typing
// the daemon's URL and token into the extension's options page, and bua
// acting in its minimized BUA window while the person's own tab keeps the
// focus (README §Use your own Chrome, docs/extension.md#focus-and-input-in-the-bua-window).
//
// TestMain starts one of each for the package: Xvfb on a free display when
// DISPLAY is unset, `bua serve` with a home of its own and BUA_LISTEN on a
// free port (every command runs with --browser user, so the daemon may
// never launch a managed browser), and the person's Chromium with a
// persistent profile and --remote-debugging-port=0. That port is the test's
// own hand and eyes (opening the options page, typing, reading window
// state, stopping the worker); bua never uses it. Each test opens the tabs
// it needs and closes them.
//
// A missing Chromium, Xvfb, openbox (the window manager: X11 cannot
// minimize a window without one) or xdotool (to press Chrome's own
// buttons) fails the run, in CI and outside it: the project never skips a
// browser test. .ci/run installs them all.
//
// Budget: about 20 s on a 2-core machine, 90 s at most: the build and the
// browser's start take about 5 s, the tests about 15 s, every wait a poll
// with a deadline.
package person

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// updateDocs writes the pictures into docs/ as well as the artifacts dir.
var updateDocs = flag.Bool("update-docs", false, "write docs/options.png, docs/popup.png, docs/handoff.png and docs/record.png from this run")

var (
	buaCmd    harness.Cmd // runs bua against the package's daemon
	buaHome   string      // that daemon's BUA_HOME
	sitePort  int         // the fixture server's port on 127.0.0.1
	profile   string      // the person's Chromium profile (--user-data-dir)
	extDir    string      // the unpacked extension, as `bua extension path` wrote it
	chromeLog string      // the person's Chromium's stderr
	display   string      // the X display the person's Chromium shows on
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

// runMain sets everything up, runs the tests and tears down in reverse, so
// a failed start leaves no Xvfb, daemon or browser behind.
func runMain(m *testing.M) int {
	flag.Parse()
	var stops []func()
	defer func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}()
	if err := setUp(&stops); err != nil {
		fmt.Fprintf(os.Stderr, "e2e/person: %v\n", err)
		dumpLogs()
		return 1
	}
	code := m.Run()
	if code != 0 {
		dumpLogs()
	}
	return code
}

// setUp starts the display, the daemon and the person's browser, adding
// each one's stop to stops as it goes.
func setUp(stops *[]func()) error {
	chrome, err := browser.Find(os.Getenv)
	if err != nil {
		return fmt.Errorf("needs a real Chromium (.ci/run installs one; apt-get install chromium): %w", err)
	}
	tmp := harness.TempDir("buaperson")
	*stops = append(*stops, func() { os.RemoveAll(tmp) })
	if _, err := exec.LookPath("xdotool"); err != nil {
		return errors.New("xdotool is not on PATH: the tests press Chrome's own buttons with it (.ci/run installs it; apt-get install xdotool)")
	}
	display = os.Getenv("DISPLAY")
	if display == "" {
		d, stop, err := startXvfb()
		if err != nil {
			return err
		}
		*stops = append(*stops, stop)
		display = d
		stopWM, err := startWM(display, tmp)
		if err != nil {
			return err
		}
		*stops = append(*stops, stopWM)
	}
	bin := harness.BuildBua("../..", tmp)
	port, stopSites := harness.ServeSites("../../testdata/sites")
	*stops = append(*stops, stopSites)
	sitePort = port

	buaHome = filepath.Join(tmp, "h")
	buaCmd = harness.Cmd{Bin: bin, Env: personEnv(buaHome)}
	stopDaemon, err := startDaemon(tmp)
	if err != nil {
		return err
	}
	*stops = append(*stops, stopDaemon)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := buaCmd.Run(ctx, "extension", "path")
	if r.Code != 0 {
		return fmt.Errorf("bua extension path: exit %d\n%s", r.Code, r.Output())
	}
	extDir = strings.TrimSpace(r.Stdout)

	profile = filepath.Join(tmp, "profile")
	chromeLog = filepath.Join(tmp, "chrome.log")
	stopChrome, err := startChrome(chrome, display)
	if err != nil {
		return err
	}
	*stops = append(*stops, stopChrome)
	return nil
}

// personEnv is a fresh bua environment (harness.FreshEnv) but outside CI:
// with CI=true, --browser auto may launch a managed browser, and this
// package's point is that only the person's Chrome serves.
func personEnv(home string) []string {
	var env []string
	for _, kv := range harness.FreshEnv(home) {
		if !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	return env
}

// startDaemon runs `bua serve` as a child of the test, its output in
// dir/serve.log, and waits until `bua status` answers. The stop asks it to
// stop and kills it if it has not within 10 s.
func startDaemon(dir string) (func(), error) {
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(buaCmd.Bin, "serve")
	cmd.Env = buaCmd.Env
	dieWithParent(cmd, false)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("bua serve: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		buaCmd.Run(ctx, "stop")
		select {
		case <-done:
		case <-ctx.Done():
			cmd.Process.Kill()
			<-done
		}
	}
	up := poll(15*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return buaCmd.Run(ctx, "status", "--quiet").Code == 0
	})
	if !up {
		stop()
		return nil, errors.New("bua serve did not answer `bua status` within 15 s")
	}
	return stop, nil
}

// personArgs are the flags of the person's Chromium: a normal, headful
// profile of its own with the extension loaded unpacked, as a person
// loads it from chrome://extensions, and a DevTools port for the test
// alone. No --silent-debugger-extension-api: the person sees Chrome's
// "started debugging this browser" bar, as in real use.
func personArgs(display string) []string {
	args := []string{
		"--user-data-dir=" + profile,
		"--load-extension=" + extDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-sync",
		"--disable-component-update",
		"--disable-background-networking",
		"--password-store=basic",
		"--use-mock-keychain",
		"--window-size=1280,800",
		"--remote-debugging-port=0",
		"--display=" + display,
	}
	if browser.SandboxOff() {
		args = append(args, "--no-sandbox") // Chromium refuses root with its sandbox on
	}
	return append(args, "about:blank")
}

// startChrome starts the person's Chromium in a process group of its own
// and waits until its DevTools port is up and the extension's service
// worker runs. The stop ends the whole group.
func startChrome(exe, display string) (func(), error) {
	logf, err := os.Create(chromeLog)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, personArgs(display)...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.Stdout, cmd.Stderr = io.Discard, logf
	dieWithParent(cmd, true)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	group := browser.GroupOf(cmd.Process.Pid) // before the reaper runs
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		group.Stop(ctx, 5*time.Second)
		<-done
	}
	var url string
	if !poll(30*time.Second, func() bool { url, err = harness.DevToolsURL(profile); return err == nil }) {
		stop()
		return nil, fmt.Errorf("the person's Chromium opened no DevTools port within 30 s: %v", err)
	}
	c, err := harness.DialCDP(url)
	if err != nil {
		stop()
		return nil, err
	}
	defer c.Close()
	if !poll(30*time.Second, func() bool { _, ok := workerOf(c); return ok }) {
		stop()
		return nil, fmt.Errorf("the extension's service worker did not start within 30 s: was %s loaded?", extDir)
	}
	return stop, nil
}

// poll calls cond every 50 ms for at most d; false when it never held.
func poll(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// dumpLogs prints the tails of the daemon's and the browser's logs: the
// first place to look when the extension never connected.
func dumpLogs() {
	if buaHome != "" {
		harness.DumpLogs(buaHome)
	}
	if data, err := os.ReadFile(chromeLog); err == nil {
		if len(data) > 6000 {
			data = data[len(data)-6000:]
		}
		fmt.Fprintf(os.Stderr, "==== %s (tail) ====\n%s\n", chromeLog, data)
	}
}
