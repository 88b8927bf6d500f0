package browser

import (
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The process table on Windows comes from a Toolhelp snapshot (pids and
// parent pids) and each process's own handle: GetProcessTimes for its
// creation time, which tells a reused pid apart, GetExitCodeProcess for
// whether it still runs (an exited process whose handle someone holds is
// Windows' zombie), and NtQueryInformationProcess for its command line.
// Only processes this user may open are seen whole; another user's are
// never bua's browsers.

// stillActive is GetExitCodeProcess's answer for a process that runs.
const stillActive = 259

// proc is one row of the process table.
type proc struct {
	ppid    int
	created int64 // 100 ns since 1601; 0 when the process cannot be opened
}

// processTable is a snapshot of every process: pid to its row.
func processTable() map[int]proc {
	table := map[int]proc{}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return table
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		created, _, _ := times(int(e.ProcessID))
		table[int(e.ProcessID)] = proc{ppid: int(e.ParentProcessID), created: created}
	}
	return table
}

// times opens pid and reads its creation time and whether it has exited;
// ok is false when it cannot be opened (gone, or not this user's).
func times(pid int) (created int64, exited, ok bool) {
	if pid <= 0 {
		return 0, false, false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, false, false
	}
	defer windows.CloseHandle(h)
	var c, x, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &x, &k, &u); err != nil {
		return 0, false, false
	}
	var code uint32
	exited = windows.GetExitCodeProcess(h, &code) == nil && code != stillActive
	return int64(c.HighDateTime)<<32 | int64(c.LowDateTime), exited, true
}

// procStart is pid's creation time, "" when pid is gone or has exited.
func procStart(pid int) string {
	c, exited, ok := times(pid)
	if !ok || exited {
		return ""
	}
	return strconv.FormatInt(c, 10)
}

// startTime is procStart on Windows: a process that has exited is gone
// to Group.Check, even while a handle keeps its object (Wine keeps one a
// moment after its last handle closes), since terminating it again does
// nothing. Unlike a Unix zombie it needs no reaping, and Launch reads
// GroupOf while the browser is still suspended.
func startTime(pid int) string { return procStart(pid) }

// procGroup is pid itself while it runs, 0 when it is gone: Windows has no
// process groups, so every process leads its own tree (GroupMembers).
func procGroup(pid int) int {
	if procStart(pid) == "" {
		return 0
	}
	return pid
}

// pids lists the processes in a Toolhelp snapshot.
func pids() []int {
	table := processTable()
	out := make([]int, 0, len(table))
	for pid := range table {
		out = append(out, pid)
	}
	return out
}

// Alive reports whether pid is a running process; one that has exited
// counts as gone, as it does for the browser record (procStart).
func Alive(pid int) bool { return pid > 0 && procStart(pid) != "" }

// procArgs is pid's command line split as CommandLineToArgvW splits it
// (windows.DecomposeCommandLine), so a --user-data-dir with spaces, which
// Go quotes when it starts the browser, comes back whole.
func procArgs(pid int) []string {
	line, ok := commandLine(pid)
	if !ok {
		return nil
	}
	args, err := windows.DecomposeCommandLine(line)
	if err != nil {
		return nil
	}
	return args
}

// commandLine reads pid's command line: through ProcessCommandLineInformation
// (Windows 8.1 and later), else from the process's own parameters in its
// PEB (what Wine 8, which lacks that class, and older Windows allow).
func commandLine(pid int) (string, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", false
	}
	defer windows.CloseHandle(h)
	var n uint32
	_ = windows.NtQueryInformationProcess(h, windows.ProcessCommandLineInformation, nil, 0, &n)
	if n >= uint32(unsafe.Sizeof(windows.NTUnicodeString{})) {
		buf := make([]byte, n)
		if err := windows.NtQueryInformationProcess(h, windows.ProcessCommandLineInformation, unsafe.Pointer(&buf[0]), n, &n); err == nil {
			return (*windows.NTUnicodeString)(unsafe.Pointer(&buf[0])).String(), true
		}
	}
	return commandLineFromPEB(pid)
}

// commandLineFromPEB reads RTL_USER_PROCESS_PARAMETERS.CommandLine out of
// process pid's memory, following its PEB, as Process Explorer does; it
// needs PROCESS_VM_READ, which a user has on their own processes.
func commandLineFromPEB(pid int) (string, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION|windows.PROCESS_VM_READ, false, uint32(pid))
	if err != nil {
		return "", false
	}
	defer windows.CloseHandle(h)
	var pbi windows.PROCESS_BASIC_INFORMATION
	if err := windows.NtQueryInformationProcess(h, windows.ProcessBasicInformation, unsafe.Pointer(&pbi), uint32(unsafe.Sizeof(pbi)), nil); err != nil || pbi.PebBaseAddress == nil {
		return "", false
	}
	read := func(addr uintptr, into unsafe.Pointer, size uintptr) bool {
		var got uintptr
		return windows.ReadProcessMemory(h, addr, (*byte)(into), size, &got) == nil && got == size
	}
	var peb windows.PEB
	if !read(uintptr(unsafe.Pointer(pbi.PebBaseAddress)), unsafe.Pointer(&peb), unsafe.Sizeof(peb)) || peb.ProcessParameters == nil {
		return "", false
	}
	var params windows.RTL_USER_PROCESS_PARAMETERS
	if !read(uintptr(unsafe.Pointer(peb.ProcessParameters)), unsafe.Pointer(&params), unsafe.Sizeof(params)) {
		return "", false
	}
	cl := params.CommandLine
	if cl.Length == 0 || cl.Buffer == nil {
		return "", false
	}
	buf := make([]uint16, cl.Length/2)
	if !read(uintptr(unsafe.Pointer(cl.Buffer)), unsafe.Pointer(&buf[0]), uintptr(cl.Length)) {
		return "", false
	}
	return windows.UTF16ToString(buf), true
}

// GroupMembers lists the live processes of the tree rooted at pgid: pgid
// itself and its descendants by parent pid, each created no earlier than
// its parent (a parent pid that has since been reused by a younger
// process is not that parent).
func GroupMembers(pgid int) []int {
	table := processTable()
	root, ok := table[pgid]
	if !ok || root.created == 0 {
		return nil
	}
	children := map[int][]int{}
	for pid, p := range table {
		if pid != p.ppid {
			children[p.ppid] = append(children[p.ppid], pid)
		}
	}
	var members []int
	queue := []int{pgid}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if Alive(pid) {
			members = append(members, pid)
		}
		for _, child := range children[pid] {
			if c := table[child]; c.created != 0 && c.created >= table[pid].created {
				queue = append(queue, child)
			}
		}
	}
	return members
}
