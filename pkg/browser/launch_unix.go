//go:build unix

package browser

import (
	"context"
	"os/exec"
	"syscall"
)

// sysProc is what Unix adds to a launched browser: nothing, since its
// process group (Setpgid) names all of it.
type sysProc struct{}

// startBrowser starts cmd as the leader of a new process group, so that
// Group reaches its helpers too and a Ctrl-C in bua's terminal does not.
func startBrowser(cmd *exec.Cmd) (sysProc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return sysProc{}, cmd.Start()
}

// stop ends the group politely, then forcibly (Group.Stop).
func (sysProc) stop(ctx context.Context, g Group) error { return g.Stop(ctx, StopGrace) }

// kill ends the group at once.
func (sysProc) kill(g Group) error { return g.Kill() }

// release frees nothing on Unix.
func (sysProc) release() {}
