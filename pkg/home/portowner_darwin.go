package home

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// PortOwner names the process listening on TCP port, as "pid N (name)",
// from lsof(8), which every macOS has: the kernel's socket tables are
// reachable only through libproc there, which needs cgo. It runs only
// when the daemon could not listen, so the fork costs nothing that
// matters. It returns "" when that cannot be known: another user's
// process, or no lsof.
func PortOwner(port int) string {
	out, err := exec.Command("lsof", "-nP", "-iTCP:"+strconv.Itoa(port), "-sTCP:LISTEN", "-Fpc").Output()
	if err != nil {
		return ""
	}
	// -F output: one field a line, "p" then the pid, "c" the command.
	var pid, name string
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "p") && pid == "":
			pid = line[1:]
		case strings.HasPrefix(line, "c") && name == "":
			name = line[1:]
		}
	}
	if pid == "" {
		return ""
	}
	return fmt.Sprintf("pid %s (%s)", pid, name)
}

// ListeningSockets maps listening TCP sockets to their ports by the
// names Linux gives their descriptors; macOS has no such names, so it is
// empty.
func ListeningSockets() map[string]int { return map[string]int{} }
