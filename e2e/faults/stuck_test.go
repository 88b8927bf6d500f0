//go:build linux

package faults

import (
	"bytes"
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
)

// TestStuckDaemon: against a daemon suspended with SIGSTOP (its socket
// still takes connections; nothing answers), `--timeout 2s` bounds
// `status`, `stop` and `browser stop`: each fails within the timeout and a
// second, exit 4, saying the daemon (by pid) does not answer, with no kill
// command in its hint. Resumed, the daemon acts on the stop it was sent.
// It needs no browser: `bua serve` alone, in a home of its own.
func TestStuckDaemon(t *testing.T) {
	t.Parallel()
	dir := harness.TempDir("buastuck") // short: the socket path must fit sun_path
	home := filepath.Join(dir, "h")
	cmd := harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(home)}
	serve := exec.Command(buaBin, "serve")
	serve.Env = cmd.Env
	serve.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	pid := serve.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGCONT)
		syscall.Kill(pid, syscall.SIGKILL)
		serve.Wait()
		os.RemoveAll(dir)
	})
	if !waitFor(10*time.Second, func() bool { return run(t, cmd, 5*time.Second, "status", "--quiet").Code == 0 }) {
		harness.DumpLogs(home)
		t.Fatal("bua serve never answered status")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// kill(2) returns before every thread has stopped.
	if !waitFor(5*time.Second, func() bool { return procState(pid) == "T" }) {
		t.Fatalf("the daemon is in state %q after SIGSTOP", procState(pid))
	}
	const timeout = 2 * time.Second
	for _, args := range [][]string{{"status"}, {"stop"}, {"browser", "stop"}} {
		t0 := time.Now()
		r := run(t, cmd, 30*time.Second, append([]string{"--timeout", timeout.String()}, args...)...)
		took := time.Since(t0)
		out := r.Output()
		name := strings.Join(args, " ")
		if r.Code != 4 || !strings.Contains(out, "bua daemon (pid "+strconv.Itoa(pid)+")") || !strings.Contains(out, "did not answer") {
			t.Errorf("%s against a stopped daemon: exit %d after %s\n%s\nwant 4, naming the daemon that does not answer", name, r.Code, took, out)
		}
		if took >= timeout+time.Second {
			t.Errorf("%s took %s with --timeout %s", name, took.Round(time.Millisecond), timeout)
		}
		noKillHint(t, name, out)
		t.Logf("--timeout %s against a SIGSTOPped daemon: %s failed in %s", timeout, name, took.Round(time.Millisecond))
	}
	// Resumed, it reads what the commands sent before they gave up, the
	// stop among them (as the error warned), and stops.
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return !browser.Alive(pid) }) {
		t.Error("the resumed daemon did not act on the stop it was sent while suspended")
	}
	if r := run(t, cmd, 10*time.Second, "--timeout", timeout.String(), "status"); r.Code != 4 || !strings.Contains(r.Stdout, "daemon: down") {
		t.Errorf("status after the resumed daemon stopped: exit %d\n%s", r.Code, r.Output())
	}
}

// procState is pid's state letter (field 3 of /proc/PID/stat): T when
// stopped.
func procState(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	return f[0]
}
