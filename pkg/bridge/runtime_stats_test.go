package bridge_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/wine"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
)

// TestStatusRuntime: status carries the daemon's goroutines, heap and open
// fds: plausible, the goroutines moving with an extension's connection
// (its reader and writer), the fds matching the process's own count.
func TestStatusRuntime(t *testing.T) {
	// The counts are the process's: an earlier test's daemon, its links
	// and connections go on closing after its Run returned (a daemon's
	// process exits there), so the count taken before connecting would
	// hold goroutines about to end, and the count after, none of them.
	waitGone(t, "github.com/bua-dev/bua/pkg/bridge.", "github.com/bua-dev/bua/pkg/bridge/bridgetest.")
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
	// Every OS bua runs on counts them (openfds_*.go); Wine keeps no
	// handle count, which the Windows runner checks.
	switch {
	case wine.Detected():
		if before.OpenFDs != -1 {
			t.Errorf("open fds = %d under Wine, which counts none: want -1", before.OpenFDs)
		}
	case before.OpenFDs < 3 || before.OpenFDs > 100000:
		t.Errorf("open fds = %d: want at least the two listeners and the link", before.OpenFDs)
	}

	h.Connect(t)
	// The connection's reader and writer start as the hello is answered:
	// give the count a moment to show them.
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
	if runtime.GOOS == "linux" {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		if direct := len(entries) - 1; after.OpenFDs < direct-2 || after.OpenFDs > direct+2 {
			t.Errorf("status says %d open fds, /proc/self/fd lists %d", after.OpenFDs, direct)
		}
	}
}

// waitGone waits until no goroutine runs code of the packages named by
// their import path prefixes (each ending in "."), or fails after 10 s
// listing the goroutines, as a leak.
func waitGone(t *testing.T, prefixes ...string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stacks := buf[:runtime.Stack(buf, true)]
		left := false
		for _, g := range bytes.Split(stacks, []byte("\n\n")) {
			if bytes.HasPrefix(g, []byte("goroutine 1 [")) {
				continue // the main one, which runs TestMain and the tests
			}
			for _, p := range prefixes {
				left = left || bytes.Contains(g, []byte(p))
			}
		}
		if !left {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("goroutines of earlier tests still run after 10 s:\n%s", stacks)
		}
	}
}
