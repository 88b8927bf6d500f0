//go:build unix && !linux && !darwin

package browser

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// procStart is pid's start time as ps(1) prints it, "" when pid is gone or
// a zombie.
func procStart(pid int) string {
	out, err := exec.Command("ps", "-o", "state=,lstart=", "-p", strconv.Itoa(pid)).Output()
	state, start, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || strings.HasPrefix(state, "Z") {
		return ""
	}
	return strings.TrimSpace(start)
}

// startTime is pid's start time as ps(1) prints it, zombie or not; "" when
// pid is gone.
func startTime(pid int) string {
	out, _ := exec.Command("ps", "-o", "lstart=", "-p", strconv.Itoa(pid)).Output()
	return strings.TrimSpace(string(out))
}

// procGroup is pid's process group id, 0 when pid is gone.
func procGroup(pid int) int {
	out, _ := exec.Command("ps", "-o", "pgid=", "-p", strconv.Itoa(pid)).Output()
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return pgid
}

// pids lists every process ps(1) shows.
func pids() []int {
	out, _ := exec.Command("ps", "-ax", "-o", "pid=").Output()
	var list []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			list = append(list, pid)
		}
	}
	return list
}

// Alive reports whether pid is a running process; a zombie counts as
// gone.
func Alive(pid int) bool { return pid > 0 && procStart(pid) != "" }

// procArgs is pid's command line split on spaces: ps(1) cannot tell the
// spaces inside an argument apart, which is enough to find
// --user-data-dir= in a profile path without spaces.
func procArgs(pid int) []string {
	out, err := exec.Command("ps", "-ww", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// GroupMembers reports the group as one member, pgid, while signal 0
// reaches any of it: without /proc, zombies cannot be told apart. Signal
// 0 delivers nothing, so this probe is the one kill(2) outside
// Group.signal.
func GroupMembers(pgid int) []int {
	if syscall.Kill(-pgid, 0) == nil {
		return []int{pgid}
	}
	return nil
}
