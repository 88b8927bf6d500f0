package browser

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what bua reads of /proc/PID/stat (proc(5)): the state letter,
// the process group, and the start time in clock ticks since boot, which
// tells a reused pid apart from the process recorded under it.
type procStat struct {
	state string
	pgrp  int
	start string
}

func readProcStat(pid int) (procStat, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// comm, field 2, is in parentheses and may hold spaces or ')': the
	// fields that follow start after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 20 { // f[0] is field 3 (state), f[19] field 22 (starttime)
		return procStat{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0], pgrp: pgrp, start: f[19]}, true
}

// procStart is pid's start time, "" when pid is gone or a zombie (dead,
// only waiting for its parent: in a container whose init never reaps, a
// killed browser stays one for good).
func procStart(pid int) string {
	st, ok := readProcStat(pid)
	if !ok || st.state == "Z" || st.state == "X" {
		return ""
	}
	return st.start
}

// startTime is pid's start time even when it is a zombie, "" when it is
// gone: a browser that exited at once is still the process Launch started
// until it is reaped.
func startTime(pid int) string {
	st, _ := readProcStat(pid)
	return st.start
}

// procGroup is pid's process group id, 0 when pid is gone.
func procGroup(pid int) int {
	st, _ := readProcStat(pid)
	return st.pgrp
}

// pids lists the processes in /proc.
func pids() []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	out := make([]int, 0, len(dirs))
	for _, d := range dirs {
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Alive reports whether pid is a running process; a zombie (dead, only
// waiting for its parent to reap it) counts as gone, as it does for the
// browser record (procStart).
func Alive(pid int) bool { return pid > 0 && procStart(pid) != "" }

// procArgs is pid's command line, one element an argument.
func procArgs(pid int) []string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(raw) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}

// GroupMembers lists the live processes (zombies left out) whose process
// group is pgid, from /proc.
func GroupMembers(pgid int) []int {
	var members []int
	for _, pid := range pids() {
		if st, ok := readProcStat(pid); ok && st.pgrp == pgid && st.state != "Z" && st.state != "X" {
			members = append(members, pid)
		}
	}
	return members
}
