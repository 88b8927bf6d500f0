package bridge

import "runtime"

// RuntimeStats is the daemon process's own footprint in `bua status`, so a
// soak (bench/soak.sh) or a person hunting a leak can watch it over time.
type RuntimeStats struct {
	// Goroutines is runtime.NumGoroutine: a handful per connection and per
	// CLI link, so it should return to its base once requests end.
	Goroutines int `json:"goroutines"`
	// HeapInUseBytes is runtime.MemStats.HeapInuse, in bytes: spans in use
	// by the Go heap (what a leak grows), not what the OS has mapped.
	HeapInUseBytes uint64 `json:"heapInUseBytes"`
	// OpenFDs counts the process's open descriptors (sockets, the log,
	// the lock): the entries of /proc/self/fd on Linux or /dev/fd on
	// macOS, and on Windows its handle count, which also counts threads,
	// events and the like (openfds_*.go); -1 where it cannot be read.
	OpenFDs int `json:"openFds"`
}

// readRuntimeStats samples the running process. ReadMemStats stops the
// world for microseconds: cheap enough for a status call.
func readRuntimeStats() RuntimeStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return RuntimeStats{Goroutines: runtime.NumGoroutine(), HeapInUseBytes: ms.HeapInuse, OpenFDs: openFDs()}
}
