//go:build unix

package browser

import (
	"errors"
	"fmt"
	"syscall"
)

// sendSignal sends s to every process of group pgid (kill(2) with -pgid).
// A group with no member left is errNoMembers.
func sendSignal(pgid int, s sig) error {
	signal := syscall.SIGTERM
	if s == sigKill {
		signal = syscall.SIGKILL
	}
	if err := syscall.Kill(-pgid, signal); errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%w: %w", errNoMembers, err)
	} else if err != nil {
		return err
	}
	return nil
}

// ownGroup reports whether pgid is the calling process's own group.
func ownGroup(pgid int) bool { return pgid == syscall.Getpgrp() }
