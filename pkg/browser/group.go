package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Group is the processes of a browser bua may signal: on Unix a process
// group that Launch started the browser in (Setpgid, so the leader's pid
// is the group id), on Windows the process tree under the browser's main
// process (its children by parent pid: Windows has no process groups, and
// Launch holds the tree in a job object besides, launch_windows.go). It is
// named by its leader's pid and the leader's start time when it was
// launched or recorded. Every signal bua sends goes through Group.signal,
// which checks the group first (Check).
type Group struct {
	// PGID is the group id: the leader's pid (on Windows, the tree's root).
	PGID int
	// Start is the leader's start time as procStart reads it (on Linux
	// clock ticks since boot, field 22 of /proc/PID/stat; on macOS the
	// kernel's p_starttime, seconds.microseconds; on Windows the creation
	// time in 100 ns since 1601), so a pid the system has since given to
	// another process is never signalled.
	Start string
}

// ErrRefusedSignal means bua would not signal a process group: Check's
// errors wrap it.
var ErrRefusedSignal = errors.New("refusing to signal")

// GroupOf is the group that pid leads, as it is now: for a process this one
// has just started with Setpgid, whose start time it records for Stop.
func GroupOf(pid int) Group { return Group{PGID: pid, Start: startTime(pid)} }

// Check says why bua must not signal g, or nil. It refuses group ids 0
// and 1 and negative ones (kill(2) reads -0 as the caller's own group and
// -1 as every process it may signal; on Windows 0 is the idle process),
// the calling process's own group (a corrupt record or a wrapper running
// bua inside the browser's group would have bua kill itself and its
// shell's job; on Windows, a tree bua runs inside), a group with no
// recorded start time, and a leader pid that now belongs to a process
// started at another time. A leader that is gone passes: while any member
// of its group lives the system gives the group id to no new process, and
// a group with no member left gets no signal (errNoMembers).
func (g Group) Check() error {
	switch {
	case g.PGID <= 1:
		return fmt.Errorf("%w process group %d: no browser has that group id (0 is the caller's own group, 1 is init)", ErrRefusedSignal, g.PGID)
	case g.PGID == os.Getpid() || ownGroup(g.PGID):
		return fmt.Errorf("%w process group %d: it is this bua command's own process group", ErrRefusedSignal, g.PGID)
	case g.Start == "":
		return fmt.Errorf("%w process group %d: its leader's start time was never recorded", ErrRefusedSignal, g.PGID)
	}
	if now := startTime(g.PGID); now != "" && now != g.Start {
		return fmt.Errorf("%w process group %d: %w (started at %s, the browser at %s)", ErrRefusedSignal, g.PGID, errReused, now, g.Start)
	}
	return nil
}

// errReused is Check's refusal of a leader pid that another process has
// now. The system gives no new process the id of a group with a live
// member, so the group itself is gone.
var errReused = errors.New("its pid belongs to another process now")

// sig is what bua asks of a group: to end (SIGTERM: Chromium flushes its
// profile first) or to die at once (SIGKILL). Windows has no signal a
// headless Chromium obeys: both terminate the tree there.
type sig int

const (
	sigTerm sig = iota
	sigKill
)

// errNoMembers means a signal found no live member of the group to
// deliver to (ESRCH on Unix).
var errNoMembers = errors.New("no process is left in the group")

// signal sends s to the whole group once Check passes: the one place bua
// signals a process (sendSignal, per OS; GroupMembers' existence probe on
// the BSDs sends signal 0, which delivers nothing).
func (g Group) signal(s sig) error {
	if err := g.Check(); err != nil {
		return err
	}
	return sendSignal(g.PGID, s)
}

// Kill ends the whole group at once (SIGKILL; TerminateProcess on
// Windows), once Check passes: for a browser that must not write its
// profile back (a deleted home), which SIGTERM would let it do. It does
// not wait; the group's parent reaps it.
func (g Group) Kill() error { return g.signal(sigKill) }

// groupPoll is how often Stop looks for the group's members.
const groupPoll = 20 * time.Millisecond

// killWait bounds the wait for a SIGKILLed group to go.
const killWait = 2 * time.Second

// Stop ends the group: SIGTERM (Chromium flushes its profile), then
// SIGKILL once grace has passed or ctx ends, and returns once no live
// member is left (on Windows the first step already terminates the tree).
// It works from any process of the same user, not only the group's
// parent: members are found in the process table (GroupMembers), zombies
// left out, since a process whose parent died is only reaped if init does
// it. The error wraps ErrRefusedSignal when Check refuses the group, says
// the group outlived SIGKILL, or is ctx's error when ctx cut the grace
// short. A leader pid that another process has now means the group is
// gone: Stop signals nothing and returns nil.
func (g Group) Stop(ctx context.Context, grace time.Duration) error {
	if err := g.signal(sigTerm); errors.Is(err, errNoMembers) || errors.Is(err, errReused) {
		return nil // no member left
	} else if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	if waitGroup(gctx, g.PGID) {
		return nil
	}
	if err := g.signal(sigKill); err != nil && !errors.Is(err, errNoMembers) {
		return fmt.Errorf("browser: %w", err)
	}
	kctx, kcancel := context.WithTimeout(context.Background(), killWait)
	defer kcancel()
	if !waitGroup(kctx, g.PGID) {
		return fmt.Errorf("browser: process group %d still has %d live processes %s after SIGKILL", g.PGID, len(GroupMembers(g.PGID)), killWait)
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
