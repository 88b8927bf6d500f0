package bridge

import (
	"container/list"
	"context"
	"net"
	"sync"
	"time"
)

// MaxUnauthenticated is how many connections the extension port holds
// before their hello is acked (docs/decisions/daemon-limits.md). A connection counts from
// accept until the daemon acks its hello, or until it closes: an idle TCP
// connection, an HTTP keep-alive, a WebSocket that has not said hello.
//
// The cap sheds load instead of refusing it. A new connection is always
// accepted; when it is one too many, the oldest unauthenticated one is
// closed. So a local process that floods the port with idle connections
// holds at most this many of the daemon's descriptors, and cannot lock
// out the extension: its connection is the newest, it says hello as soon
// as it opens, and a right hello leaves the count before it is acked. To
// shed it, a flood would have to open MaxUnauthenticated connections in
// the few milliseconds between its accept and its hello, and the
// extension then reconnects with its backoff. Refusing new connections
// at the cap would instead let 64 idle ones, renewed as they time out,
// lock it out for good. Connections that stay idle go anyway, at the
// server's deadlines: ReadHeaderTimeout, HTTPIdleTimeout and
// HandshakeTimeout.
const MaxUnauthenticated = 64

// gate counts the extension port's unauthenticated connections and sheds
// the oldest past its cap.
type gate struct {
	max   int
	logs  *logLimiter
	freed *waker // signalled when a connection closes (accept.go)

	mu      sync.Mutex
	waiting list.List // *gatedConn, oldest first: not acked, not closed
}

// gatedConn is one of the extension port's connections.
type gatedConn struct {
	net.Conn
	g        *gate
	accepted time.Time
	elem     *list.Element // in g.waiting, or nil
	shed     bool
}

// gateListener admits every connection its listener accepts through g.
type gateListener struct {
	net.Listener
	g *gate
}

func (l gateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.g.admit(c), nil
}

// admit counts c, shedding the oldest waiting connection if c is one too
// many.
func (g *gate) admit(c net.Conn) *gatedConn {
	gc := &gatedConn{Conn: c, g: g, accepted: time.Now()}
	g.mu.Lock()
	var victim *gatedConn
	if g.waiting.Len() >= g.max {
		victim = g.waiting.Remove(g.waiting.Front()).(*gatedConn)
		victim.elem, victim.shed = nil, true
	}
	gc.elem = g.waiting.PushBack(gc)
	g.mu.Unlock()
	if victim != nil {
		_ = victim.Conn.Close()
		g.freed.signal()
		g.logs.Info("unauthenticated connections shed", "shed the oldest unauthenticated connection: the cap is reached",
			"cap", g.max, "remote", victim.RemoteAddr().String(), "age", time.Since(victim.accepted).Round(time.Millisecond))
	}
	return gc
}

// ack takes c out of the count, as its hello carried a right token. It is
// false when c was shed meanwhile: the caller then drops it.
func (g *gate) ack(c *gatedConn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.shed {
		return false
	}
	if c.elem != nil {
		g.waiting.Remove(c.elem)
		c.elem = nil
	}
	return true
}

func (c *gatedConn) Close() error {
	c.g.mu.Lock()
	if c.elem != nil {
		c.g.waiting.Remove(c.elem)
		c.elem = nil
	}
	c.g.mu.Unlock()
	err := c.Conn.Close()
	c.g.freed.signal()
	return err
}

// gatedConnKey holds a request's *gatedConn in its context
// (http.Server.ConnContext), for serveWS to ack.
type gatedConnKey struct{}

func withGatedConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, gatedConnKey{}, c)
}

// ackConn takes the connection of the request whose context is ctx out
// of the count; false when the gate shed it first. A request that did not
// come through the gate (a test's own server) has nothing to ack.
func (g *gate) ackConn(ctx context.Context) bool {
	c, ok := ctx.Value(gatedConnKey{}).(*gatedConn)
	return !ok || g.ack(c)
}
