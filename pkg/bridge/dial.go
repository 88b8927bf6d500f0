package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// A client's way to the daemon: the link's dial, and the start of a
// daemon when none answers (its own process, detached), waiting for its
// link to open or saying why it could not start.

// Dial connects to the daemon, starting one when opts.AutoStart allows.
// Failure is a *Error with CodeBridgeUnavailable; with ReasonUnsafeSocket
// when the way to the socket, or the process answering on it, is not the
// user's alone (home.DialLink): then nothing was sent
// and no daemon is started.
func Dial(ctx context.Context, opts ClientOptions) (*Client, *protocol.Error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 10 * time.Second
	}
	conn, err := dialSocket(ctx, opts.Dirs)
	if refused := refusedDial(ctx, opts.Dirs, err); refused != nil {
		return nil, refused
	}
	if err != nil && opts.AutoStart {
		exited, serr := startDaemon(opts)
		if refused := unsafeSocket(serr); refused != nil {
			return nil, refused
		}
		if serr != nil {
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "cannot start the bua daemon: %v: run `bua serve` in a terminal to see why", serr)
		}
		conn, err = waitSocket(ctx, opts.Dirs, opts.StartTimeout, exited)
		if refused := refusedDial(ctx, opts.Dirs, err); refused != nil {
			return nil, refused
		}
		if errors.Is(err, errDaemonExited) {
			// The daemon stopped before it listened (a taken port, a bad
			// BUA_LISTEN): say why at once instead of after StartTimeout.
			if why, reason := lastDaemonError(opts.Dirs.LogFile()); why != "" {
				e := protocol.Errorf(protocol.CodeBridgeUnavailable, "the bua daemon could not start: %s", why)
				e.Reason = reason
				return nil, e
			}
			return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "the bua daemon exited at start: run `bua serve` in a terminal to see why (log: %s)", opts.Dirs.LogFile())
		}
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "bua daemon is not running (%s): start it with `bua serve`, or run any action command, which starts it", opts.Dirs.Link())
	}
	c := &Client{opts: opts, conn: conn, enc: json.NewEncoder(conn), pending: make(map[string]chan linkResponse)}
	go c.readLoop()
	return c, nil
}

// dialSocket connects to the daemon through home.DialLink, which checks
// the way to it and the daemon itself (its uid, or its proof of the link
// key) before handing the connection on: another user's listener gets no
// byte of a request (home.UnsafeError).
func dialSocket(ctx context.Context, dirs home.Dirs) (net.Conn, error) {
	return home.DialLink(ctx, dirs)
}

// refusedDial is the error of a dial that must not be retried or answered
// by starting a daemon: a link that is not the user's alone
// (unsafeSocket), or a daemon that took the connection and never opened
// the link (home.ErrUnresponsive); nil when err is something else.
func refusedDial(ctx context.Context, dirs home.Dirs, err error) *protocol.Error {
	if refused := unsafeSocket(err); refused != nil {
		return refused
	}
	if errors.Is(err, home.ErrUnresponsive) {
		stated, hasStated := protocol.Timeout(ctx)
		return unresponsiveError(dirs, "the link's opening", stated, hasStated)
	}
	return nil
}

// unsafeSocket is the refusal of a socket that is not the user's alone,
// or nil when err is something else.
func unsafeSocket(err error) *protocol.Error {
	var ue *home.UnsafeError
	if !errors.As(err, &ue) {
		return nil
	}
	e := protocol.Errorf(protocol.CodeBridgeUnavailable, "%s", ue.Error())
	e.Reason = protocol.ReasonUnsafeSocket
	return e
}

// errDaemonExited means the started daemon exited before its socket
// answered.
var errDaemonExited = errors.New("daemon exited")

func waitSocket(ctx context.Context, dirs home.Dirs, limit time.Duration, exited <-chan struct{}) (net.Conn, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	// Short: a cold start waits on this poll before its first request.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := dialSocket(ctx, dirs)
		if err == nil || unsafeSocket(err) != nil || errors.Is(err, home.ErrUnresponsive) {
			return conn, err
		}
		select {
		case <-tick.C:
		case <-exited:
			// A racing start that lost the lock exits too, while the
			// winner's socket comes up: look once more before giving up.
			if conn, err := dialSocket(ctx, dirs); err == nil || unsafeSocket(err) != nil {
				return conn, err
			}
			if !home.Locked(dirs.LockFile()) {
				return nil, errDaemonExited
			}
			exited = nil
		case <-deadline.C:
			return nil, fmt.Errorf("daemon did not open %s within %s", dirs.Link(), limit)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// startDaemon runs `bua serve` detached from this command (detach, per
// OS: its own session on Unix, no console and its own process group on
// Windows) with no inherited stdio, so callers that capture output (CI
// steps, $(...)) never hang on it; the daemon logs to its own file.
// exited is closed when the process ends.
func startDaemon(opts ClientOptions) (exited <-chan struct{}, err error) {
	exe := opts.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if err := opts.Dirs.Ensure(); err != nil {
		return nil, err
	}
	args := []string{"serve"}
	if opts.Prelaunch {
		sel := opts.Browser
		if sel == "" {
			sel = SelectAuto
		}
		args = append(args, "--prelaunch", string(sel))
	}
	cmd, err := startDetached(func() *exec.Cmd {
		cmd := exec.Command(exe, args...)
		cmd.Env = opts.Env
		return cmd
	})
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return done, nil
}

// lastDaemonError reads the last LogFailure line of the daemon's log: its
// err and reason, or "" when there is none.
func lastDaemonError(logFile string) (msg, reason string) {
	data, err := os.ReadFile(logFile)
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-50; i-- {
		_, attrs, ok := strings.Cut(lines[i], `msg="daemon failed" reason=`)
		if !ok {
			continue
		}
		reason, quoted, _ := strings.Cut(attrs, " err=")
		if msg, err := strconv.Unquote(quoted); err == nil {
			return msg, reason
		}
		return quoted, reason
	}
	return "", ""
}
