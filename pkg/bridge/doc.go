// Package bridge implements the daemon side of bua's browser bridge,
// protocol v4 (docs/protocol.md), and the pool and cancellation
// rules of the architecture (docs/architecture.md). The wire types, validation
// and error contract live in pkg/protocol; this package moves them.
//
// Main pieces:
//   - pool.go, conn.go: Pool.Send matches requests to responses over the
//     extension's WebSocket, one connection per pairing; hold.go keeps a
//     request across its extension's reconnect, deadline.go names the
//     timeout that ran out.
//   - daemon.go, lifecycle.go: the Daemon, its Config, and Run: the lock,
//     the listeners, the idle and home watch, and the shutdown.
//   - handshake.go: the WebSocket endpoint (Origin, Host, token checks,
//     hello -> ack/reject).
//   - route.go, launchpolicy.go: a CLI request's way to a browser: its
//     checks, then the connection --browser picks, or a managed browser
//     launched where the launch policy allows it.
//   - link.go, client.go: the CLI's link to the daemon; Client implements
//     protocol.Requester.
//   - pairing.go, tokens.go: pairings, tokens and one-time codes.
//   - managed.go, managedset.go: the managed Chromium browsers this
//     daemon launches (pkg/browser), one by name each; orphans.go stops
//     the ones an earlier daemon left running.
//   - eventlog.go: the size-bounded JSONL event log and its subscribers.
//   - gate.go, accept.go: the limits that shed load
//     (docs/decisions/daemon-limits.md): a cap on
//     unauthenticated connections that sheds the oldest, and accept loops
//     that wait out a lack of descriptors.
//   - loglimit.go, logfile.go: the daemon's log, bounded: clipped input,
//     rate-limited repeats with summaries, rotation at a size cap.
//
// The bridgetest subpackage holds a fake extension that speaks the real
// protocol over a real socket.
package bridge
