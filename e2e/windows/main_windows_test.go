package windows

import (
	"log"
	"os"
	"testing"

	"github.com/bua-dev/bua/e2e/harness"
)

// buaBin is the bua.exe built for this run.
var buaBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == attackerFlag {
		os.Exit(attack(os.Args[2:]))
	}
	tmp := harness.TempDir("buawin")
	// BUA_BIN names a bua.exe built elsewhere (cross-built on Linux for a
	// run under Wine, which has no Go toolchain).
	if buaBin = os.Getenv("BUA_BIN"); buaBin == "" {
		buaBin = harness.BuildBua("../..", tmp)
	}
	code := m.Run()
	if err := os.RemoveAll(tmp); err != nil {
		log.Printf("remove %s: %v", tmp, err)
	}
	os.Exit(code)
}
