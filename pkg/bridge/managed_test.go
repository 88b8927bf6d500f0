package bridge_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// realLaunch is the daemon's real launcher (pkg/browser), as `bua serve`
// wires it, for an executable that is no browser.
func realLaunch(exe string) bridge.Launcher {
	return func(ctx context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
		return browser.Launch(ctx, browser.Options{Exec: exe, Headless: o.Headless, ProfileDir: o.ProfileDir, ExtensionDir: o.ExtensionDir, Log: o.Log})
	}
}

// fakeChrome writes an executable script that stands in for a browser, for
// the rows only a Unix shell can play (a signal); bridgetest.FakeChrome
// plays the others on every OS.
func fakeChrome(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "chrome")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLaunchExits: a managed browser that exits at launch fails the
// request that launched it (and `bua browser start`) at once, not after
// ManagedConnectTimeout: bridge_unavailable with its exit status and the
// last lines of its log (reason browser_exited), or reason no_display,
// saying to use --headless or Xvfb, when a browser with a window had no
// display.
func TestLaunchExits(t *testing.T) {
	display := func(v string) func(string) string {
		return func(k string) string {
			if k == "DISPLAY" {
				return v
			}
			return ""
		}
	}
	chrome := func(stderr string, code int) func(*testing.T) string {
		return func(t *testing.T) string { return bridgetest.FakeChrome(t, stderr, code) }
	}
	script := func(sh string) func(*testing.T) string {
		return func(t *testing.T) string { return fakeChrome(t, sh) }
	}
	for _, tc := range []struct {
		name     string
		exe      func(*testing.T) string
		os       string // "" for every OS, else the one it runs on: signals and DISPLAY are theirs
		headless bool
		getenv   func(string) string
		reason   string
		want     []string
	}{
		{"/bin/false", func(*testing.T) string { return "/bin/false" }, "unix", true, display(""), protocol.ReasonBrowserExited,
			[]string{"exited at launch (exit status 1)", "is empty"}},
		{"says why and exits 3", chrome("first line\nFATAL: no such profile, giving up\n", 3), "", true, display(""), protocol.ReasonBrowserExited,
			[]string{"exit status 3", "FATAL: no such profile, giving up", "first line", "browser.log"}},
		{"killed by a signal", script(`kill -9 $$`), "unix", true, display(""), protocol.ReasonBrowserExited,
			[]string{"signal: killed"}},
		{"a window, no DISPLAY", chrome("", 1), "linux", false, display(""), protocol.ReasonNoDisplay,
			[]string{"needs a display", "DISPLAY and WAYLAND_DISPLAY are unset", "--headless", "xvfb-run"}},
		{"a window, its log says no display", chrome("ERROR:ozone_platform_x11.cc(257)] Missing X server or $DISPLAY\n", 1), "", false, display(":99"), protocol.ReasonNoDisplay,
			[]string{"Missing X server or $DISPLAY", "--headless"}},
		{"a window, a display, another fault", chrome("segfault\n", 139), "", false, display(":99"), protocol.ReasonBrowserExited,
			[]string{"exit status 139", "segfault"}},
	} {
		switch {
		case tc.os == "unix" && runtime.GOOS == "windows", tc.os == "linux" && runtime.GOOS != "linux":
			continue // what this OS has no such thing as
		}
		t.Run(tc.name, func(t *testing.T) {
			h := bridgetest.StartDaemon(t, bridge.Config{Getenv: tc.getenv, Launch: realLaunch(tc.exe(t))})
			cl, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: h.Dirs, Browser: bridge.SelectManaged})
			if perr != nil {
				t.Fatal(perr)
			}
			defer cl.Close()
			check := func(what string, err *protocol.Error, took time.Duration) {
				t.Helper()
				if err == nil || err.Code != protocol.CodeBridgeUnavailable || err.Reason != tc.reason {
					t.Fatalf("%s: %+v, want bridge_unavailable, reason %s", what, err, tc.reason)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Message, w) {
						t.Errorf("%s: message lacks %q:\n%s", what, w, err.Message)
					}
				}
				if took > 2*time.Second {
					t.Errorf("%s failed after %s, want at once", what, took)
				}
				t.Logf("%s failed in %s: %s", what, took.Round(time.Millisecond), err.Message)
			}
			start := time.Now()
			_, err := cl.BrowserStart(context.Background(), "", bridge.BrowserOptions{Headless: tc.headless})
			check("browser start", err, time.Since(start))
			if tc.headless {
				// An action launches headless, as every auto launch does.
				start = time.Now()
				_, err = cl.Request(context.Background(), protocol.GetTabs())
				check("a request", err, time.Since(start))
			}
		})
	}
}

// TestCorruptRecordHealed: with the browser record unreadable, status
// still reports the orphan (found by its profile) and the record's fault;
// the next daemon moves the record aside, stops the orphan's whole group
// and logs it once, and a later StopOrphan has nothing left to do.
func TestCorruptRecordHealed(t *testing.T) {
	dir, err := os.MkdirTemp("", "bua")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dirs := home.Dirs{Config: dir, State: dir, Runtime: dir}
	pid := bridgetest.StartOrphan(t, dirs)
	if err := os.WriteFile(dirs.BrowserRecord(), []byte(`{"pid": 0, "procStart": `), 0o600); err != nil {
		t.Fatal(err)
	}

	st := bridge.OrphanStatus(dirs)
	if !st.Orphan || st.PID != pid || !strings.Contains(st.RecordError, "unreadable") {
		t.Fatalf("OrphanStatus = %+v, want the orphan %d found by its profile and the record's fault", st, pid)
	}

	var logs syncbuf.Buffer
	h := bridgetest.StartDaemon(t, bridge.Config{Dirs: dirs, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if m := browser.GroupMembers(pid); len(m) > 0 {
		t.Fatalf("the daemon serves, and the orphan's group %d still has %v", pid, m)
	}
	moved, _ := filepath.Glob(dirs.BrowserRecord() + ".corrupt-*")
	if _, err := os.Stat(dirs.BrowserRecord()); !os.IsNotExist(err) || len(moved) != 1 {
		t.Fatalf("record %v, moved aside %v: want it moved aside once", err, moved)
	}
	if n := strings.Count(logs.String(), "unreadable managed browser record moved aside"); n != 1 {
		t.Fatalf("logged the heal %d times, want once:\n%s", n, logs.String())
	}
	status, perr := h.Client(t).Status(context.Background())
	if perr != nil || status.Managed.Running || status.Managed.RecordError != "" {
		t.Fatalf("status after the heal = %+v, %v", status.Managed, perr)
	}
	if s, err := bridge.StopOrphan(context.Background(), dirs); err != nil || s.Corrupt != nil || len(s.Browsers) > 0 {
		t.Fatalf("StopOrphan after the heal = %+v, %v; want nothing to do", s, err)
	}
}
