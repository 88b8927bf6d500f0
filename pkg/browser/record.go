package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/home"
)

// Record is a launched browser written down by the daemon that launched it
// (home.Dirs.BrowserRecord, 0600 in a 0700 dir): enough for a later process
// (a new daemon after a crash, or `bua browser stop` with no daemon at all)
// to find that browser and stop its whole process group, and to tell it
// apart from an unrelated process that has since reused its pid.
type Record struct {
	// PID is the browser's pid, and its process group id: Launch starts it
	// with Setpgid, and the group outlives a killed daemon.
	PID int `json:"pid"`
	// ProcStart is the process's start time as the OS keeps it (on Linux
	// clock ticks since boot, field 22 of /proc/PID/stat; elsewhere ps's
	// lstart): a reused pid has another.
	ProcStart string `json:"procStart"`
	// ProfileDir is the browser's --user-data-dir, which its command line
	// must still name.
	ProfileDir string `json:"profileDir"`
	// StartedAt is when the daemon launched it.
	StartedAt time.Time `json:"startedAt"`
	// DaemonPID is the daemon that launched it.
	DaemonPID int `json:"daemonPid"`
}

// Identify records the running process pid as the browser on profileDir.
// It fails when pid is gone or its command line does not carry
// --user-data-dir=profileDir, so only a real browser is ever recorded
// (never a test's fake process). Call it from the process that launched
// pid: until pid's exec completes its command line is still this
// process's, which Identify waits out.
func Identify(pid int, profileDir string) (Record, error) {
	r := Record{PID: pid, ProcStart: procStart(pid), ProfileDir: profileDir, StartedAt: time.Now(), DaemonPID: os.Getpid()}
	if r.ProcStart == "" {
		return Record{}, fmt.Errorf("browser: pid %d is not running", pid)
	}
	if !r.alive(os.Args) {
		return Record{}, fmt.Errorf("browser: pid %d is not a browser on %s", pid, profileDir)
	}
	return r, nil
}

// Alive reports whether the recorded browser still runs: its pid is live
// (not a zombie), started when recorded, and its command line still names
// the profile.
func (r Record) Alive() bool { return r.alive(nil) }

func (r Record) alive(parentArgs []string) bool {
	if r.PID <= 1 || r.ProcStart == "" || procStart(r.PID) != r.ProcStart {
		return false
	}
	return slices.Contains(settledArgs(r.PID, parentArgs), "--user-data-dir="+r.ProfileDir)
}

// execSettle bounds settledArgs' wait.
const execSettle = time.Second

