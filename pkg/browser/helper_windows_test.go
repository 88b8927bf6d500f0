package browser

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// newGroup starts cmd in a process group of its own, as Launch does; its
// tree is found by parent pid.
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// ignoreTerm does nothing: Windows sends no polite signal to ignore.
func ignoreTerm() {}

// ownGroupID is a tree this process runs in: the one it leads (a parent's,
// which Wine does not record for the test binary it starts, is
// TestOwnTreeRefused's).
func ownGroupID() int { return os.Getpid() }

// groupsAreReal: Windows has no process groups to tell a browser from a
// bystander that carries its flags (FindByArgs; docs/platforms.md).
const groupsAreReal = false

// stopCases are TestStopGroup's rows on Windows: the tree is terminated
// at once, stubborn or not.
var stopCases = []struct {
	name     string
	part     string
	min, max time.Duration
}{
	{"terminated", partTree, 0, 2 * time.Second},
	{"terminated though stubborn", partTreeStubborn, 0, 2 * time.Second},
}
