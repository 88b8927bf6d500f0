package bridgetest

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// startGroup starts cmd in a process group of its own, as pkg/browser
// starts a browser (whose tree is found by parent pid), but in no job
// object: an orphan is a browser its daemon's job did not end.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}
