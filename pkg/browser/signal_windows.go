package browser

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// sendSignal terminates every live process of the tree under pgid
// (GroupMembers), root first so that it starts no new child meanwhile:
// Windows has no signal a headless Chromium would end on politely, as
// Playwright's `taskkill /T /F` does not either. A tree with no member
// left is errNoMembers.
func sendSignal(pgid int, _ sig) error {
	members := GroupMembers(pgid)
	if len(members) == 0 {
		return errNoMembers
	}
	var first error
	for _, pid := range members {
		h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
		if err == nil {
			err = windows.TerminateProcess(h, 1)
			windows.CloseHandle(h)
		}
		if err != nil && first == nil && Alive(pid) {
			first = fmt.Errorf("terminate pid %d: %w", pid, err)
		}
	}
	return first
}

// ownGroup reports whether pgid is this process's ancestor: a tree that
// holds bua itself (a wrapper that launched bua), which a corrupt record
// could name.
func ownGroup(pgid int) bool {
	procs := processTable()
	seen := map[int]bool{}
	for pid := os.Getpid(); pid > 0 && !seen[pid]; {
		seen[pid] = true
		p, ok := procs[pid]
		if !ok {
			return false
		}
		parent, ok := procs[p.ppid]
		// A parent pid the system has since reused for a younger
		// process is not this process's parent.
		if !ok || parent.created > p.created {
			return false
		}
		if p.ppid == pgid {
			return true
		}
		pid = p.ppid
	}
	return false
}
