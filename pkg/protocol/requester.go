package protocol

import (
	"context"
	"encoding/json"
)

// Requester sends one action and waits for its result. The Pool (inside the
// daemon) and the Client (the CLI's link to the daemon) both implement it,
// so the flow runner works against either, and tests against the fake
// extension.
//
// The result is the response's raw `result` JSON; on failure the *Error
// carries a protocol code (or CodeBridgeUnavailable). ctx's deadline, when
// set, replaces the action's default timeout (see DefaultTimeout); a
// cancelled ctx resolves at once with internal_error "aborted by caller".
type Requester interface {
	Request(ctx context.Context, a Action) (json.RawMessage, *Error)
}
