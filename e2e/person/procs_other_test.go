//go:build !linux

package person

import (
	"os/exec"
	"syscall"
)

// dieWithParent only sets the process group off Linux, which has no
// parent-death signal.
func dieWithParent(cmd *exec.Cmd, setpgid bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: setpgid}
}
