//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// startDetached starts the command newCmd makes in a session of its own
// (setsid), so the daemon outlives the command's terminal and its job
// control: a Ctrl-C in the shell, or the shell closing, signals the
// command, not the daemon.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}
