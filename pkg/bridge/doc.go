// Package bridge implements the daemon side of bua's browser bridge,
// protocol v4 (shared/spec 000, normative), and the pool and cancellation
// rules of the architecture (shared/spec 001).
//
// Main pieces:
//   - protocol.go, actions.go, results.go, events.go: the wire types. The
//     envelope is Hello, Ack, Reject, Request, Response and EventMessage;
//     Action is the 13-action union.
//   - schema.go: validation against extension/schema/protocol.schema.json,
//     the one schema the extension also validates with.
//   - errors.go: the protocol error codes, their hints and exit codes.
//   - pool.go, conn.go: Pool.Request matches requests to responses over the
//     extension's WebSocket, one connection per pairing.
//   - daemon.go, handshake.go: the WebSocket endpoint (Origin, Host, token
//     checks, hello -> ack/reject) and the CLI's unix socket.
//   - client.go: what CLI commands use to reach the daemon.
//
// The bridgetest subpackage holds a fake extension that speaks the real
// protocol over a real socket.
package bridge
