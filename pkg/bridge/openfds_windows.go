package bridge

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var procGetProcessHandleCount = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetProcessHandleCount")

// openFDs is the process's handle count (GetProcessHandleCount, which
// golang.org/x/sys/windows does not wrap), -1 when it cannot be read. A
// count of 0 is one the system did not keep (Wine answers so): a running
// process holds handles to its own threads at least.
func openFDs() int {
	var n uint32
	if r, _, _ := procGetProcessHandleCount.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&n))); r == 0 || n == 0 {
		return -1
	}
	return int(n)
}
