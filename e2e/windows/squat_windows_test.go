package windows

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// TestSquat: another local user cannot make the victim's bua speak to it,
// nor speak to the victim's daemon, nor read the link key, on Windows as
// on Linux (e2e/faults TestSquat). The attacker is a real second user
// (BUA_SQUAT_USER and BUA_SQUAT_PASSWORD, which the workflow's Windows
// job creates); each case counts the bytes the attacker received.
func TestSquat(t *testing.T) {
	user, password := os.Getenv("BUA_SQUAT_USER"), os.Getenv("BUA_SQUAT_PASSWORD")
	if user == "" || password == "" {
		t.Fatal("needs a second local user: set BUA_SQUAT_USER and BUA_SQUAT_PASSWORD (the Windows job of .github/workflows/ci.yml creates one)")
	}
	shared := sharedDir(t)
	// The attacker runs a copy of this binary that it may read.
	exe := filepath.Join(shared, "attacker.exe")
	copyFile(t, os.Args[0], exe)

	t.Run("BUA_HOME made first by the attacker", func(t *testing.T) {
		home := filepath.Join(shared, "home")
		rep := filepath.Join(shared, "home.json")
		if err := startAs(user, password, shared, exe, attackerFlag, "home", home, rep); err != nil {
			t.Fatal(err)
		}
		waitListening(t, rep)
		t.Setenv("SECRET", "hunter2")
		out, code := bua(t, home, "type", "--selector", "#pw", "--text-env", "SECRET")
		if code != 4 || !strings.Contains(out, "unsafe_socket") || !strings.Contains(out, user) {
			t.Errorf("bua type in the attacker's home: exit %d\n%s\nwant 4, unsafe_socket naming %s", code, out, user)
		}
		if r := finalReport(t, rep); r.Received != "" || r.Connections != 0 {
			t.Errorf("the attacker received %d connections, %q", r.Connections, r.Received)
		}
	})

	t.Run("a stale link file's port taken by the attacker", func(t *testing.T) {
		home := victimHome(t, shared, "stale")
		startDaemon(t, home)
		port := linkPort(t, home)
		killDaemon(t, home)
		rep := filepath.Join(shared, "port.json")
		if err := startAs(user, password, shared, exe, attackerFlag, "port", port, rep); err != nil {
			t.Fatal(err)
		}
		waitListening(t, rep)
		out, code := bua(t, home, "status")
		if code != 4 || !strings.Contains(out, "down") {
			t.Errorf("status with a stale link file: exit %d\n%s\nwant 4, the daemon down", code, out)
		}
		r := finalReport(t, rep)
		// The client's greeting and nonce, and nothing of a request.
		if r.Connections > 1 || strings.Contains(r.Received, "op") || len(r.Received) > len("bua-link/1 ")+64+1 {
			t.Errorf("the attacker received %d connections, %q: want at most a greeting", r.Connections, r.Received)
		}
	})

	t.Run("the victim's daemon refuses the attacker", func(t *testing.T) {
		home := victimHome(t, shared, "dial")
		startDaemon(t, home)
		defer bua(t, home, "stop")
		addr := linkAddr(t, home)
		rep := filepath.Join(shared, "dial.json")
		if code, err := runAs(user, password, shared, exe, 30*time.Second, attackerFlag, "dial", addr, rep); err != nil || code != 0 {
			t.Fatalf("the attacker's dial: exit %d, %v", code, err)
		}
		r := finalReport(t, rep)
		if strings.Contains(r.Received, "result") || strings.Contains(r.Received, "error") {
			t.Errorf("the daemon answered the attacker's request: %q", r.Received)
		}
		if out, code := bua(t, home, "status"); code != 0 {
			t.Errorf("the attacker's stop reached the daemon: status exit %d\n%s", code, out)
		}
	})

	t.Run("the link key is the victim's alone", func(t *testing.T) {
		// In the shared folder, whose access rules let everyone in: bua's
		// own protected DACL is what keeps the key (pkg/home).
		home := victimHome(t, shared, "read")
		startDaemon(t, home)
		defer bua(t, home, "stop")
		rep := filepath.Join(shared, "read.json")
		if _, err := runAs(user, password, shared, exe, 30*time.Second, attackerFlag, "read", filepath.Join(home, "link.json"), rep); err != nil {
			t.Fatal(err)
		}
		r := finalReport(t, rep)
		if r.Err == "" || r.Received != "" {
			t.Errorf("the attacker read the link file: %q (err %q)", r.Received, r.Err)
		}
	})
}

// victimHome is a BUA_HOME of the victim's in the shared folder, which
// lets everyone in: bua makes it private itself.
func victimHome(t *testing.T, shared, name string) string {
	t.Helper()
	home := filepath.Join(shared, "victim-"+name)
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return home
}

// sharedDir is a folder both users may use, removed when t ends.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.Getenv("SystemDrive")+`\`, "bua-squat-"+strings.ReplaceAll(time.Now().Format("150405.000"), ".", ""))
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	openToEveryone(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
	openToEveryone(to)
}

// bua runs bua.exe with home as BUA_HOME, and returns its output and
// exit code.
func bua(t *testing.T, home string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, buaBin, args...)
	cmd.Env = append(os.Environ(), "BUA_HOME="+home, "BUA_LISTEN=127.0.0.1:0", "CI=true")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bua %v: %v", args, err)
	}
	return string(out), code
}

// startDaemon starts home's daemon as a command does, with no browser:
// `bua pair --code` dials, starting it, and needs no browser.
func startDaemon(t *testing.T, home string) {
	t.Helper()
	if out, code := bua(t, home, "pair", "--code"); code != 0 {
		t.Fatalf("bua pair --code: exit %d\n%s", code, out)
	}
}

// linkFile reads home's link file: what only the victim may read.
func linkFile(t *testing.T, home string) (addr string, pid int) {
	t.Helper()
	var lf struct {
		Addr string `json:"addr"`
		PID  int    `json:"pid"`
	}
	data, err := os.ReadFile(filepath.Join(home, "link.json"))
	if err == nil {
		err = json.Unmarshal(data, &lf)
	}
	if err != nil {
		t.Fatal(err)
	}
	return lf.Addr, lf.PID
}

func linkAddr(t *testing.T, home string) string {
	addr, _ := linkFile(t, home)
	return addr
}

func linkPort(t *testing.T, home string) string {
	_, port, err := net.SplitHostPort(linkAddr(t, home))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// killDaemon ends home's daemon as Task Manager's End task would, leaving
// its link file behind.
func killDaemon(t *testing.T, home string) {
	t.Helper()
	_, pid := linkFile(t, home)
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil {
		t.Fatal(err)
	}
	_, _ = windows.WaitForSingleObject(h, 5000)
}

// waitListening waits for the attacker's first report, which says it
// listens.
func waitListening(t *testing.T, rep string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if data, err := os.ReadFile(rep); err == nil {
			var r report
			if json.Unmarshal(data, &r) == nil && (r.Listening || r.Err != "") {
				if r.Err != "" {
					t.Fatalf("the attacker could not listen: %s", r.Err)
				}
				return
			}
		}
	}
	t.Fatal("the attacker never listened")
}

// finalReport waits for the attacker's last report (it listens for
// attackLife).
func finalReport(t *testing.T, rep string) report {
	t.Helper()
	for end := time.Now().Add(attackLife + 15*time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		data, err := os.ReadFile(rep)
		if err != nil {
			continue
		}
		var r report
		if json.Unmarshal(data, &r) == nil && !r.Listening {
			return r
		}
	}
	t.Fatal("the attacker never reported")
	return report{}
}