// settledArgs is pid's command line once an exec in progress is done. For
// an instant during exec (Launch's own, or a wrapper script such as
// /usr/bin/chromium exec'ing the real binary) the command line reads
// empty, or, before the new image replaces the forked one, as the
// parent's (parentArgs); the start time does not change.
func settledArgs(pid int, parentArgs []string) []string {
	deadline := time.Now().Add(execSettle)
	for {
		args := procArgs(pid)
		settled := len(args) > 0 && (parentArgs == nil || !slices.Equal(args, parentArgs))
		if settled || time.Now().After(deadline) || procStart(pid) == "" {
			return args
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// WriteRecord writes r to path at 0600, atomically.
func WriteRecord(path string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return home.WriteFile(path, data)
}

// ErrCorruptRecord means a record file exists but cannot be trusted: it
// does not read, is not a record's JSON, or names a pid, start time or
// profile that no launched browser has (a pid of 0 or 1 would have bua
// signal its own process group or every process). ReadRecord's errors
// wrap it; StopRecorded moves such a file aside (QuarantineRecord) and
// finds the browser by its command line instead (FindByArgs).
var ErrCorruptRecord = errors.New("the browser record is unreadable")

// ReadRecord reads the record at path; a missing file is fs.ErrNotExist,
// any other failure wraps ErrCorruptRecord.
func ReadRecord(path string) (Record, error) {
	var r Record
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err == nil {
		err = r.check()
	}
	if err != nil {
		return Record{}, fmt.Errorf("%w (%s): %v", ErrCorruptRecord, path, err)
	}
	return r, nil
}

// check says what in r no launched browser's record could hold, or nil.
func (r Record) check() error {
	switch {
	case r.PID <= 1:
		return fmt.Errorf("pid %d is no browser's", r.PID)
	case r.ProcStart == "":
		return errors.New("no process start time")
	case !filepath.IsAbs(r.ProfileDir):
		return fmt.Errorf("profile %q is not an absolute path", r.ProfileDir)
	}
	return nil
}

// group is the process group r names, checked against r's start time.
func (r Record) group() Group { return Group{PGID: r.PID, Start: r.ProcStart} }

// QuarantineRecord moves the unreadable record at path aside, to
// path.corrupt-<UTC time>, where a person can still read it, and returns
// that path: the next launch then writes a fresh record instead of failing
// on this one.
func QuarantineRecord(path string) (string, error) {
	to := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000Z")
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("move the unreadable browser record aside: %w", err)
	}
	return to, nil
}

// FindByArgs finds running browsers in the process table by their command
// line, for when their record is lost: each is a live process that leads
// its own process group (Launch's Setpgid), carries one of args exactly
// (such as "--user-data-dir=" and the profile), and no --type= (Chromium's
// helpers carry one). Each Record has the pid, start time and the
// --user-data-dir it names, and no StartedAt or DaemonPID.
func FindByArgs(args ...string) []Record {
	var found []Record
	for _, pid := range pids() {
		if pid == os.Getpid() || procGroup(pid) != pid {
			continue
		}
		cmdline := procArgs(pid)
		if !slices.ContainsFunc(cmdline, func(a string) bool { return slices.Contains(args, a) }) ||
			slices.ContainsFunc(cmdline, func(a string) bool { return strings.HasPrefix(a, "--type=") }) {
			continue
		}
		r := Record{PID: pid, ProcStart: procStart(pid)}
		if r.ProcStart == "" {
			continue // exited, or a zombie
		}
		for _, a := range cmdline {
			if dir, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
				r.ProfileDir = dir
			}
		}
		found = append(found, r)
	}
	return found
}

// RemoveRecord removes the record at path if it names pid, so a browser
// that exits late never removes its successor's record.
func RemoveRecord(path string, pid int) {
	if r, err := ReadRecord(path); err == nil && r.PID == pid {
		_ = os.Remove(path)
	}
}

// Stopped is what StopRecorded did.
type Stopped struct {
	// Browsers are the browsers it stopped: the recorded one, or those
	// found by their command line when the record was unreadable.
	Browsers []Record
	// Corrupt is why the record could not be read (it wraps
	// ErrCorruptRecord), nil when it could or there was none.
	Corrupt error
	// MovedTo is where the unreadable record went (QuarantineRecord).
	MovedTo string
}

// StopRecorded stops the browser recorded at path, whoever launched it,
// and removes the record: it is how a browser left by a killed daemon is
// ended. Nothing is stopped when no record exists or its browser is
// already gone (the stale record is removed too); the record is kept when
// the browser would not stop, so a later call can try again.
//
// An unreadable record (ErrCorruptRecord) is moved aside and reported in
// Stopped.Corrupt, and the browsers whose command lines carry one of args
// (FindByArgs: the home's profile and extension copy) are stopped in its
// place, so a corrupt file neither leaks the browser nor blocks the next
// launch. Every signal passes Group.Check: the recorded pid and start time
// must still be the browser's, and never bua's own group.
func StopRecorded(ctx context.Context, path string, args ...string) (Stopped, error) {
	var s Stopped
	r, err := ReadRecord(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		s.Corrupt = err
		if s.MovedTo, err = QuarantineRecord(path); err != nil {
			return s, err
		}
		for _, found := range FindByArgs(args...) {
			if err := found.group().Stop(ctx, StopGrace); err != nil {
				return s, fmt.Errorf("the managed browser (pid %d) did not stop: %w", found.PID, err)
			}
			s.Browsers = append(s.Browsers, found)
		}
		return s, nil
	case !r.Alive():
		RemoveRecord(path, r.PID)
		return s, nil
	}
	if err := r.group().Stop(ctx, StopGrace); err != nil {
		return s, fmt.Errorf("the managed browser (pid %d) did not stop: %w", r.PID, err)
	}
	RemoveRecord(path, r.PID)
	s.Browsers = []Record{r}
	return s, nil
}
