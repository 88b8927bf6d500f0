package bridge

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// startDetached starts the command newCmd makes with no console
// (DETACHED_PROCESS) in a process group of its own
// (CREATE_NEW_PROCESS_GROUP), so the daemon outlives the command's console
// window and a Ctrl-C or Ctrl-Break there reaches the command only. It
// also asks to leave the job object the command runs in
// (CREATE_BREAKAWAY_FROM_JOB): a CI runner, or a terminal that kills its
// job on close, would otherwise end the daemon with the step or window.
// Where the job forbids breaking away (no JOB_OBJECT_LIMIT_BREAKAWAY_OK),
// CreateProcess fails with ERROR_ACCESS_DENIED, and the daemon starts
// inside the job instead.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	const flags = windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB, HideWindow: true}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		cmd = newCmd() // an exec.Cmd starts once
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags, HideWindow: true}
		err = cmd.Start()
	}
	return cmd, err
}
