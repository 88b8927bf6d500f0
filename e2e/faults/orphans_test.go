//go:build linux

package faults

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
	bhome "github.com/bua-dev/bua/pkg/home"
)

// TestDaemonKilledLeavesNoBrowser: kill -9 of the daemon mid-request
// fails the waiting command fast (exit 4, saying the daemon went away)
// and leaves the managed browser running, as an orphan that `bua status`
// reports; `bua browser stop`, with no daemon, then ends its whole process
// group. A second kill -9 and a plain `bua browser start` gets a new
// daemon that stops the orphan before launching, so exactly one browser
// runs for the home (no SingletonLock failure).
func TestDaemonKilledLeavesNoBrowser(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	profile := harness.ManagedProfile(home)
	sock := bhome.Dirs{Config: home, State: home, Runtime: home}.Link()
	cmd := harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(home)}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var pids []int // every daemon and browser, killed at the end whatever happens
	t.Cleanup(func() {
		if t.Failed() {
			harness.DumpLogs(home)
		}
		for _, pid := range pids {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	start := func() (daemon, browserPID int) {
		t.Helper()
		if r := cmd.Run(ctx, "browser", "start", "--headless"); r.Code != 0 {
			harness.DumpLogs(home)
			t.Fatalf("browser start: exit %d\n%s", r.Code, r.Output())
		}
		st := status(t, cmd)
		if st.Managed.PID <= 0 {
			t.Fatalf("status --json has no managed browser pid after browser start: %+v", st)
		}
		pids = append(pids, st.PID, st.Managed.PID)
		return st.PID, st.Managed.PID
	}
	daemon, browserPID := start()

	// A request that waits 30 s, killed 1 s into its wait.
	if r := cmd.Run(ctx, "navigate", siteURL("blank.html")); r.Code != 0 {
		t.Fatalf("navigate: exit %d\n%s", r.Code, r.Output())
	}
	waiter := exec.CommandContext(ctx, buaBin, "wait-for", "#never", "--timeout", "30s")
	waiter.Env = cmd.Env
	var out bytes.Buffer
	waiter.Stdout, waiter.Stderr = &out, &out
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); status(t, cmd).InFlight == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the wait-for never reached the daemon")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	killed := time.Now()
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := waiter.Wait()
	failedIn := time.Since(killed)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Fatalf("wait-for after kill -9 of the daemon: %v, want exit 4 (bridge unavailable)\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "bridge_unavailable") || !strings.Contains(out.String(), "daemon exited before answering") {
		t.Errorf("wait-for's error does not say the daemon went away:\n%s", out.String())
	}
	if failedIn > 3*time.Second {
		t.Errorf("wait-for failed %s after the kill, want at once", failedIn)
	}
	if !browser.Alive(browserPID) {
		t.Fatal("the browser died with its daemon: nothing left to test")
	}

	waitDead(t, daemon, sock)
	r := cmd.Run(ctx, "status")
	if r.Code != 4 || !strings.Contains(r.Stdout, "orphan (pid "+strconv.Itoa(browserPID)) {
		t.Fatalf("status with the daemon killed: exit %d\n%s\nwant 4 and the orphan browser %d", r.Code, r.Output(), browserPID)
	}
	stopStart := time.Now()
	if r := cmd.Run(ctx, "browser", "stop"); r.Code != 0 || !strings.Contains(r.Stdout, "managed browser stopped (pid "+strconv.Itoa(browserPID)) {
		t.Fatalf("browser stop with no daemon: exit %d\n%s", r.Code, r.Output())
	}
	stopTook := time.Since(stopStart)
	left := homeProcs(profile, browserPID)
	if len(left) > 0 {
		t.Fatalf("processes %v of the browser are left after bua browser stop", left)
	}
	t.Logf("kill -9 of the daemon: wait-for failed in %s; bua browser stop (no daemon) took %s; %d browser processes left",
		failedIn.Round(time.Millisecond), stopTook.Round(time.Millisecond), len(left))

	// Again, and this time a new daemon deals with the orphan.
	daemon, browserPID = start()
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDead(t, daemon, sock)
	if !browser.Alive(browserPID) {
		t.Fatal("the browser died with its daemon")
	}
	restart := time.Now()
	_, browser2 := start()
	restartTook := time.Since(restart)
	if browser.Alive(browserPID) || len(homeProcs(profile, browserPID)) > len(homeProcs(profile, browser2)) {
		t.Errorf("the orphan %d survived the new daemon's start (alive %v)", browserPID, browser.Alive(browserPID))
	}
	if mains := browserMains(profile); len(mains) != 1 || mains[0] != browser2 {
		t.Errorf("browsers on the home's profile: %v, want exactly the new one, %d", mains, browser2)
	}
	t.Logf("browser start after kill -9 (new daemon, orphan stopped, new browser connected): %s", restartTook.Round(time.Millisecond))

	stopStart = time.Now()
	if r := cmd.Run(ctx, "stop"); r.Code != 0 {
		t.Fatalf("stop: exit %d\n%s", r.Code, r.Output())
	}
	t.Logf("bua stop (daemon and browser): %s", time.Since(stopStart).Round(time.Millisecond))
	if left := homeProcs(profile, browserPID, browser2); len(left) > 0 {
		t.Errorf("processes %v left after bua stop", left)
	}
	if _, err := os.Stat(filepath.Join(home, "browser", "browser.json")); !os.IsNotExist(err) {
		t.Errorf("the browser record outlived its browser: %v", err)
	}
}

// waitDead waits until the killed daemon is gone: a zombie at most, and
// its socket refusing connections. Its main thread turns zombie while
// other threads may still hold the socket open for a moment, and a
// command in that moment would reach a dying daemon.
func waitDead(t *testing.T, pid int, sock string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if !browser.Alive(pid) {
			c, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			c.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon %d outlived kill -9 (or its socket did)", pid)
		}
	}
}
