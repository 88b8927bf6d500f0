//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// TestHomeDeleted: deleting BUA_HOME under a running daemon and managed
// browser stops both within seconds, so no ghost keeps the port and the
// browser while the next command starts a second daemon for the home; and
// the home stays deleted, though the browser's page was writing into its
// profile all along (Chromium creates the profile's folders again as it
// writes).
func TestHomeDeleted(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	deleteUnderBrowser(t, harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(home)}, home, home)
}

// TestStateDirDeleted: with XDG dirs, the lock and socket in
// XDG_RUNTIME_DIR, deleting bua's state dir (logs, the browser's profile)
// under a running daemon and browser stops both too, and the state dir
// stays deleted.
func TestStateDirDeleted(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range harness.FreshEnv(dir) {
		if !strings.HasPrefix(kv, "BUA_HOME=") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+dir, "XDG_RUNTIME_DIR="+run)
	deleteUnderBrowser(t, harness.Cmd{Bin: buaBin, Env: env}, dir, filepath.Join(dir, ".local", "state", "bua"))
}

// deleteUnderBrowser starts cmd's managed browser on a page that writes
// into its profile, deletes gone (as `rm -rf`, run again while the browser
// races it), and checks that the daemon and the browser's whole process
// group stop within seconds and that gone stays deleted once they have.
func deleteUnderBrowser(t *testing.T, cmd harness.Cmd, logs, gone string) {
	t.Helper()
	if r := run(t, cmd, 90*time.Second, "browser", "start", "--headless"); r.Code != 0 {
		harness.DumpLogs(logs)
		t.Fatalf("browser start: exit %d\n%s", r.Code, r.Output())
	}
	st := status(t, cmd)
	if st.PID <= 0 || st.Managed.PID <= 0 {
		t.Fatalf("status --json = %+v: want the daemon's and the browser's pids", st)
	}
	t.Cleanup(func() {
		for _, pid := range []int{st.PID, st.Managed.PID} {
			if browser.Alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	mustOK(t, "open", run(t, cmd, 30*time.Second, "open", siteURL("faults/busy.html")))
	if !waitFor(10*time.Second, func() bool {
		r := run(t, cmd, 10*time.Second, "eval", "return document.title")
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(r.Stdout), "busy "))
		return n >= 20 // the page has made caches, and writes on
	}) {
		t.Fatal("the busy page did not start writing")
	}
	start := time.Now()
	tries := 1
	for err := os.RemoveAll(gone); err != nil; err = os.RemoveAll(gone) {
		if time.Since(start) > 5*time.Second {
			t.Fatal(err)
		}
		tries++
		time.Sleep(50 * time.Millisecond)
	}
	deleted := time.Since(start)
	for time.Since(start) < 10*time.Second && (browser.Alive(st.PID) || len(browser.GroupMembers(st.Managed.PID)) > 0) {
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	if browser.Alive(st.PID) || len(browser.GroupMembers(st.Managed.PID)) > 0 {
		t.Fatalf("after deleting %s: daemon alive %v, browser processes %v, %s later", gone, browser.Alive(st.PID), browser.GroupMembers(st.Managed.PID), took.Round(time.Millisecond))
	}
	if took > 5*time.Second {
		t.Fatalf("daemon and browser took %s to stop, want a few seconds", took)
	}
	// Nothing that could write there is left: what is there now stays.
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		found, _ := filepath.Glob(filepath.Join(gone, "*", "*"))
		t.Fatalf("%s is back after the daemon and the browser stopped: %v %v", gone, err, found)
	}
	t.Logf("deleted in %d tries (%s); daemon and browser gone %s after the deletion began; %s stays deleted", tries, deleted.Round(time.Millisecond), took.Round(time.Millisecond), gone)
}
