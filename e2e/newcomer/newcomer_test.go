// Package newcomer walks the README's first steps on a machine bua has
// never seen: a fresh BUA_HOME, no daemon, no pairing, CI=true. Nothing is
// started by hand; the first action command must start the daemon, which
// must launch a headless managed Chromium by itself. It is its own package
// so it gets its own TestMain, home and browser, untouched by the shared
// browser the e2e package starts with `bua browser start`.
package newcomer

import (
	"context"
	"encoding/json"
	"log"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
)

var (
	buaBin   string
	buaEnv   []string
	buaHome  string
	sitePort int
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	harness.RequireBrowser("newcomer")
	tmp := harness.TempDir("buanew")
	defer os.RemoveAll(tmp)
	buaBin = harness.BuildBua("../..", tmp)
	// A fresh home that does not exist yet, as on a new machine; bua must
	// create it.
	buaHome = filepath.Join(tmp, "h")
	buaEnv = harness.FreshEnv(buaHome)

	port, stop := harness.ServeSites("../../testdata/sites")
	defer stop()
	sitePort = port

	code := m.Run()
	// The test stops the daemon itself and checks that; this is the safety
	// net when it failed before getting there, so no browser outlives us.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r := bua(ctx, "stop"); r.Code != 0 {
		log.Printf("newcomer: bua stop exited %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if code != 0 {
		dumpLogs()
	}
	return code
}

type run = harness.Result

func bua(ctx context.Context, args ...string) run {
	return harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, args...)
}

