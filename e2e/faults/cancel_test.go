//go:build linux

package faults

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cancellation (docs/cancellation.md#cancellation): a caller that goes away (Ctrl-C,
// its --timeout) ends its action in the browser at once, so the next
// action on the tab does not queue behind it; a tab that closes ends every
// action pending on it with tab_not_found, whoever closed it.

// openBlank opens page on the fixture server in the shared browser and
// returns its tab id as a number.
func openBlank(t *testing.T, page string) int {
	t.Helper()
	tab, err := strconv.Atoi(openTab(t, shared, siteURL(page)))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// waiter is a `bua wait-for '#never'` on a tab, running as its own process.
type waiter struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	exitedAt       time.Time
}

// startWaiter starts `bua wait-for '#never' --tab TAB` with the wait's
// --timeout, e.g. "30s".
func startWaiter(t *testing.T, tab int, timeout string) *waiter {
	t.Helper()
	w := &waiter{done: make(chan struct{})}
	args := []string{"--timeout", timeout, "wait-for", "#never", "--tab", strconv.Itoa(tab)}
	w.cmd = exec.Command(shared.Bin, args...)
	w.cmd.Env = shared.Env
	w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.exitedAt = time.Now()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// wait waits up to limit for the waiter to exit and returns its exit code.
func (w *waiter) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-w.done:
		return w.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("wait-for still running %s later; stderr so far:\n%s", limit, w.stderr.String())
		return -1
	}
}

// daemonLog returns the shared daemon's log from offset on, and its size.
func daemonLog(t *testing.T, offset int64) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedHome, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data[min(offset, int64(len(data))):]), int64(len(data))
}

// assertOneAnswerEach: nothing is left in flight, and the daemon dropped
// no stray or late response since logOffset (a cancelled action sends
// none).
func assertOneAnswerEach(t *testing.T, logOffset int64) {
	t.Helper()
	waitInFlight(t, shared, 0)
	if log, _ := daemonLog(t, logOffset); strings.Contains(log, "stray or late response") {
		t.Fatalf("daemon dropped a stray response:\n%s", log)
	}
}

// evalOn runs `bua eval 'return 1'` on tab and returns when it answered.
func evalOn(t *testing.T, tab int) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := shared.Run(ctx, "eval", "return 1", "--tab", strconv.Itoa(tab))
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "1" {
		t.Fatalf("eval: exit %d\n%s", r.Code, r.Output())
	}
	return time.Now()
}

// TestCancel_Interrupt: Ctrl-C on a 30 s wait-for exits 130 at once, the
// daemon cancels the action in the extension (and logs it), and the next
// action on the same tab runs at once instead of queueing behind it.
func TestCancel_Interrupt(t *testing.T) {
	tab := openBlank(t, "blank.html")
	_, logStart := daemonLog(t, 0)
	w := startWaiter(t, tab, "30s")
	waitInFlight(t, shared, 1)
	time.Sleep(500 * time.Millisecond) // well into its polling
	interrupted := time.Now()
	if err := w.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 3*time.Second); code != 130 {
		t.Fatalf("interrupted wait-for exited %d, want 130 (interrupted)\n%s", code, w.stderr.String())
	}
	exitTook := w.exitedAt.Sub(interrupted)
	if !strings.Contains(w.stderr.String(), "interrupted") {
		t.Fatalf("stderr does not say interrupted:\n%s", w.stderr.String())
	}
	next := evalOn(t, tab).Sub(interrupted)
	t.Logf("Ctrl-C to exit: %s; Ctrl-C to the next action's answer on the same tab: %s", exitTook.Round(time.Millisecond), next.Round(time.Millisecond))
	if next > 3*time.Second {
		t.Fatalf("the next action on the tab answered %s after Ctrl-C: it queued behind the cancelled wait", next)
	}
	log, _ := daemonLog(t, logStart)
	if !regexp.MustCompile(`msg="request cancelled" id=\S+ action=wait_for reason="aborted by caller".* cancelSent=true`).MatchString(log) {
		t.Fatalf("daemon log has no cancellation line for the wait-for:\n%s", log)
	}
	assertOneAnswerEach(t, logStart)
}

