package bridge

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

// recordedPaths are the paths of every managed browser of dirs that may
// have left a record: managed, and each managed-N folder there is.
func recordedPaths(dirs home.Dirs) []managedPaths {
	out := []managedPaths{managedPathsFor(dirs, string(SelectManaged))}
	entries, _ := os.ReadDir(dirs.BrowsersDir())
	for _, e := range entries {
		if e.IsDir() && IsManaged(e.Name()) && e.Name() != string(SelectManaged) {
			out = append(out, managedPathsFor(dirs, e.Name()))
		}
	}
	return out
}

// OrphanArgs are the command-line arguments that mark the managed
// browser managed of dirs in the process table when its record is lost
// (browser.FindByArgs): the default profile, and the extension copy every
// managed browser of that name loads, whatever its --profile.
func OrphanArgs(dirs home.Dirs) []string {
	return managedPathsFor(dirs, string(SelectManaged)).orphanArgs()
}

func (p managedPaths) orphanArgs() []string {
	return []string{"--user-data-dir=" + p.profile, "--load-extension=" + p.ext}
}

// OrphanStatus is the ManagedStatus of the browser managed recorded in
// dirs when it runs but no live daemon owns it, or the zero ManagedStatus:
// what `bua status` shows with the daemon down. An unreadable record is
// reported in RecordError, with the browser found by its command line
// (OrphanArgs) in its place; it is left where it is: StopOrphan moves it.
func OrphanStatus(dirs home.Dirs) ManagedStatus {
	return managedPathsFor(dirs, string(SelectManaged)).orphanStatus()
}

// Orphans are the ManagedStatus of every managed browser of dirs that
// runs with no live daemon owning it (OrphanStatus, for each name), or
// whose record is unreadable.
func Orphans(dirs home.Dirs) []ManagedStatus {
	var out []ManagedStatus
	for _, p := range recordedPaths(dirs) {
		if st := p.orphanStatus(); st.Running || st.RecordError != "" {
			out = append(out, st)
		}
	}
	return out
}

func (p managedPaths) orphanStatus() ManagedStatus {
	r, err := browser.ReadRecord(p.record)
	if errors.Is(err, browser.ErrCorruptRecord) {
		st := ManagedStatus{Name: p.name, RecordError: err.Error()}
		if found := browser.FindByArgs(p.orphanArgs()...); len(found) > 0 {
			st.Running, st.PID, st.Orphan, st.Profile = true, found[0].PID, true, found[0].ProfileDir
		}
		return st
	}
	if err != nil || !r.Alive() {
		return ManagedStatus{}
	}
	return ManagedStatus{Name: p.name, Running: true, PID: r.PID, StartedAt: r.StartedAt, Orphan: true, Profile: r.ProfileDir}
}

// StopOrphan stops every managed browser of dirs that no running daemon
// owns: each one recorded (managed's record, and each managed-N's), or,
// where a record is unreadable, the ones found by that browser's
// OrphanArgs, the record being moved aside (browser.StopRecorded). It is
// how a daemon at start and `bua browser stop` with no daemon end such
// browsers. Stopped lists them all; its Corrupt and MovedTo are the first
// unreadable record's.
func StopOrphan(ctx context.Context, dirs home.Dirs) (browser.Stopped, error) {
	var all browser.Stopped
	for _, p := range recordedPaths(dirs) {
		s, err := p.stopOrphan(ctx)
		all.Browsers = append(all.Browsers, s.Browsers...)
		if all.Corrupt == nil {
			all.Corrupt, all.MovedTo = s.Corrupt, s.MovedTo
		}
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// stopOrphan is StopOrphan for this one browser.
func (p managedPaths) stopOrphan(ctx context.Context) (browser.Stopped, error) {
	return browser.StopRecorded(ctx, p.record, p.orphanArgs()...)
}

// logHealed logs an unreadable record StopOrphan moved aside, once.
func logHealed(log *slog.Logger, s browser.Stopped) {
	if s.Corrupt != nil {
		log.Warn("unreadable managed browser record moved aside; its browser was looked for by its profile", "err", s.Corrupt, "movedTo", s.MovedTo, "found", len(s.Browsers))
	}
}

// reapOrphans stops the managed browsers recorded by an earlier daemon of
// this home, if they still run. Run calls it once it holds the home's
// lock (so that daemon is dead) and before it listens, so no orphan's
// extension reaches this daemon and the next launch never meets a
// profile's SingletonLock. It takes at most browser.StopGrace plus a
// moment.
func reapOrphans(ctx context.Context, dirs home.Dirs, log *slog.Logger) {
	start := time.Now()
	s, err := StopOrphan(ctx, dirs)
	logHealed(log, s)
	if err != nil {
		log.Warn("orphaned managed browser would not stop", "err", err)
	}
	for _, r := range s.Browsers {
		log.Info("stopped the managed browser an earlier daemon left running", "pid", r.PID, "profile", r.ProfileDir, "daemonPid", r.DaemonPID, "took", time.Since(start).Round(time.Millisecond))
	}
}
