// Package protocol holds bua's browser-bridge wire protocol, version 4
// (docs/protocol.md): the envelope, action and result types,
// Decode and validation against extension/schema/protocol.schema.json, the
// error codes and the error contract, and the Requester interface that the
// daemon's pool, the CLI's client and the flow runner share.
//
// It is a leaf: it imports no package of bua's and no transport, so
// everything else may import it (pkg/runner/deps_test.go holds it to
// that). Most of it is generated from the schema by `go generate`
// (internal/protogen), as rod's lib/proto is from the DevTools protocol;
// the hand-written rest is what the schema cannot say.
//
// Main pieces:
//   - types_gen.go: the wire types, generated. The envelope is Hello, Ack,
//     Reject, Request, Response, Cancel and EventMessage; Action is the
//     action union; OKResult, ExtractResult, Element, Obstacle and the
//     other *Result types are what actions answer.
//   - constants_gen.go: the constants, generated: actions and their specs
//     (specs.go types them), codes and the contract, features, reasons,
//     close codes, the timeout ladder, keys and roles.
//   - validate_gen.go, schema.go: validation, generated as code, with the
//     same reasons as the extension's (which is generated beside it).
//   - protocol.go, actions.go, results.go, describe.go, events.go,
//     trace.go: Decode, the action constructors, the types' methods, and
//     Event, kept raw so unknown events pass through whole.
//   - errors.go: Error, ErrorCode and the Retry meanings.
//   - requester.go: the Requester interface and the ladder's timeouts.
package protocol
