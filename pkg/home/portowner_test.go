package home

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/bua-dev/bua/internal/wine"
)

func TestPortOwner(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	got := PortOwner(port)
	switch runtime.GOOS {
	case "linux", "windows", "darwin":
	default:
		if got != "" {
			t.Fatalf("PortOwner = %q, want \"\" where bua cannot tell", got)
		}
		return
	}
	switch want := fmt.Sprintf("pid %d (", os.Getpid()); {
	case wine.Detected() && got == "":
		// Wine's TCP tables name no owning process: the Windows runner
		// (.github/workflows/ci.yml) checks the owner.
	case !strings.HasPrefix(got, want):
		t.Fatalf("PortOwner(%d) = %q, want %q...", port, got, want)
	}
	l.Close()
	if got := PortOwner(port); got != "" {
		t.Fatalf("PortOwner of a closed port = %q, want \"\"", got)
	}
}
