//go:build unix

package bridgetest

import (
	"os/exec"
	"syscall"
)

// startGroup makes cmd the leader of a process group of its own, as
// pkg/browser starts a browser.
func startGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
