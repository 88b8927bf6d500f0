package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startGroup runs script under sh as the leader of a new process group,
// reaped in the background, so the test can stop the group as a process
// that did not launch it would.
func startGroup(t *testing.T, script string, args ...string) int {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	// Wait for sh to start its children, so the group has them all.
	deadline := time.Now().Add(5 * time.Second)
	for len(GroupMembers(pid)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(GroupMembers(pid)); n < 2 {
		t.Fatalf("group %d has %d members, want sh and its child", pid, n)
	}
	return pid
}

// TestStopGroup: a group whose members exit on SIGTERM goes at once; one
// that ignores SIGTERM goes at the grace's end, through SIGKILL. Either
// way no live member is left, zombies aside.
func TestStopGroup(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		min, max time.Duration
	}{
		{"exits on SIGTERM", "sleep 60 & wait", 0, 2 * time.Second},
		{"ignores SIGTERM", "trap '' TERM; sleep 60 & wait; sleep 60", 500 * time.Millisecond, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pgid := startGroup(t, tc.script)
			start := time.Now()
			if err := StopGroup(context.Background(), pgid, 500*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if m := GroupMembers(pgid); len(m) > 0 {
				t.Fatalf("members %v left", m)
			}
			if took < tc.min || took > tc.max {
				t.Fatalf("took %s, want between %s and %s", took, tc.min, tc.max)
			}
		})
	}
}

func TestStopGroupRefusesInit(t *testing.T) {
	for _, pgid := range []int{0, 1, -3} {
		if err := StopGroup(context.Background(), pgid, time.Second); err == nil {
			t.Errorf("StopGroup(%d) signalled without an error", pgid)
		}
	}
}

// TestRecordAlive: a record is alive only for the very process it names:
// same pid, same start time, same profile on its command line.
func TestRecordAlive(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "profile")
	// sh's own command line carries the flag, as a browser's does.
	pid := startGroup(t, "sleep 60 & wait", "--user-data-dir="+profile)
	rec, err := Identify(pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rec  Record
		want bool
	}{
		{"the process", rec, true},
		{"another start time (a reused pid)", Record{PID: pid, ProcStart: rec.ProcStart + "1", ProfileDir: profile}, false},
		{"another profile", Record{PID: pid, ProcStart: rec.ProcStart, ProfileDir: profile + "2"}, false},
		{"a profile that is a prefix", Record{PID: pid, ProcStart: rec.ProcStart, ProfileDir: filepath.Dir(profile)}, false},
		{"no start time", Record{PID: pid, ProfileDir: profile}, false},
		{"init", Record{PID: 1, ProcStart: procStart(1), ProfileDir: profile}, false},
		{"this test", Record{PID: os.Getpid(), ProcStart: procStart(os.Getpid()), ProfileDir: profile}, false},
	} {
		if got := tc.rec.Alive(); got != tc.want {
			t.Errorf("%s: Alive = %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := Identify(os.Getpid(), profile); err == nil {
		t.Error("Identify recorded this test as a browser")
	}
}

// TestStopRecorded: the record's browser is stopped by a process that did
// not launch it, and the record goes; a stale record (the browser gone)
// is removed without signalling anything.
func TestStopRecorded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browser.json")
	profile := filepath.Join(dir, "profile")
	pid := startGroup(t, "sleep 60 & wait", "--user-data-dir="+profile)
	rec, err := Identify(pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record %v, %v: want mode 0600", fi, err)
	}
	got, stopped, err := StopRecorded(context.Background(), path)
	if err != nil || !stopped || got.PID != pid {
		t.Fatalf("StopRecorded = %+v, %v, %v; want pid %d stopped", got, stopped, err, pid)
	}
	if m := GroupMembers(pid); len(m) > 0 {
		t.Fatalf("members %v left", m)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("record left behind: %v", err)
	}

	// Stale: the process is gone, the record is not.
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if _, stopped, err := StopRecorded(context.Background(), path); stopped || err != nil {
		t.Fatalf("stale record: stopped %v, err %v", stopped, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("stale record left behind: %v", err)
	}
	if _, stopped, err := StopRecorded(context.Background(), path); stopped || err != nil {
		t.Fatalf("no record: stopped %v, err %v", stopped, err)
	}
}

// TestRemoveRecordOnlyItsOwn: a browser that exits late does not remove
// its successor's record.
func TestRemoveRecordOnlyItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "browser.json")
	if err := WriteRecord(path, Record{PID: 42}); err != nil {
		t.Fatal(err)
	}
	RemoveRecord(path, 41)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("another pid's removal took the record: %v", err)
	}
	RemoveRecord(path, 42)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("record left: %v", err)
	}
}

// TestIdentifyRightAfterStart: Identify called as soon as Start returns,
// as the daemon does, always sees the new command line: for an instant
// after exec it reads empty or still as the parent's.
func TestIdentifyRightAfterStart(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "profile")
	for i := 0; i < 30; i++ {
		cmd := exec.Command("sh", "-c", "sleep 60", "sh", "--user-data-dir="+profile)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_, err := Identify(cmd.Process.Pid, profile)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
}
