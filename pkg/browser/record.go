package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
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

// ReadRecord reads the record at path; a missing file is fs.ErrNotExist.
func ReadRecord(path string) (Record, error) {
	var r Record
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("browser record %s: %w", path, err)
	}
	return r, nil
}

// RemoveRecord removes the record at path if it names pid, so a browser
// that exits late never removes its successor's record.
func RemoveRecord(path string, pid int) {
	if r, err := ReadRecord(path); err == nil && r.PID == pid {
		_ = os.Remove(path)
	}
}

// StopRecorded stops the browser recorded at path, whoever launched it,
// and removes the record: it is how a browser left by a killed daemon is
// ended. stopped is false when no record exists or its browser is already
// gone (the stale record is removed too); the record is kept when the
// browser would not stop, so a later call can try again.
func StopRecorded(ctx context.Context, path string) (r Record, stopped bool, err error) {
	r, err = ReadRecord(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return r, false, err
	}
	if !r.Alive() {
		RemoveRecord(path, r.PID)
		return r, false, nil
	}
	if err := StopGroup(ctx, r.PID, StopGrace); err != nil {
		return r, false, err
	}
	RemoveRecord(path, r.PID)
	return r, true, nil
}

// groupPoll is how often StopGroup looks for the group's members.
const groupPoll = 20 * time.Millisecond

// killWait bounds the wait for a SIGKILLed group to go.
const killWait = 2 * time.Second

// StopGroup ends the process group pgid: SIGTERM (Chromium flushes its
// profile), then SIGKILL once grace has passed or ctx ends, and returns
// once no live member is left. It works from any process of the same user,
// not only the group's parent: members are found in /proc, zombies left
// out, since a process whose parent died is only reaped if init does it.
// The error says the group outlived SIGKILL, or ctx's error when ctx cut
// the grace short.
func StopGroup(ctx context.Context, pgid int, grace time.Duration) error {
	if pgid <= 1 {
		return fmt.Errorf("browser: refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return nil // no member left
	} else if err != nil {
		return fmt.Errorf("browser: signal process group %d: %w", pgid, err)
	}
	gctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	if waitGroup(gctx, pgid) {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	kctx, kcancel := context.WithTimeout(context.Background(), killWait)
	defer kcancel()
	if !waitGroup(kctx, pgid) {
		return fmt.Errorf("browser: process group %d still has %d live processes %s after SIGKILL", pgid, len(GroupMembers(pgid)), killWait)
	}
	return ctx.Err()
}

// waitGroup polls until group pgid has no live member (true) or ctx ends
// (false).
func waitGroup(ctx context.Context, pgid int) bool {
	tick := time.NewTicker(groupPoll)
	defer tick.Stop()
	for len(GroupMembers(pgid)) > 0 {
		select {
		case <-ctx.Done():
			return len(GroupMembers(pgid)) == 0
		case <-tick.C:
		}
	}
	return true
}
