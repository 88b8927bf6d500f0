package bridge

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
)

// fakeConn is a net.Conn that only records whether it was closed.
type fakeConn struct {
	net.Conn
	closed atomic.Bool
}

func (c *fakeConn) Close() error         { c.closed.Store(true); return nil }
func (c *fakeConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9} }

func newTestGate(max int) *gate {
	return &gate{max: max, logs: newLogLimiter(slog.New(slog.DiscardHandler)), freed: &waker{}}
}

func TestGate(t *testing.T) {
	t.Run("ShedsOldest", func(t *testing.T) {
		g := newTestGate(3)
		var raw []*fakeConn
		var conns []*gatedConn
		for range 5 {
			c := &fakeConn{}
			raw = append(raw, c)
			conns = append(conns, g.admit(c))
		}
		for i, c := range raw {
			if got, want := c.closed.Load(), i < 2; got != want {
				t.Errorf("conn %d closed = %v, want %v (the two oldest are shed)", i, got, want)
			}
		}
		if got := g.waiting.Len(); got != 3 {
			t.Errorf("counted %d, want the cap, 3", got)
		}
		// A hello from a shed connection is dropped, even a right one.
		if g.ack(conns[0]) {
			t.Error("ack of a shed connection = true")
		}
	})
	t.Run("AckLeavesTheCount", func(t *testing.T) {
		g := newTestGate(2)
		a, b := &fakeConn{}, &fakeConn{}
		ga := g.admit(a)
		g.admit(b)
		if !g.ack(ga) {
			t.Fatal("ack = false")
		}
		c := &fakeConn{}
		g.admit(c)
		if a.closed.Load() || b.closed.Load() || c.closed.Load() {
			t.Error("a connection was shed below the cap: an acked one still counted")
		}
		// An acked connection is never shed, however many come after it.
		for range 10 {
			g.admit(&fakeConn{})
		}
		if a.closed.Load() {
			t.Error("the acked connection was shed")
		}
	})
	t.Run("CloseLeavesTheCount", func(t *testing.T) {
		g := newTestGate(2)
		a := &fakeConn{}
		ga := g.admit(a)
		g.admit(&fakeConn{})
		freed := g.freed.wait()
		ga.Close()
		select {
		case <-freed:
		default:
			t.Error("closing a connection did not signal freed")
		}
		c := &fakeConn{}
		g.admit(c)
		if got := g.waiting.Len(); got != 2 {
			t.Errorf("counted %d, want 2", got)
		}
	})
}

// flakyListener fails Accept with err n times, then accepts fakeConns;
// closing it makes Accept return net.ErrClosed.
type flakyListener struct {
	err    error
	n      atomic.Int32
	calls  atomic.Int32
	closed atomic.Bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	if l.closed.Load() {
		return nil, net.ErrClosed
	}
	if l.n.Add(-1) >= 0 {
		return nil, l.err
	}
	return &fakeConn{}, nil
}
func (l *flakyListener) Close() error   { l.closed.Store(true); return nil }
func (l *flakyListener) Addr() net.Addr { return &net.TCPAddr{} }

// emfile is Accept's error when the process is out of descriptors, as
// package net returns it.
var emfile = &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errnoEMFILE)}

func TestPatientListener(t *testing.T) {
	newListener := func(inner net.Listener, logs *syncbuf.Buffer) *patientListener {
		return &patientListener{Listener: inner, name: "the test port", logs: newLogLimiter(slog.New(slog.NewTextHandler(logs, nil))), freed: &waker{}}
	}
	tests := []struct {
		name     string
		err      error
		failures int32
		// wantConn: Accept waits the errors out; else it returns err.
		wantConn bool
		// minWait is the least the backoff must have waited.
		minWait time.Duration
	}{
		// 5+10+20+40+80+160 ms: net/http's doubling from 5 ms.
		{"EMFILE", emfile, 6, true, 315 * time.Millisecond},
		{"ENFILE", &net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", errnoENFILE)}, 2, true, 15 * time.Millisecond},
		{"ECONNABORTED", &net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", errnoECONNABORTED)}, 1, true, 5 * time.Millisecond},
		{"Closed", net.ErrClosed, 1, false, 0},
		{"Other", &net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", errnoEINVAL)}, 1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &flakyListener{err: tt.err}
			inner.n.Store(tt.failures)
			var logs syncbuf.Buffer
			l := newListener(inner, &logs)
			start := time.Now()
			c, err := l.Accept()
			took := time.Since(start)
			if !tt.wantConn {
				if !errors.Is(err, tt.err) || inner.calls.Load() != 1 {
					t.Fatalf("Accept = %v after %d calls, want %v at once", err, inner.calls.Load(), tt.err)
				}
				return
			}
			if err != nil || c == nil {
				t.Fatalf("Accept = %v, want a connection after %d errors", err, tt.failures)
			}
			if got := inner.calls.Load(); got != tt.failures+1 {
				t.Errorf("%d Accept calls, want %d", got, tt.failures+1)
			}
			if took < tt.minWait {
				t.Errorf("took %s, want at least the backoff's %s", took, tt.minWait)
			}
			l.logs.flush()
			out := logs.String()
			if got, want := strings.Count(out, `msg="accept failed: retrying"`), min(int(tt.failures), logBurst); got != want {
				t.Errorf("%d retry lines, want %d:\n%s", got, want, out)
			}
			if tt.failures > logBurst && !strings.Contains(out, `accept errors on the test port in 10s`) {
				t.Errorf("no summary of the retries:\n%s", out)
			}
			if !strings.Contains(out, `msg="accept works again"`) || !strings.Contains(out, "failures="+strconv.Itoa(int(tt.failures))) {
				t.Errorf("no recovery line counting %d failures:\n%s", tt.failures, out)
			}
		})
	}
}

// TestPatientListenerWakes: a connection that closes wakes an Accept that
// waits out EMFILE, so it does not sleep out a backoff grown to 1 s while
// descriptors are free again.
func TestPatientListenerWakes(t *testing.T) {
	inner := &flakyListener{err: emfile}
	inner.n.Store(12) // backoff alone: 5 ms doubling to 1 s, about 5.3 s
	l := &patientListener{Listener: inner, name: "the test port", logs: newLogLimiter(slog.New(slog.DiscardHandler)), freed: &waker{}}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				l.freed.signal()
			}
		}
	}()
	start := time.Now()
	if _, err := l.Accept(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s: the closes did not wake the backoff", took)
	}
	// Close wakes it too, and it returns at once.
	inner.n.Store(1 << 30)
	done := make(chan error, 1)
	go func() { _, err := l.Accept(); done <- err }()
	time.Sleep(50 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close = %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waits after Close")
	}
}