// TestCancel_CallerTimeout: `bua --timeout 2s wait-for` (for wait-for the
// global --timeout is the wait's own) waits its 2 s, fails with timeout
// naming them, and the next action on the tab runs at once.
func TestCancel_CallerTimeout(t *testing.T) {
	tab := openBlank(t, "blank.html")
	_, logStart := daemonLog(t, 0)
	start := time.Now()
	w := startWaiter(t, tab, "2s")
	if code := w.wait(t, 10*time.Second); code != 5 {
		t.Fatalf("wait-for with --timeout 2s exited %d, want 5 (timeout)\n%s", code, w.stderr.String())
	}
	ended := w.exitedAt
	if msg := w.stderr.String(); !strings.Contains(msg, "error[timeout]") || !strings.Contains(msg, "after 2 s") {
		t.Fatalf("stderr does not say the wait timed out after 2 s:\n%s", msg)
	}
	if took := ended.Sub(start); took < 2*time.Second || took > 5*time.Second {
		t.Fatalf("wait-for --timeout 2s exited after %s, want a little over 2s", took)
	}
	next := evalOn(t, tab).Sub(ended)
	t.Logf("--timeout 2s: exited after %s; the next action answered %s later", ended.Sub(start).Round(time.Millisecond), next.Round(time.Millisecond))
	if next > 3*time.Second {
		t.Fatalf("the next action on the tab answered %s after the timeout: it queued behind the timed-out wait", next)
	}
	assertOneAnswerEach(t, logStart)
}

// TestCancel_TabClosed: a wait-for pending on a tab ends with tab_not_found
// as soon as the tab closes, whether `bua close` closed it (which must not
// queue behind the wait) or the page or person did (here: CDP
// Target.closeTarget from outside the extension).
func TestCancel_TabClosed(t *testing.T) {
	tests := []struct {
		name  string
		close func(t *testing.T, tab int, marker string)
	}{
		{"BuaClose", func(t *testing.T, tab int, _ string) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			r := shared.Run(ctx, "close", strconv.Itoa(tab))
			took := time.Since(start)
			if r.Code != 0 {
				t.Fatalf("close: exit %d\n%s", r.Code, r.Output())
			}
			t.Logf("bua close returned in %s while a wait-for was pending on the tab", took.Round(time.Millisecond))
			if took > time.Second {
				t.Fatalf("bua close took %s: it queued behind the pending wait", took)
			}
		}},
		{"ClosedOutside", func(t *testing.T, _ int, marker string) {
			cdp := sharedCDP(t)
			targets, err := cdp.Targets()
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range targets {
				if tg.Type == "page" && strings.Contains(tg.URL, marker) {
					if _, err := cdp.Call("", "Target.closeTarget", map[string]any{"targetId": tg.TargetID}); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
			t.Fatalf("no page target with %s among %v", marker, targets)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := fmt.Sprintf("cancel-%s-%d", tt.name, time.Now().UnixNano())
			tab := openBlank(t, "blank.html?"+marker)
			_, logStart := daemonLog(t, 0)
			w := startWaiter(t, tab, "30s")
			waitInFlight(t, shared, 1)
			time.Sleep(300 * time.Millisecond)
			closed := time.Now()
			tt.close(t, tab, marker)
			if code := w.wait(t, 5*time.Second); code != 1 {
				t.Fatalf("wait-for on a closed tab exited %d, want 1\n%s", code, w.stderr.String())
			}
			took := w.exitedAt.Sub(closed)
			if !strings.Contains(w.stderr.String(), "error[tab_not_found]") {
				t.Fatalf("wait-for on a closed tab did not fail tab_not_found:\n%s", w.stderr.String())
			}
			t.Logf("tab closed to the waiter's tab_not_found exit: %s", took.Round(time.Millisecond))
			if took > 3*time.Second {
				t.Fatalf("the waiter heard tab_not_found %s after the close, want at once", took)
			}
			assertOneAnswerEach(t, logStart)
		})
	}
}
