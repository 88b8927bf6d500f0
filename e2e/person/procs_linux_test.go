package person

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the test binary dies, even by
// a timeout's panic or a SIGKILL that runs no cleanup, so no Xvfb, window
// manager, daemon or browser outlives the run. setpgid puts cmd in a
// process group of its own, for a stop that ends its helpers too.
func dieWithParent(cmd *exec.Cmd, setpgid bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: setpgid}
}
