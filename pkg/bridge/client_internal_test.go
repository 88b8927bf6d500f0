package bridge

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/internal/wine"
	"github.com/bua-dev/bua/pkg/home"
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
	switch wantOwner := fmt.Sprintf("pid %d", os.Getpid()); {
	case want.Owner == "" && wine.Detected():
		// Wine's TCP tables name no owner: the Windows runner checks it
		// (home.PortOwner's own test says the same).
	case !strings.HasPrefix(want.Owner, wantOwner):
		t.Errorf("owner = %q, want %s (...)", want.Owner, wantOwner)
	}
	if msg, _ := lastDaemonError(filepath.Join(t.TempDir(), "none.log")); msg != "" {
		t.Errorf("a missing log gave %q", msg)
	}
}

// TestStartDaemonPrelaunch: the daemon a command starts is told to launch
// the managed browser at once only when the command is about to act, with
// the command's --browser selection.
func TestStartDaemonPrelaunch(t *testing.T) {
	for _, tc := range []struct {
		opts ClientOptions
		want string
	}{
		{ClientOptions{}, "serve"},
		{ClientOptions{Prelaunch: true}, "serve --prelaunch auto"},
		{ClientOptions{Prelaunch: true, Browser: SelectManaged}, "serve --prelaunch managed"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "args")
		exe, err := os.Executable() // bua, played by this binary (TestMain)
		if err != nil {
			t.Fatal(err)
		}
		tc.opts.Exe = exe
		tc.opts.Env = append(os.Environ(), argsOutEnv+"="+out)
		tc.opts.Dirs = home.Dirs{Config: dir, State: dir, Runtime: dir}
		exited, err := startDaemon(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		<-exited
		got, _ := os.ReadFile(out)
		if strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("Prelaunch %v, Browser %q: started %q, want %q", tc.opts.Prelaunch, tc.opts.Browser, strings.TrimSpace(string(got)), tc.want)
		}
	}
}
