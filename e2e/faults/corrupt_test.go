//go:build linux

package faults

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
	bhome "github.com/bua-dev/bua/pkg/home"
)

// killHint matches a kill command in bua's output: no hint may print one,
// least of all aimed at group 0 (`kill -- -0` is the caller's own group),
// 1 or a negative id.
var killHint = regexp.MustCompile(`\bkill\b|-- -0\b`)

// noKillHint fails t when out suggests a kill command.
func noKillHint(t *testing.T, what, out string) {
	t.Helper()
	if killHint.MatchString(out) {
		t.Errorf("%s prints a kill command:\n%s", what, out)
	}
}

// homeDirs resolves a BUA_HOME as bua does.
func homeDirs(t *testing.T, home string) bhome.Dirs {
	t.Helper()
	d, err := bhome.Resolve(func(k string) string {
		if k == "BUA_HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// logCount counts msg in the home's daemon.log.
func logCount(t *testing.T, home, msg string) int {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(home, "daemon.log"))
	return strings.Count(string(data), msg)
}

// TestCorruptRecord: an unreadable browser/browser.json costs one clear
// message and leaks nothing, whatever holds the home:
//   - with the daemon killed and its browser an orphan, `bua status`
//     reports the orphan, found by its profile, and the record's fault;
//     `bua browser stop` stops its whole group (one line on stderr saying
//     where the record went) and a later launch works;
//   - with the daemon and browser running, `bua stop` stops both, and the
//     next launch works, logging the heal once;
//   - a record naming pid 0, 1 or a negative pid is moved aside, and
//     nothing is signalled;
//   - a record naming the very process group `bua browser stop` runs in
//     (a browser whose wrapper runs bua) is refused by the signal guard:
//     bua and that group live on.
//
// No output anywhere names a kill command.
func TestCorruptRecord(t *testing.T) {
	t.Parallel()
	cmd, home := ownBrowser(t)
	profile := harness.ManagedProfile(home)
	d := homeDirs(t, home)
	record := d.BrowserRecord()
	survived, faults := 0, 0
	fault := func(name string, ok bool) {
		faults++
		if ok {
			survived++
		} else {
			t.Errorf("fault not survived: %s", name)
		}
	}

	// 1. The daemon killed, its browser an orphan, its record garbage.
	st := status(t, cmd)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDead(t, st.PID, d.Link())
	if err := os.WriteFile(record, []byte("{\"pid\": 12, garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, cmd, 30*time.Second, "status")
	noKillHint(t, "status", r.Output())
	fault("status reports the orphan behind a corrupt record",
		r.Code == 4 && strings.Contains(r.Stdout, "orphan (pid "+strconv.Itoa(st.Managed.PID)) && strings.Contains(r.Stdout, "unreadable"))
	if t.Failed() {
		t.Fatalf("status: exit %d\n%s", r.Code, r.Output())
	}
	t0 := time.Now()
	r = run(t, cmd, 30*time.Second, "browser", "stop")
	stopTook := time.Since(t0)
	noKillHint(t, "browser stop", r.Output())
	left := homeProcs(profile, st.Managed.PID)
	fault("browser stop finds the orphan by its profile and stops it",
		r.Code == 0 && strings.Contains(r.Stdout, "managed browser stopped (pid "+strconv.Itoa(st.Managed.PID)) && len(left) == 0)
	if lines := strings.Split(strings.TrimSpace(r.Stderr), "\n"); len(lines) != 1 || !strings.Contains(r.Stderr, "moved it to") {
		t.Errorf("browser stop's stderr: %q, want one line saying where the record went", r.Stderr)
	}
	if t.Failed() {
		t.Fatalf("browser stop: exit %d, %d processes left\n%s", r.Code, len(left), r.Output())
	}
	t0 = time.Now()
	r = run(t, cmd, 90*time.Second, "browser", "start", "--headless")
	fault("a launch after the heal works", r.Code == 0)
	t.Logf("corrupt record, daemon killed: browser stop found and stopped the orphan in %s; the next launch took %s",
		stopTook.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))

	// 2. The record damaged under a running daemon and browser.
	st = status(t, cmd)
	if err := os.WriteFile(record, []byte{0xff, 0x00, '{'}, 0o600); err != nil {
		t.Fatal(err)
	}
	// The record is healed once, by the stop (which moves it aside as it
	// stops the browser) or by the next launch, never by both.
	before := logCount(t, home, "unreadable managed browser record moved aside")
	r = run(t, cmd, 30*time.Second, "stop")
	noKillHint(t, "stop", r.Output())
	fault("stop with a corrupt record stops daemon and browser", r.Code == 0 && len(homeProcs(profile, st.Managed.PID)) == 0)
	r = run(t, cmd, 90*time.Second, "browser", "start", "--headless")
	healed := logCount(t, home, "unreadable managed browser record moved aside") - before
	fault("the launch after stop works, and the heal is said once in the log", r.Code == 0 && healed == 1 && r.Stderr == "")
	if t.Failed() {
		t.Fatalf("launch after a corrupt record: exit %d, %d heal lines in daemon.log\n%s", r.Code, healed, r.Output())
	}
	mustOK(t, "stop", run(t, cmd, 30*time.Second, "stop"))

	// 3. Records whose pid is no browser's: 0, 1 and negative ones are
	// moved aside; this test's own group (its leader, if it lives, is no
	// browser started then) is a stale record, removed. Nothing is
	// signalled.
	own := syscall.Getpgrp()
	for _, tc := range []struct {
		pid   int
		start string
		moved bool
	}{{0, "1", true}, {1, "1", true}, {-1, "1", true}, {-own, "1", true}, {own, "1", false}} {
		rec := fmt.Sprintf(`{"pid": %d, "procStart": %q, "profileDir": %q}`, tc.pid, tc.start, profile)
		if err := os.WriteFile(record, []byte(rec), 0o600); err != nil {
			t.Fatal(err)
		}
		r = run(t, cmd, 30*time.Second, "browser", "stop")
		noKillHint(t, "browser stop", r.Output())
		_, err := os.Stat(record)
		fault(fmt.Sprintf("a record naming pid %d", tc.pid),
			r.Code == 0 && strings.Contains(r.Stderr, "moved it to") == tc.moved && os.IsNotExist(err) && browser.Alive(os.Getpid()))
	}

	// 4. A record naming the group bua itself runs in.
	leader := exec.Command("sh", "-c", "sleep 60 & wait", "sh", "--user-data-dir="+profile)
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := leader.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); leader.Wait() })
	rec, err := browser.Identify(pgid, profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := browser.WriteRecord(record, rec); err != nil {
		t.Fatal(err)
	}
	inGroup := exec.Command(buaBin, "browser", "stop")
	inGroup.Env = cmd.Env
	inGroup.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	out, err := inGroup.CombinedOutput()
	noKillHint(t, "browser stop in the recorded group", string(out))
	var ee *exec.ExitError
	fault("a record naming bua's own process group is refused",
		errors.As(err, &ee) && strings.Contains(string(out), "own process group") && browser.Alive(pgid))
	if t.Failed() {
		t.Fatalf("browser stop inside the recorded group: %v\n%s", err, out)
	}
	t.Logf("corrupt browser record: %d of %d faults survived", survived, faults)
}

// TestCorruptToken: a damaged managed-token (garbage, one byte, a wrong
// length) costs no message at all on the command line, and one line in
// the daemon's log, whether the daemon was down (it heals at start) or
// running with its browser connected (the browser keeps working, and the
// next launch heals); a damaged user token makes `bua doctor` fail with
// `bua pair`, which mends it.
func TestCorruptToken(t *testing.T) {
	t.Parallel()
	cmd, home := ownBrowser(t)
	d := homeDirs(t, home)
	survived, faults := 0, 0
	fault := func(name string, r harness.Result, ok bool) {
		t.Helper()
		faults++
		if ok {
			survived++
			return
		}
		t.Errorf("fault not survived: %s: exit %d\n%s", name, r.Code, r.Output())
	}
	const healed = "managed pairing token replaced"

	for _, bad := range []string{"\x00\x01garbage \n", "a", strings.Repeat("0", 63)} {
		// Down: the next command starts a daemon, which heals it.
		mustOK(t, "stop", run(t, cmd, 30*time.Second, "stop"))
		if err := os.WriteFile(d.ManagedTokenFile(), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		before := logCount(t, home, healed)
		t0 := time.Now()
		r := run(t, cmd, 60*time.Second, "open", siteURL("form.html"))
		took := time.Since(t0)
		fault(fmt.Sprintf("managed-token %q, daemon down", bad), r,
			r.Code == 0 && r.Stderr == "" && logCount(t, home, healed)-before == 1)
		t.Logf("managed-token %q with the daemon down: the first action took %s (daemon start, heal, launch)", bad, took.Round(time.Millisecond))
	}

	// Running: the connected browser goes on; a new launch heals.
	if err := os.WriteFile(d.ManagedTokenFile(), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, cmd, 30*time.Second, "tabs")
	fault("managed-token damaged under a connected browser", r, r.Code == 0 && r.Stderr == "")
	mustOK(t, "browser stop", run(t, cmd, 30*time.Second, "browser", "stop"))
	before := logCount(t, home, healed)
	r = run(t, cmd, 60*time.Second, "open", siteURL("form.html"))
	fault("relaunch over a damaged managed-token", r, r.Code == 0 && r.Stderr == "" && logCount(t, home, healed)-before == 1)

	// The user's token: doctor says to pair again, and pairing mends it.
	if err := os.WriteFile(d.TokenFile(), []byte("0123"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = run(t, cmd, 30*time.Second, "doctor")
	fault("doctor with a damaged user token", r, strings.Contains(r.Stdout, "[FAIL] token") && strings.Contains(r.Stdout, "bua pair"))
	r = run(t, cmd, 30*time.Second, "pair", "--quiet")
	fault("pair mends a damaged user token", r, r.Code == 0 && len(strings.TrimSpace(r.Stdout)) == 64 && strings.Count(r.Stderr, "\n") == 1)
	r = run(t, cmd, 30*time.Second, "doctor")
	fault("doctor after pair", r, strings.Contains(r.Stdout, "[ok  ] token"))
	t.Logf("corrupt tokens: %d of %d faults survived", survived, faults)
}

// TestUnknownBrowserRequest: a CLI frame sent straight to the daemon's
// socket, as any client may, with a browser none of auto, user or managed
// is invalid_action listing them, and is not served by the shared browser
// as if it said auto.
func TestUnknownBrowserRequest(t *testing.T) {
	d := homeDirs(t, sharedHome)
	c, err := net.Dial("unix", d.Link())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answers := bufio.NewReader(c)
	send := func(browser string) map[string]json.RawMessage {
		t.Helper()
		frame := fmt.Sprintf(`{"id":%q,"op":"request","browser":%q,"action":{"type":"get_tabs"}}`+"\n", browser, browser)
		if _, err := c.Write([]byte(frame)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := answers.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(line, &res); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return res
	}
	res := send("bogus")
	var e struct{ Code, Message, Reason string }
	if err := json.Unmarshal(res["error"], &e); err != nil || e.Code != "invalid_action" || !strings.Contains(e.Message, "auto, user, managed") || !strings.Contains(e.Message, "bua pair --name") || res["result"] != nil {
		t.Fatalf("browser bogus: %s, want invalid_action listing auto, user, managed and how to name a pairing", res["error"])
	}
	if res := send("managed"); res["error"] != nil || res["result"] == nil {
		t.Fatalf("browser managed: error %s, result %s; want the tabs", res["error"], res["result"])
	}
}
