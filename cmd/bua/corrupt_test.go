package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

// shortHome is a BUA_HOME short enough for its socket path, and its dirs.
func shortHome(t *testing.T) (string, home.Dirs) {
	t.Helper()
	dir, err := os.MkdirTemp("", "bua")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d, err := home.Resolve(func(k string) string {
		if k == "BUA_HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, d
}

// TestStuckDaemon: a daemon that takes the connection and never answers
// (a listener at the socket path standing in for a suspended one) bounds
// status, stop, browser stop and pair --code by --timeout: each fails
// within the timeout and a moment, exit 4, saying the daemon does not
// answer, and no hint names a kill command.
func TestStuckDaemon(t *testing.T) {
	dir, d := shortHome(t)
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	ln, err := home.ListenLink(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // read nothing, answer nothing
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	env := map[string]string{"BUA_HOME": dir}
	const timeout = 300 * time.Millisecond
	for _, args := range [][]string{{"status"}, {"stop"}, {"browser", "stop"}, {"status", "--json"}, {"pair", "--code"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			start := time.Now()
			r := runCLIEnv(t, nil, env, "", append([]string{"--timeout", timeout.String()}, args...)...)
			took := time.Since(start)
			out := r.stdout + r.stderr
			if r.code != exitUnavailable || !strings.Contains(out, "bridge_unavailable") || !strings.Contains(out, "did not answer") || !strings.Contains(out, "does not answer") {
				t.Fatalf("exit %d\n%s\nwant 4, saying the daemon did not answer", r.code, out)
			}
			if took > timeout+time.Second {
				t.Fatalf("took %s with --timeout %s", took, timeout)
			}
			if strings.Contains(out, "kill") {
				t.Fatalf("a hint names a kill command:\n%s", out)
			}
			t.Logf("--timeout %s: %s in %s", timeout, strings.Join(args, " "), took.Round(time.Millisecond))
		})
	}
}

// TestCorruptRecordCLI: with the daemon gone and its browser record
// unreadable, status reports the orphan found by its profile and the
// record's fault; `bua browser stop` stops the orphan's whole group, with
// one line on stderr saying the record was moved aside, and nothing it
// prints names a kill command; a second stop has nothing to do.
func TestCorruptRecordCLI(t *testing.T) {
	for _, bad := range []string{"{not json", `{"pid": 0, "procStart": "1", "profileDir": "/x"}`, `{"pid": 1, "procStart": "1", "profileDir": "/x"}`} {
		t.Run(bad, func(t *testing.T) {
			dir, d := shortHome(t)
			pid := bridgetest.StartOrphan(t, d)
			if err := os.WriteFile(d.BrowserRecord(), []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"BUA_HOME": dir}

			r := runCLIEnv(t, nil, env, "", "status")
			if r.code != exitUnavailable || !strings.Contains(r.stdout, "orphan (pid "+strconv.Itoa(pid)) || !strings.Contains(r.stdout, "unreadable") {
				t.Fatalf("status: exit %d\n%s\nwant the orphan %d found by its profile, and the record's fault", r.code, r.stdout, pid)
			}
			r = runCLIEnv(t, nil, env, "", "doctor")
			if !strings.Contains(r.stdout, "[warn] managed") || !strings.Contains(r.stdout, "unreadable") {
				t.Errorf("doctor does not warn of the record:\n%s", r.stdout)
			}

			r = runCLIEnv(t, nil, env, "", "browser", "stop")
			if r.code != 0 || !strings.Contains(r.stdout, "managed browser stopped (pid "+strconv.Itoa(pid)) {
				t.Fatalf("browser stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if n := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; r.stderr == "" || n != 1 || !strings.Contains(r.stderr, "moved it to") {
				t.Errorf("stderr: %q, want one line saying where the record went", r.stderr)
			}
			for _, out := range []string{r.stdout, r.stderr} {
				if strings.Contains(out, "kill") {
					t.Errorf("a kill command in the output:\n%s", out)
				}
			}
			if m := browser.GroupMembers(pid); len(m) > 0 {
				t.Fatalf("the orphan's group still has %v", m)
			}
			if moved, _ := filepath.Glob(d.BrowserRecord() + ".corrupt-*"); len(moved) != 1 {
				t.Errorf("moved aside: %v, want one file", moved)
			}
			r = runCLIEnv(t, nil, env, "", "browser", "stop")
			if r.code != 0 || !strings.Contains(r.stdout, "no managed browser") || r.stderr != "" {
				t.Fatalf("second browser stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestBadUserTokenCLI: doctor fails a damaged user token, saying to run
// `bua pair`, which makes a new one (one line on stderr); doctor is then
// happy with it. A damaged managed token is a warning: the daemon heals it.
func TestBadUserTokenCLI(t *testing.T) {
	dir, d := shortHome(t)
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BUA_HOME": dir}
	if err := os.WriteFile(d.TokenFile(), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.ManagedTokenFile(), []byte(strings.Repeat("f", 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLIEnv(t, nil, env, "", "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, c := range rep.Checks {
		if c.Name == "token" {
			levels[c.Level] = c.Message + " → " + strings.Join(c.Steps, "; ")
		}
	}
	if !strings.Contains(levels["fail"], "bua pair") || !strings.Contains(levels["fail"], d.TokenFile()) {
		t.Errorf("doctor's token FAIL: %q, want it to name the file and `bua pair`", levels["fail"])
	}
	if !strings.Contains(levels["warn"], d.ManagedTokenFile()) || !strings.Contains(levels["warn"], "replaces") {
		t.Errorf("doctor's managed token warning: %q", levels["warn"])
	}
	if rep.Ready || r.code != exitUnavailable {
		t.Errorf("doctor says ready (exit %d) with the user pairing broken and CI unset", r.code)
	}
	if strings.Contains(r.stdout, "xxxxx") {
		t.Error("doctor quotes the token file")
	}

	r = runCLIEnv(t, nil, env, "", "pair", "--quiet")
	tok := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(tok) != bridge.TokenLen || !strings.Contains(r.stderr, "made a new token") {
		t.Fatalf("pair: exit %d, token %q\n%s", r.code, tok, r.stderr)
	}
	if got, err := bridge.ReadToken(d.TokenFile()); err != nil || got != tok {
		t.Fatalf("token file after pair: %q, %v", got, err)
	}
	r = runCLIEnv(t, nil, env, "", "doctor")
	if !strings.Contains(r.stdout, "[ok  ] token") {
		t.Errorf("doctor after `bua pair`:\n%s", r.stdout)
	}
}

// TestUnknownBrowserCLI: --browser takes only auto, user, managed,
// managed-N or a pairing's name (or extension): anything else is a usage
// error listing them, before any daemon is dialled.
func TestUnknownBrowserCLI(t *testing.T) {
	for _, args := range [][]string{
		{"--browser", "bogus", "request", `{"type":"get_tabs"}`},
		{"--browser", "bogus", "tabs"},
	} {
		r := runCLI(t, nil, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stdout+r.stderr, "auto, user, managed, managed-1 … managed-15") {
			t.Errorf("%v: exit %d\n%s%s\nwant 2, listing auto, user, managed, managed-1 … managed-15", args, r.code, r.stdout, r.stderr)
		}
	}
}
