//go:build unix

package browser

import (
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// newGroup makes cmd the leader of a process group of its own, as Launch
// does.
func newGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// ignoreTerm makes this process ignore SIGTERM, as a hung browser would.
func ignoreTerm() { signal.Ignore(syscall.SIGTERM) }

// ownGroupID is this process's own group, which no signal may reach.
func ownGroupID() int { return syscall.Getpgrp() }

// groupsAreReal: a process that merely carries a browser's flags, outside
// a group of its own, is told apart from the browser (FindByArgs).
const groupsAreReal = true

// stopCases are TestStopGroup's rows on Unix: SIGTERM first, SIGKILL at
// the grace's end.
var stopCases = []struct {
	name     string
	part     string
	min, max time.Duration
}{
	{"exits on SIGTERM", partTree, 0, 2 * time.Second},
	{"ignores SIGTERM", partTreeStubborn, 500 * time.Millisecond, 3 * time.Second},
}
