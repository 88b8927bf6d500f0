package bridge_test

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
)

// TestStatusRuntime: status carries the daemon's goroutines, heap and open
// fds: plausible, the goroutines moving with an extension's connection
// (its reader and writer), the fds matching the process's own count.
func TestStatusRuntime(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	c := h.Client(t)
	status := func() bridge.RuntimeStats {
		t.Helper()
		st, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return st.Runtime
	}
	before := status()
	if before.Goroutines < 3 || before.Goroutines > 10000 {
		t.Errorf("goroutines = %d: want at least the listeners and this link", before.Goroutines)
	}
	if before.HeapInUseBytes < 64<<10 || before.HeapInUseBytes > 1<<30 {
		t.Errorf("heap in use = %d bytes: want between 64 KiB and 1 GiB", before.HeapInUseBytes)
	}
	wantFDs := runtime.GOOS == "linux"
	if wantFDs && (before.OpenFDs < 3 || before.OpenFDs > 10000) {
		t.Errorf("open fds = %d: want at least the two listeners and the link", before.OpenFDs)
	}
	if !wantFDs && before.OpenFDs != -1 {
		t.Errorf("open fds = %d without /proc: want -1", before.OpenFDs)
	}

	h.Connect(t)
	// Other goroutines of earlier tests may still be going away: give the
	// count a moment to show the connection's.
	after := status()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && after.Goroutines < before.Goroutines+2; after = status() {
		time.Sleep(20 * time.Millisecond)
	}
	if after.Goroutines < before.Goroutines+2 {
		t.Errorf("goroutines %d -> %d after an extension connected: want its reader and writer counted", before.Goroutines, after.Goroutines)
	}
	// The daemon runs in this process, so its count is this process's:
	// compare with /proc/self/fd read here, not with a before that an
	// earlier test's closing socket may have moved.
	if wantFDs {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		if direct := len(entries) - 1; after.OpenFDs < direct-2 || after.OpenFDs > direct+2 {
			t.Errorf("status says %d open fds, /proc/self/fd lists %d", after.OpenFDs, direct)
		}
	}
}
