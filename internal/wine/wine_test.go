package wine

import (
	"runtime"
	"testing"
)

// TestDetected: off Windows, never; on Windows, what the runner says
// (scripts/test-windows sets BUA_EXPECT_WINE=1 under Wine, and the
// Windows workflow job runs without it), so a detection that broke would
// fail here rather than skip the wrong tests.
func TestDetected(t *testing.T) {
	if runtime.GOOS != "windows" {
		if Detected() {
			t.Fatal("Detected() off Windows")
		}
		return
	}
	want := expectWine()
	if got := Detected(); got != want {
		t.Fatalf("Detected() = %v, want %v (BUA_EXPECT_WINE)", got, want)
	}
}
