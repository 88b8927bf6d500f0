package protocol

import _ "embed"

// ToolSchema is the agent tool's inputSchema, generated from the protocol
// schema (tool.json, `go generate ./...`; protogen's gen.Model.Tool):
// docs/protocol.md#actions: one browser tool, one action per call,
// flat (a top-level object with no oneOf, anyOf or allOf), with a required
// action whose enum lists every action and whose description lists each
// action's params, and the union of the actions' params with short
// descriptions. A call is checked against its action's own schema branch
// (ValidateAction) before it is sent.
//
//go:embed tool.json
var ToolSchema []byte
