package browser

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// The process table on macOS comes from the kernel through sysctl
// (kern.proc.all, kern.proc.pid, kern.proc.pgrp, kern.procargs2), in one
// call per question, where forking ps(1) per process cost milliseconds
// each and lost the spaces inside arguments.

// szomb is p_stat of a zombie (sys/proc.h), which x/sys/unix does not
// define.
const szomb = 5

// kinfo is pid's kinfo_proc, nil when pid is gone.
func kinfo(pid int) *unix.KinfoProc {
	if pid <= 0 {
		return nil
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return nil
	}
	return kp
}

// start formats a process's start time: seconds.microseconds since the
// epoch, p_starttime.
func start(kp *unix.KinfoProc) string {
	t := kp.Proc.P_starttime
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec)
}

// procStart is pid's start time, "" when pid is gone or a zombie.
func procStart(pid int) string {
	kp := kinfo(pid)
	if kp == nil || kp.Proc.P_stat == szomb {
		return ""
	}
	return start(kp)
}

// startTime is pid's start time even when it is a zombie, "" when it is
// gone.
func startTime(pid int) string {
	kp := kinfo(pid)
	if kp == nil {
		return ""
	}
	return start(kp)
}

// procGroup is pid's process group id, 0 when pid is gone.
func procGroup(pid int) int {
	kp := kinfo(pid)
	if kp == nil {
		return 0
	}
	return int(kp.Eproc.Pgid)
}

// pids lists every process (kern.proc.all).
func pids() []int {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(all))
	for _, kp := range all {
		out = append(out, int(kp.Proc.P_pid))
	}
	return out
}

// Alive reports whether pid is a running process; a zombie counts as
// gone.
func Alive(pid int) bool { return pid > 0 && procStart(pid) != "" }

// procArgs is pid's command line, one element an argument, spaces kept
// (kern.procargs2, parseProcArgs2): only this user's processes can be
// read, which are the only ones bua looks for.
func procArgs(pid int) []string {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil
	}
	return parseProcArgs2(buf, binary.NativeEndian)
}

// GroupMembers lists the live processes (zombies left out) whose process
// group is pgid (kern.proc.pgrp).
func GroupMembers(pgid int) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var members []int
	for _, kp := range procs {
		if kp.Proc.P_stat != szomb && int(kp.Eproc.Pgid) == pgid {
			members = append(members, int(kp.Proc.P_pid))
		}
	}
	return members
}
