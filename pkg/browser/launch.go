package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
	// ExtraArgs are appended after bua's flags and before the start URL.
	ExtraArgs []string
	// Log receives the browser's stderr; nil discards it.
	Log io.Writer
}

// Process is a launched browser.
type Process struct {
	cmd        *exec.Cmd
	profileDir string
	done       chan struct{}
	waitErr    error
	stopOnce   sync.Once
	stopErr    error
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
		"--remote-debugging-port=0",
	}
	if o.ExtensionDir != "" {
		args = append(args, "--load-extension="+o.ExtensionDir, "--disable-extensions-except="+o.ExtensionDir)
	}
	if o.Headless {
		args = append(args, "--headless", "--disable-gpu")
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox on (CI containers).
		args = append(args, "--no-sandbox")
	}
	args = append(args, o.ExtraArgs...)
	return append(args, "about:blank")
}

// Launch starts the browser and returns once the process is running (not
// once it is ready: poll DevToolsURL or wait for the extension's hello).
// The browser runs in its own process group so Stop also ends its helper
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
	// A DevToolsActivePort left from an earlier run would point at a dead
	// port; remove it so DevToolsURL only ever reports this process.
	_ = os.Remove(filepath.Join(o.ProfileDir, "DevToolsActivePort"))
	cmd := exec.Command(exe, Args(o)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = nil
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("browser: start %s: %w", exe, err)
	}
	p := &Process{cmd: cmd, profileDir: o.ProfileDir, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the browser's process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the browser process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop ends the browser's process group: SIGTERM, then SIGKILL after
// StopGrace or when ctx ends, and waits until the main process is reaped.
// It is safe to call more than once; an already-exited browser is not an
// error.
func (p *Process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		pgid := p.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		grace := time.NewTimer(StopGrace)
		defer grace.Stop()
		select {
		case <-p.done:
		case <-grace.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		case <-ctx.Done():
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
			p.stopErr = ctx.Err()
		}
		// Helpers that outlived the main process (zygotes) go too; wait
		// briefly for them so a caller reusing the profile dir does not race
		// a dying helper still holding its lock.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		limit := time.NewTimer(2 * time.Second)
		defer limit.Stop()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for syscall.Kill(-pgid, 0) == nil {
			select {
			case <-tick.C:
				continue
			case <-limit.C:
			}
			break
		}
	})
	return p.stopErr
}

// DevToolsURL returns the browser-level CDP WebSocket URL,
// ws://127.0.0.1:PORT/devtools/browser/ID, read from the DevToolsActivePort
// file Chromium writes into the profile once it listens. It returns an
// error wrapping os.ErrNotExist until that file appears.
func (p *Process) DevToolsURL() (string, error) {
	return readDevToolsActivePort(p.profileDir)
}

// WaitDevTools polls DevToolsURL until it answers, the browser exits, or
// ctx ends.
func (p *Process) WaitDevTools(ctx context.Context) (string, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if u, err := p.DevToolsURL(); err == nil {
			return u, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("browser: no DevToolsActivePort in %s: %w", p.profileDir, ctx.Err())
		case <-p.done:
			return "", fmt.Errorf("browser exited before listening: %v", p.waitErr)
		case <-tick.C:
		}
	}
}

func readDevToolsActivePort(profileDir string) (string, error) {
	f, err := os.Open(filepath.Join(profileDir, "DevToolsActivePort"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	// Chromium writes the port, a newline, then the path: a reader can see
	// the file half written.
	if len(lines) < 2 || lines[0] == "" || lines[1] == "" {
		return "", fmt.Errorf("browser: DevToolsActivePort incomplete: %w", os.ErrNotExist)
	}
	return "ws://127.0.0.1:" + lines[0] + lines[1], nil
}
