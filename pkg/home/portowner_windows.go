package home

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGetExtendedTcpTable is iphlpapi's GetExtendedTcpTable, which
// golang.org/x/sys/windows does not wrap: the one documented way to learn
// which process listens on a TCP port.
var procGetExtendedTcpTable = windows.NewLazySystemDLL("iphlpapi.dll").NewProc("GetExtendedTcpTable")

const (
	tcpTableOwnerPIDListener = 3 // TCP_TABLE_OWNER_PID_LISTENER
	afInet                   = 2
	afInet6                  = 23
)

// PortOwner names the process listening on TCP port, as "pid N
// (name.exe)", from the system's TCP tables (IPv4, then IPv6). It returns
// "" when that cannot be known.
func PortOwner(port int) string {
	for _, family := range []uint32{afInet, afInet6} {
		// Pid 0 is the system idle process: no listener's (Wine's tables
		// give every socket that owner).
		if pid, ok := listenerPID(family, port); ok && pid != 0 {
			name := "?"
			if n := imageName(pid); n != "" {
				name = n
			}
			return fmt.Sprintf("pid %d (%s)", pid, name)
		}
	}
	return ""
}

// listenerPID finds port among family's listening sockets.
func listenerPID(family uint32, port int) (uint32, bool) {
	var size uint32
	procGetExtendedTcpTable.Call(0, uintptr(unsafe.Pointer(&size)), 0, uintptr(family), tcpTableOwnerPIDListener, 0)
	if size == 0 {
		return 0, false
	}
	buf := make([]byte, size)
	if r, _, _ := procGetExtendedTcpTable.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)), 0, uintptr(family), tcpTableOwnerPIDListener, 0); r != 0 {
		return 0, false
	}
	// MIB_TCPTABLE_OWNER_PID: a count, then rows of 6 DWORDs (state,
	// local address, local port, remote address, remote port, pid);
	// MIB_TCP6TABLE_OWNER_PID's rows are 14 DWORDs (the addresses are 16
	// bytes and each has a scope id), the local port the 6th, the pid
	// the last. Ports are in network order in the low 16 bits.
	rowWords, portWord := 6, 2
	if family == afInet6 {
		rowWords, portWord = 14, 5
	}
	n := int(binary.LittleEndian.Uint32(buf))
	for i := range n {
		row := buf[4+i*rowWords*4:]
		if len(row) < rowWords*4 {
			break
		}
		word := func(j int) uint32 { return binary.LittleEndian.Uint32(row[j*4:]) }
		p := word(portWord)
		if int(p&0xff)<<8|int(p>>8&0xff) == port {
			return word(rowWords - 1), true
		}
	}
	return 0, false
}

// imageName is the file name of process pid's executable, "" when it
// cannot be read (another user's, or gone).
func imageName(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return ""
	}
	return filepath.Base(windows.UTF16ToString(buf[:n]))
}

// ListeningSockets maps listening TCP sockets to their ports by the
// names Linux gives their descriptors; Windows has no such names, so it
// is empty.
func ListeningSockets() map[string]int { return map[string]int{} }
