package exclusive

import (
	"context"
	"net"
	"testing"
)

// TestListenHoldsThePort: a second listener on the port Listen holds
// fails, whichever way it asks (on Windows, this is what
// SO_EXCLUSIVEADDRUSE adds: without it a socket with SO_REUSEADDR could
// bind beside it).
func TestListenHoldsThePort(t *testing.T) {
	ln, err := Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	if second, err := net.Listen("tcp", addr); err == nil {
		second.Close()
		t.Fatalf("a plain listener bound %s beside Listen's", addr)
	}
	if second, err := reuseListen(addr); err == nil {
		second.Close()
		t.Fatalf("a listener with SO_REUSEADDR bound %s beside Listen's", addr)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	c.Close()
}
