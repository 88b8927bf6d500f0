package bridge

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestLogFailureRoundTrip: what a failing daemon logs is what the command
// that started it reads back, reason and message, through the real slog
// text format.
func TestLogFailureRoundTrip(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, lerr := net.Listen("tcp", ln.Addr().String())
	logFile := filepath.Join(t.TempDir(), "daemon.log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(f, nil))
	log.Info("daemon listening")
	want := listenError(ln.Addr().String(), lerr)
	LogFailure(log, want)
	f.Close()
	msg, reason := lastDaemonError(logFile)
	if msg != want.Error() {
		t.Errorf("message = %q, want %q", msg, want.Error())
	}
	if reason != protocol.ReasonPortInUse {
		t.Errorf("reason = %q, want %q", reason, protocol.ReasonPortInUse)
	}
	if wantOwner := fmt.Sprintf("pid %d", os.Getpid()); want.Owner == "" || want.Owner[:len(wantOwner)] != wantOwner {
		t.Errorf("owner = %q, want %s (...)", want.Owner, wantOwner)
	}
	if msg, _ := lastDaemonError(filepath.Join(t.TempDir(), "none.log")); msg != "" {
		t.Errorf("a missing log gave %q", msg)
	}
}
