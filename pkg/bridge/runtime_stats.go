package bridge

import (
	"os"
	"runtime"
)

// RuntimeStats is the daemon process's own footprint in `bua status`, so a
// soak (bench/soak.sh) or a person hunting a leak can watch it over time.
type RuntimeStats struct {
	// Goroutines is runtime.NumGoroutine: a handful per connection and per
	// CLI link, so it should return to its base once requests end.
	Goroutines int `json:"goroutines"`
	// HeapInUseBytes is runtime.MemStats.HeapInuse, in bytes: spans in use
	// by the Go heap (what a leak grows), not what the OS has mapped.
	HeapInUseBytes uint64 `json:"heapInUseBytes"`
	// OpenFDs counts the entries of /proc/self/fd (sockets, the log, the
	// lock); -1 where the system has no /proc (macOS).
	OpenFDs int `json:"openFds"`
}

// readRuntimeStats samples the running process. ReadMemStats stops the
// world for microseconds: cheap enough for a status call.
func readRuntimeStats() RuntimeStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return RuntimeStats{Goroutines: runtime.NumGoroutine(), HeapInUseBytes: ms.HeapInuse, OpenFDs: openFDs()}
}

func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries) - 1 // ReadDir's own descriptor is among them
}
