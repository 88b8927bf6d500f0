//go:build linux

package person

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// xvfbScreen is the virtual screen: room for the person's 1280×800 window.
const xvfbScreen = "1920x1080x24"

// startXvfb starts Xvfb on a display it picks itself (-displayfd: the
// server takes the first free display number and writes it to the given
// fd once it accepts clients), so parallel runs and a developer's own X
// servers never collide. It returns ":N" and a stop that ends the server.
func startXvfb() (string, func(), error) {
	exe, err := exec.LookPath("Xvfb")
	if err != nil {
		how := "install it (apt-get install xvfb) or set DISPLAY to a running X server"
		if os.Getenv("CI") == "true" {
			how = ".ci/run installs it with apt: check its install step"
		}
		return "", nil, fmt.Errorf("DISPLAY is unset and Xvfb is not on PATH: %s", how)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	// fd 3 in the child is ExtraFiles[0].
	cmd := exec.Command(exe, "-displayfd", "3", "-screen", "0", xvfbScreen, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	dieWithParent(cmd, false)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		return "", nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() { terminate(cmd, done) }

	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			stop()
			return "", nil, fmt.Errorf("Xvfb exited without a display: %s", stderr.String())
		}
		return ":" + n, stop, nil
	case <-time.After(15 * time.Second):
		stop()
		return "", nil, fmt.Errorf("Xvfb named no display within 15 s: %s", stderr.String())
	}
}

// terminate asks cmd to exit (SIGTERM: Xvfb then removes its socket and
// lock file in /tmp) and kills it after 5 s; done closes once it is reaped.
func terminate(cmd *exec.Cmd, done <-chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// startWM starts openbox, a small EWMH window manager, on display. A
// person's desktop always has one, and Chrome needs it: X11 has no
// "minimized" without a window manager (XIconifyWindow asks the manager),
// so the BUA window would stay a normal window on a bare Xvfb. openbox runs
// --startup once it manages the screen; that command writes a file, which
// says it is ready. The stop kills it.
func startWM(display, dir string) (func(), error) {
	exe, err := exec.LookPath("openbox")
	if err != nil {
		how := "install it (apt-get install openbox)"
		if os.Getenv("CI") == "true" {
			how = ".ci/run installs it with apt: check its install step"
		}
		return nil, fmt.Errorf("openbox is not on PATH: the person's desktop needs a window manager to minimize windows: %s", how)
	}
	ready := filepath.Join(dir, "wm-ready")
	cmd := exec.Command(exe, "--sm-disable", "--startup", "touch "+ready)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	dieWithParent(cmd, false)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start openbox: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() { terminate(cmd, done) }
	if !poll(15*time.Second, func() bool { _, err := os.Stat(ready); return err == nil }) {
		stop()
		return nil, errors.New("openbox did not start within 15 s: " + stderr.String())
	}
	return stop, nil
}

// cancelDebuggingBar presses Cancel on Chrome's "started debugging this
// browser" bar in the focused window, with the keyboard as a person
// without a mouse does: F6 moves the focus from the page to the address
// bar, then the tab strip, then the bar's Cancel button (this Chromium's
// pane order, with no bookmarks bar), and Return presses it. The keys go
// through the X server (xdotool, XTEST), since the bar is Chrome's own UI,
// out of DevTools' reach.
func cancelDebuggingBar(t *testing.T) {
	t.Helper()
	cmd := exec.Command("xdotool", "key", "--clearmodifiers", "--delay", "150", "F6", "F6", "F6", "Return")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool key: %v\n%s", err, out)
	}
}