// mustBua runs bua with a deadline fit for a first action (daemon start,
// browser launch, extension hello) and fails the test unless it exits 0.
func mustBua(t *testing.T, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := bua(ctx, args...)
	if r.Code != 0 {
		t.Fatalf("bua %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

func dumpLogs() { harness.DumpLogs(buaHome) }

func siteURL(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(sitePort) + "/" + path
}

// TestDoctorHonorsBUA_LISTEN runs before any daemon exists (tests run in
// file order). With BUA_LISTEN=127.0.0.1:0 the daemon will not use the
// default port 127.0.0.1:48123, so another program holding that port is
// no problem, and doctor must not report one: a FAIL line next to "bua can
// serve actions now" (exit 0) contradicts itself either way.
func TestDoctorHonorsBUA_LISTEN(t *testing.T) {
	if ln, err := net.Listen("tcp", bridge.DefaultListen); err == nil {
		defer ln.Close() // else someone holds it already, which is the same case
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := bua(ctx, "doctor")
	if r.Code != 0 {
		t.Fatalf("doctor exits %d on a fresh CI machine with Chromium:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "FAIL") {
		t.Errorf("doctor exits 0 (\"can serve actions\") but reports a FAIL although BUA_LISTEN=127.0.0.1:0:\n%s", r.Stdout)
	}
}

// TestNewcomerPath: doctor, navigate, extract, click a uid from that
// extract, tabs, and stop, with no `bua serve` or `bua browser start`.
func TestNewcomerPath(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r := bua(ctx, "status"); r.Code != 4 || !strings.Contains(r.Stdout, "daemon: down") {
		t.Fatalf("a fresh home has a daemon already? status exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}

	// doctor: ready, because CI=true and Chromium is installed, although
	// nothing runs yet.
	doc := mustBua(t, "doctor")
	if !strings.Contains(doc.Stdout, "bua can serve actions now.") {
		t.Errorf("doctor exit 0 without saying it can serve actions:\n%s", doc.Stdout)
	}
	var rep struct {
		Ready bool `json:"ready"`
	}
	if out := mustBua(t, "doctor", "--json").Stdout; json.Unmarshal([]byte(out), &rep) != nil || !rep.Ready {
		t.Errorf("doctor --json = %s, want ready: true", out)
	}

	// Stop in cleanup, and prove the managed browser went with the daemon.
	t.Cleanup(func() { stopAndCheck(t) })

	// The first action starts the daemon and launches headless Chromium;
	// its tab is the first the daemon sees: t1.
	if nav := mustBua(t, "navigate", siteURL("stale.html")); nav.Stdout != "ok (t1)\n" {
		t.Fatalf("navigate printed %q, want \"ok (t1)\"", nav.Stdout)
	}

	// extract, read the way a script does: find the button's line among
	// the element lines and take its uid.
	ext := mustBua(t, "extract").Stdout
	if !strings.HasPrefix(ext, "# Stale uids") {
		t.Errorf("extract does not start with the page's markdown:\n%s", ext)
	}
	row := regexp.MustCompile(`(?m)^(e[0-9]+) button "Press\b`).FindStringSubmatch(ext)
	if row == nil {
		t.Fatalf("extract has no line for the Press button:\n%s", ext)
	}
	if got := mustBua(t, "click", row[1]).Stdout; got != "ok (t1)\n" {
		t.Errorf("click %s printed %q, want ok on tab t1", row[1], got)
	}
	if got := mustBua(t, "eval", "return document.getElementById('result').textContent").Stdout; got != "clicked\n" {
		t.Errorf("after click %s the page shows %q, want clicked", row[1], got)
	}

	tabs := mustBua(t, "tabs").Stdout
	if !regexp.MustCompile(`(?m)^t1\t[0-9]+\t127\.0\.0\.1\tStale\b`).MatchString(tabs) {
		t.Errorf("tabs has no row for tab t1 (127.0.0.1, Stale):\n%s", tabs)
	}
}

// TestNewcomerClickSaysWhere: on a daemon of its own (TestNewcomerPath
// stopped the last), a click says where it went: the URL a link navigated
// to, or the tab a target=_blank link opened, by the short handle the
// daemon gave it (t2) and its URL; that handle then works as --tab and
// close's TAB, and a handle that names no tab says what to do.
func TestNewcomerClickSaysWhere(t *testing.T) {
	t.Cleanup(func() { stopAndCheck(t) })
	if got := mustBua(t, "navigate", siteURL("nav/newtab.html")).Stdout; got != "ok (t1)\n" {
		t.Fatalf("navigate printed %q, want \"ok (t1)\"", got)
	}
	if got, want := mustBua(t, "click", "#same").Stdout, "ok: navigated to "+siteURL("nav/target.html?same")+" (t1)\n"; got != want {
		t.Errorf("click on a link printed %q, want %q", got, want)
	}
	mustBua(t, "navigate", siteURL("nav/newtab.html"))
	if got, want := mustBua(t, "click", "#blank").Stdout, "ok: opened t2 "+siteURL("nav/target.html")+" (act on it with --tab t2)\n"; got != want {
		t.Errorf("click on a target=_blank link printed %q, want %q", got, want)
	}
	if got := mustBua(t, "eval", "--tab", "t2", "return document.title").Stdout; got != "The new tab\n" {
		t.Errorf("eval --tab t2 printed %q, want the new tab's title", got)
	}
	tabs := mustBua(t, "tabs").Stdout
	if !regexp.MustCompile(`(?m)^t1\t[0-9]+\t127\.0\.0\.1\tOpener\t`).MatchString(tabs) ||
		!regexp.MustCompile(`(?m)^t2\t[0-9]+\t127\.0\.0\.1\tThe new tab\t`+regexp.QuoteMeta(siteURL("nav/target.html"))+`$`).MatchString(tabs) {
		t.Errorf("tabs does not start the rows of t1 (Opener) and t2 (The new tab) with their handles:\n%s", tabs)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r := bua(ctx, "eval", "--tab", "t9", "return 1"); r.Code != 1 || !strings.Contains(r.Stderr, "no tab t9: bua tabs lists them") {
		t.Errorf("eval --tab t9: exit %d, stderr %q; want 1 saying no tab t9", r.Code, r.Stderr)
	}
	if got := mustBua(t, "close", "t2").Stdout; got != "closed (t2)\n" {
		t.Errorf("close t2 printed %q", got)
	}
	if r := bua(ctx, "eval", "--tab", "t2", "return 1"); r.Code != 1 || !strings.Contains(r.Stderr, "no tab t2: bua tabs lists them") {
		t.Errorf("eval --tab t2 after close t2: exit %d, stderr %q; want 1 saying no tab t2", r.Code, r.Stderr)
	}
}

// stopAndCheck runs `bua stop` and checks that the daemon and the managed
// browser it launched are both gone.
func stopAndCheck(t *testing.T) {
	var st struct {
		Managed struct {
			Running bool `json:"running"`
			PID     int  `json:"pid"`
		} `json:"managed"`
	}
	out := mustBua(t, "status", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &st); err != nil || !st.Managed.Running || st.Managed.PID <= 0 {
		t.Errorf("status --json before stop = %s: want the auto-launched managed browser running", out)
	}
	if got := mustBua(t, "stop").Stdout; got != "bua daemon stopped\n" {
		t.Errorf("stop printed %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r := bua(ctx, "status"); r.Code != 4 {
		t.Errorf("status after stop exits %d, want 4 (daemon down): %s", r.Code, r.Stdout)
	}
	if st.Managed.PID > 0 {
		deadline := time.Now().Add(15 * time.Second)
		for browser.Alive(st.Managed.PID) {
			if time.Now().After(deadline) {
				t.Errorf("managed browser pid %d still runs 15s after bua stop", st.Managed.PID)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
