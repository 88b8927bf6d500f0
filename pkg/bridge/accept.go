package bridge

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// Both of the daemon's accept loops, the extension port's and the CLI
// socket's, survive running out of descriptors
// (docs/decisions/daemon-limits.md). The CLI
// socket's loop used to return on the first Accept error: one EMFILE,
// while idle connections held every descriptor, left every later bua
// command hanging until the daemon was killed, with nothing logged.

// Accept's backoff after a temporary error, as net/http's Server.Serve
// does: 5 ms, doubling to at most 1 s.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// temporaryAcceptError says whether an Accept error may clear by itself
// (temporaryAcceptErrnos, per OS: errno_unix.go, errno_windows.go). A
// closed listener (net.ErrClosed) and anything else end the loop.
func temporaryAcceptError(err error) bool { return isErrno(err, temporaryAcceptErrnos) }

// isErrno reports whether err wraps one of errnos.
func isErrno(err error, errnos []syscall.Errno) bool {
	for _, errno := range errnos {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// patientListener is a net.Listener whose Accept waits out temporary
// errors instead of returning them: it retries with acceptBackoffMin
// doubling to acceptBackoffMax, and at once when one of the daemon's
// connections closes (freed: gatedConn and serveLink signal it), since
// that frees a descriptor. Failures go to the log through the limiter.
type patientListener struct {
	net.Listener
	name  string // "the extension port", "the CLI socket"
	logs  *logLimiter
	freed *waker
}

func (l *patientListener) Accept() (net.Conn, error) {
	var delay time.Duration
	failures := 0
	var since time.Time
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			if failures > 0 {
				l.logs.Info("accept recoveries on "+l.name, "accept works again", "listener", l.name,
					"failures", failures, "after", time.Since(since).Round(time.Millisecond))
			}
			return c, nil
		}
		if !temporaryAcceptError(err) {
			return nil, err
		}
		if failures == 0 {
			since = time.Now()
		}
		failures++
		delay = min(max(2*delay, acceptBackoffMin), acceptBackoffMax)
		l.logs.Warn("accept errors on "+l.name, "accept failed: retrying", "listener", l.name, "err", err, "retryIn", delay)
		wait := time.NewTimer(delay)
		select {
		case <-wait.C:
		case <-l.freed.wait():
			wait.Stop()
		}
	}
}

// Close closes the listener and wakes an Accept that is waiting out an
// error, so it returns net.ErrClosed at once.
func (l *patientListener) Close() error {
	err := l.Listener.Close()
	l.freed.signal()
	return err
}

// waker wakes every goroutine waiting on it, each time it is signalled.
type waker struct {
	mu sync.Mutex
	ch chan struct{} // nil while nobody waits
}

// wait returns a channel closed at the next signal.
func (w *waker) wait() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *waker) signal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}
