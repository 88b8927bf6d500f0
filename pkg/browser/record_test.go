package browser

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/home"
)

// spaced is a folder name with a space on the way to the profiles these
// tests record, as every path under macOS's ~/Library/Application Support
// and Windows' C:\Users\First Last has: the process table must give the
// --user-data-dir argument back whole (procArgs).
const spaced = "Application Support"

// TestStopGroup: a group whose members exit on SIGTERM goes at once; one
// that ignores SIGTERM goes at the grace's end, through SIGKILL (on
// Windows, both are terminated at once: stopCases). Either way no live
// member is left, zombies aside.
func TestStopGroup(t *testing.T) {
	for _, tc := range stopCases {
		t.Run(tc.name, func(t *testing.T) {
			pgid := startGroup(t, tc.part)
			start := time.Now()
			if err := GroupOf(pgid).Stop(context.Background(), 500*time.Millisecond); err != nil {
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

// TestGroupCheck: the one check before any signal refuses the group ids
// that reach far more than a browser (0 is the caller's own group, 1 is
// init, a negative one is no group), the caller's own group, a group with
// no recorded start time and a leader pid that another process has now;
// it passes the group it was recorded for, and one whose leader is gone.
// Stop refuses the same groups, except the reused pid, which means the
// group is gone: nothing to stop.
func TestGroupCheck(t *testing.T) {
	pgid := startGroup(t, partTree)
	own := ownGroupID()
	gone := helperCmd(partExit)
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		g       Group
		refused string // "" when allowed
		stopErr bool
	}{
		{"the group as recorded", GroupOf(pgid), "", false},
		{"group 0", Group{PGID: 0, Start: "1"}, "no browser has that group id", true},
		{"init", Group{PGID: 1, Start: startTime(1)}, "no browser has that group id", true},
		{"a negative id", Group{PGID: -pgid, Start: "1"}, "no browser has that group id", true},
		{"this process's own group", Group{PGID: own, Start: startTime(own)}, "own process group", true},
		{"this process", Group{PGID: os.Getpid(), Start: startTime(os.Getpid())}, "own process group", true},
		{"no start time", Group{PGID: pgid}, "start time was never recorded", true},
		{"a reused pid", Group{PGID: pgid, Start: "1"}, "belongs to another process now", false},
		{"a leader that is gone", Group{PGID: gone.Process.Pid, Start: "1"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Check()
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
			} else if !errors.Is(err, ErrRefusedSignal) || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("Check() = %v, want a refusal saying %q", err, tc.refused)
			}
			if tc.refused == "" {
				return // Stop would really stop it
			}
			if err := tc.g.Stop(context.Background(), time.Second); (err != nil) != tc.stopErr {
				t.Fatalf("Stop() = %v, want an error: %v", err, tc.stopErr)
			}
		})
	}
	if m := GroupMembers(pgid); len(m) < 2 {
		t.Fatalf("a refused check signalled the group: members %v left", m)
	}
}

// TestRecordAlive: a record is alive only for the very process it names:
// same pid, same start time, same profile on its command line.
func TestRecordAlive(t *testing.T) {
	profile := filepath.Join(t.TempDir(), spaced, "profile")
	// The stand-in's own command line carries the flag, as a browser's does.
	pid := startGroup(t, partTree, "--user-data-dir="+profile)
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
	profile := filepath.Join(dir, spaced, "profile")
	pid := startGroup(t, partTree, "--user-data-dir="+profile)
	rec, err := Identify(pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if err := home.CheckPrivate(path); err != nil {
		t.Fatalf("record: %v", err)
	}
	got, err := StopRecorded(context.Background(), path)
	if err != nil || len(got.Browsers) != 1 || got.Browsers[0].PID != pid || got.Corrupt != nil {
		t.Fatalf("StopRecorded = %+v, %v; want pid %d stopped", got, err, pid)
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
	if got, err := StopRecorded(context.Background(), path); len(got.Browsers) > 0 || err != nil {
		t.Fatalf("stale record: %+v, err %v", got, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("stale record left behind: %v", err)
	}
	if got, err := StopRecorded(context.Background(), path); len(got.Browsers) > 0 || err != nil {
		t.Fatalf("no record: %+v, err %v", got, err)
	}
}

// TestReadRecordCorrupt: a record that does not read, or names a pid, start
// time or profile no launched browser has, is ErrCorruptRecord, never a
// record to signal; a missing one is fs.ErrNotExist.
func TestReadRecordCorrupt(t *testing.T) {
	dir := t.TempDir()
	// An absolute path on this OS, as JSON: "/p", or "C:\\p" on Windows.
	abs, _ := json.Marshal(filepath.Join(dir, "p"))
	p := string(abs)
	good := `{"pid": 4242, "procStart": "123", "profileDir": ` + p + `}`
	for _, tc := range []struct {
		name, data string
		corrupt    bool
	}{
		{"a record", good, false},
		{"garbage", "\x00garbage{", true},
		{"empty", "", true},
		{"cut short", good[:20], true},
		{"pid 0", `{"pid": 0, "procStart": "123", "profileDir": ` + p + `}`, true},
		{"pid 1", `{"pid": 1, "procStart": "123", "profileDir": ` + p + `}`, true},
		{"a negative pid", `{"pid": -7, "procStart": "123", "profileDir": ` + p + `}`, true},
		{"no start time", `{"pid": 4242, "profileDir": ` + p + `}`, true},
		{"a relative profile", `{"pid": 4242, "procStart": "123", "profileDir": "p"}`, true},
		{"a pid that is not a number", `{"pid": "4242", "procStart": "123", "profileDir": ` + p + `}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := ReadRecord(path)
			if tc.corrupt != errors.Is(err, ErrCorruptRecord) {
				t.Fatalf("ReadRecord = %+v, %v; want corrupt %v", r, err, tc.corrupt)
			}
			if tc.corrupt && r.PID != 0 {
				t.Fatalf("a corrupt record came back with pid %d", r.PID)
			}
		})
	}
	if _, err := ReadRecord(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing record: %v, want fs.ErrNotExist", err)
	}
	// A directory where the record should be does not read either.
	if _, err := ReadRecord(dir); !errors.Is(err, ErrCorruptRecord) {
		t.Fatalf("a directory: %v, want ErrCorruptRecord", err)
	}
}

// TestStopRecordedHeals: an unreadable record is moved aside, reported,
// and the browser it stood for is found by its profile in the process
// table and stopped, its whole group; the helpers of its group, a process
// that merely names the profile outside a group of its own, and the
// caller's own group are left alone. A record naming pid 0, 1 or a
// negative pid is treated the same way: moved aside, and nothing signalled
// but the real browser. (A record naming the caller's own group is refused
// by Group.Check: TestGroupCheck, and e2e/faults TestCorruptRecord.)
func TestStopRecordedHeals(t *testing.T) {
	for _, bad := range []string{
		"not json",
		`{"pid": 0, "procStart": "1", "profileDir": "/x"}`,
		`{"pid": 1, "procStart": "1", "profileDir": "/x"}`,
		`{"pid": -1, "procStart": "1", "profileDir": "/x"}`,
	} {
		t.Run(bad, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "browser.json")
			profile := filepath.Join(dir, spaced, "profile")
			// The browser: it leads its group, a helper runs in it.
			pid := startGroup(t, partTree, "--user-data-dir="+profile)
			// A bystander naming the profile, not leading its own group
			// (where groups exist to tell it apart: groupsAreReal).
			var by *exec.Cmd
			if groupsAreReal {
				by = helperCmd(partSleep, "--user-data-dir="+profile)
				if err := by.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { by.Process.Kill(); by.Wait() })
			}
			if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}

			got, err := StopRecorded(context.Background(), path, "--user-data-dir="+profile)
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(got.Corrupt, ErrCorruptRecord) {
				t.Errorf("Corrupt = %v, want ErrCorruptRecord", got.Corrupt)
			}
			if len(got.Browsers) != 1 || got.Browsers[0].PID != pid || got.Browsers[0].ProfileDir != profile {
				t.Fatalf("stopped %+v, want the browser %d on %s", got.Browsers, pid, profile)
			}
			if m := GroupMembers(pid); len(m) > 0 {
				t.Fatalf("the browser's group still has %v", m)
			}
			if by != nil && !Alive(by.Process.Pid) {
				t.Error("the bystander was signalled")
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("the corrupt record is still in place: %v", err)
			}
			moved, err := os.ReadFile(got.MovedTo)
			if err != nil || string(moved) != bad || !strings.HasPrefix(got.MovedTo, path+".corrupt-") {
				t.Errorf("moved to %q: %q, %v; want the record's bytes there", got.MovedTo, moved, err)
			}
			// The next call finds nothing to do.
			if again, err := StopRecorded(context.Background(), path, "--user-data-dir="+profile); err != nil || again.Corrupt != nil || len(again.Browsers) > 0 {
				t.Fatalf("second call: %+v, %v", again, err)
			}
		})
	}
}

// TestRemoveRecordOnlyItsOwn: a browser that exits late does not remove
// its successor's record.
func TestRemoveRecordOnlyItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "browser.json")
	if err := WriteRecord(path, Record{PID: 42, ProcStart: "1", ProfileDir: filepath.Join(filepath.Dir(path), "p")}); err != nil {
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
	profile := filepath.Join(t.TempDir(), spaced, "profile")
	for i := 0; i < 30; i++ {
		cmd := helperCmd(partSleep, "--user-data-dir="+profile)
		newGroup(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_, err := Identify(cmd.Process.Pid, profile)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
}
