// Package protocol holds bua's browser-bridge wire protocol, version 4
// (shared/spec 000, normative): the envelope and action types, Decode and
// validation against extension/schema/protocol.schema.json (code generated
// from the schema, as the extension's validator is), the error
// codes and the error contract, and the Requester interface that the daemon's
// pool, the CLI's client and the flow runner share.
//
// It imports no transport: the flow runner depends on this package and a
// Requester only, never on the daemon or the WebSocket library.
//
// Main pieces:
//   - protocol.go, actions.go, results.go, events.go: the wire types. The
//     envelope is Hello, Ack, Reject, Request, Response and EventMessage;
//     Action is the action union.
//   - schema.go, validate_gen.go: validation against the protocol schema.
//   - errors.go: the protocol error codes and the error contract: each
//     code's retry meaning as a typed Retry value.
//   - requester.go: the Requester interface.
//   - generated.go: constants generated from the schema by
//     `go generate` (internal/protogen); specs.go types them.
package protocol
