package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// StopGrace is how long Stop waits after SIGTERM before SIGKILL. Chromium
// flushes its profile on SIGTERM; a few seconds is plenty.
const StopGrace = 5 * time.Second

// Options configure Launch.
type Options struct {
	// Exec is the browser executable; "" uses Find(os.Getenv).
	Exec string
	// Headless runs the new headless mode, which loads extensions.
	Headless bool
	// ProfileDir is --user-data-dir, created 0700 if missing. Required: bua
	// never touches a person's default profile.
	ProfileDir string
	// ExtensionDir is the unpacked extension to load (extension.WriteTo);
	// "" launches without one.
	ExtensionDir string
	// DownloadDir, when set, is where the browser saves downloads, without
	// asking: Launch writes it into the profile's preferences
	// (SetDownloadDir) before starting.
	DownloadDir string
	// ExtraArgs are appended after bua's flags and before the start URL.
	ExtraArgs []string
	// Log receives the browser's stderr; nil discards it.
	Log io.Writer
}

// Process is a launched browser.
type Process struct {
	exe      string // the executable Launch started
	cmd      *exec.Cmd
	group    Group   // read as it started, so Stop never signals a reused pid
	sys      sysProc // what the OS adds: the job object on Windows
	done     chan struct{}
	err      error // how it exited, set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Args returns the command-line flags Launch passes for o, without the
// executable: exposed so `bua doctor` and tests can show them.
func Args(o Options) []string {
	args := []string{
		"--user-data-dir=" + o.ProfileDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-features=Translate,MediaRouter",
		"--password-store=basic",
		"--use-mock-keychain",
		// No --remote-debugging-port: an open DevTools port has no
		// authentication, so any local user could drive the browser past
		// the pairing token and the socket's uid check. bua drives it
		// through the extension only.
	}
	if o.ExtensionDir != "" {
		args = append(args, "--load-extension="+o.ExtensionDir, "--disable-extensions-except="+o.ExtensionDir)
		// No "started debugging this browser" bar, headless or headful: it
		// appears a moment after the first attach, shrinking the viewport
		// under an action already running (a page at its bottom could
		// scroll again, a computed click point moved) and below the 1280×720
		// the extension sizes its windows for (window-manager.js VIEWPORT).
		// The browser is bua's own; a person's Chrome still shows the bar.
		args = append(args, "--silent-debugger-extension-api")
	}
	if o.Headless {
		args = append(args, "--headless", "--disable-gpu")
		// No startup window, as Playwright launches: Chromium starts the
		// extension's service worker ~300 ms sooner without one to load
		// first (BENCHMARKS.md §Cold start, this round), and nobody would
		// see it. The extension opens the BUA window itself at start-up;
		// keep-alive keeps the browser running while it has no window (it
		// would quit when the last one closes).
		args = append(args, "--no-startup-window", "--keep-alive-for-test")
		// A screen room enough for the extension's 1280×720 pages with the
		// window's toolbar (extension/src/windows/window-manager.js VIEWPORT):
		// headless Chromium's own is 800×600, and it clamps windows to it.
		args = append(args, "--screen-info={1920x1080}")
	}
	if SandboxOff() {
		args = append(args, "--no-sandbox")
	}
	args = append(args, o.ExtraArgs...)
	if o.Headless {
		return args
	}
	return append(args, "about:blank")
}

// SandboxOff reports whether Launch turns Chromium's sandbox off: only when
// bua runs as root, because Chromium refuses to start as root with it on
// (CI containers). `bua doctor` says which.
func SandboxOff() bool { return os.Geteuid() == 0 }

// Launch starts the browser and returns once the process is running (not
// once it is ready: wait for the extension's hello). The browser runs in
// its own process group on Unix, and in a job object that ends with this
// process on Windows (startBrowser), so Stop also ends its helper
// processes. ctx only bounds the start; use Stop to end the browser.
func Launch(ctx context.Context, o Options) (*Process, error) {
	if o.ProfileDir == "" {
		return nil, errors.New("browser: ProfileDir is required")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	exe := o.Exec
	if exe == "" {
		var err error
		if exe, err = Find(os.Getenv); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("browser: profile dir: %w", err)
	}
	if o.DownloadDir != "" {
		if err := SetDownloadDir(o.ProfileDir, o.DownloadDir); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(exe, Args(o)...)
	cmd.Stdout = nil
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	cmd.Stderr = log
	sys, err := startBrowser(cmd)
	if err != nil {
		return nil, fmt.Errorf("browser: start %s: %w", exe, err)
	}
	// Read before the reaper below can run: until then the process is at
	// worst a zombie, whose start time still reads.
	p := &Process{exe: exe, cmd: cmd, group: GroupOf(cmd.Process.Pid), sys: sys, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exe is the executable Launch started: the one Options.Exec named, or
// the one Find found.
func (p *Process) Exe() string { return p.exe }

// Pid is the browser's process id (also its process group id on Unix).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the browser process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the browser exited, once Done is closed: nil for exit status
// 0, else cmd.Wait's error (an *exec.ExitError reading "exit status 3" or
// "signal: killed"). It is nil while the browser runs.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Stop ends the browser's process group (Group.Stop: SIGTERM, then SIGKILL
// after StopGrace or when ctx ends; on Windows its job object is
// terminated) and waits until the main process is reaped. It is safe to
// call more than once; an already-exited browser is not an error, though
// helpers it left in its group are still ended.
func (p *Process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		p.stopErr = p.sys.stop(ctx, p.group)
		<-p.done
		p.sys.release()
	})
	return p.stopErr
}

// Kill ends the browser and its helpers at once (SIGKILL to its group;
// TerminateJobObject on Windows), without waiting: for a browser that
// must not write its profile back (a deleted home), which SIGTERM would
// let it do. Stop still reaps it.
func (p *Process) Kill() { _ = p.sys.kill(p.group) }

// ForgetServiceWorkers removes the service workers Chromium stored in
// profileDir (its Default/Service Worker folder): their registrations and
// cached scripts. Chromium starts an extension's stored worker again rather
// than the script on disk, even when the unpacked extension's files and
// version changed, so a launcher writing a new build of an extension calls
// this first. Sites' workers go too; they register again on the next visit.
func ForgetServiceWorkers(profileDir string) error {
	return os.RemoveAll(filepath.Join(profileDir, "Default", "Service Worker"))
}
