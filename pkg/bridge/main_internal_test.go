package bridge

import (
	"os"
	"strings"
	"testing"
)

// argsOutEnv makes the test binary stand in for bua itself, for
// TestStartDaemonPrelaunch: started with it set, the binary writes the
// arguments it was given to that file and exits, on every OS.
const argsOutEnv = "BUA_BRIDGE_TEST_ARGS_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(argsOutEnv); out != "" {
		_ = os.WriteFile(out, []byte(strings.Join(os.Args[1:], " ")+"\n"), 0o600)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
