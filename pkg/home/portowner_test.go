package home

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestPortOwner(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	got := PortOwner(port)
	if runtime.GOOS != "linux" {
		if got != "" {
			t.Fatalf("PortOwner = %q, want \"\" off Linux", got)
		}
		return
	}
	if want := fmt.Sprintf("pid %d (", os.Getpid()); !strings.HasPrefix(got, want) {
		t.Fatalf("PortOwner(%d) = %q, want %q...", port, got, want)
	}
	l.Close()
	if got := PortOwner(port); got != "" {
		t.Fatalf("PortOwner of a closed port = %q, want \"\"", got)
	}
}
