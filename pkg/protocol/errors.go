package protocol

import "fmt"

// ErrorCode is a protocol error code, per docs/protocol.md#errors. Callers
// branch on codes, never on messages.
type ErrorCode string

// CodeBridgeUnavailable never crosses the wire: the CLI and the runner use
// it when no daemon or browser answers. The wire codes (CodeDomainBlocked,
// ...) and Codes are generated from the schema's errorCode enum.
const CodeBridgeUnavailable ErrorCode = "bridge_unavailable"

// Retry is a code's retry meaning, per docs/protocol.md#errors ("every code
// means do not retry the exact same request", with the exceptions it names).
type Retry uint8

// Retry meanings, as the schema's x-contract spells them.
const (
	// RetryNever: resending cannot help (domain_blocked, invalid_action).
	RetryNever Retry = iota + 1
	// RetryReExtract: extract again and pick a new target first.
	RetryReExtract
	// RetryIfTransient: only when the cause may pass (a slow page, a tab
	// still opening, DevTools about to close), so a flow must ask for it.
	RetryIfTransient
)

// String is the schema's spelling: never, re-extract or if-transient.
func (r Retry) String() string {
	switch r {
	case RetryNever:
		return "never"
	case RetryReExtract:
		return "re-extract"
	case RetryIfTransient:
		return "if-transient"
	}
	return fmt.Sprintf("Retry(%d)", uint8(r))
}

// CodeInfo is one row of the error contract (schema x-contract).
type CodeInfo struct {
	Retry Retry
	// Next is one line of what a caller should do, in the protocol's terms
	// (extract, tabId), not the CLI's: the CLI adds its own hints.
	Next string
}

// BridgeUnavailable is CodeBridgeUnavailable's row: it never crosses the
// wire, so it is not in the schema's contract.
var BridgeUnavailable = CodeInfo{Retry: RetryNever, Next: "no browser is connected: pair one or start a managed browser, then send again"}

// Lookup returns code's contract row; ok is false for an unknown code.
func Lookup(code ErrorCode) (info CodeInfo, ok bool) {
	if code == CodeBridgeUnavailable {
		return BridgeUnavailable, true
	}
	info, ok = Contract[code]
	return info, ok
}

// Error is the protocol's error shape, {code, message, reason?}, used by
// response and reject alike. It implements error.
type Error struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	// Reason is a machine-readable cause within Code (a pure addition to
	// v4): a net:: error name for a page that could not load, or one of the
	// Reason* values for local failures. Callers pick hints by code and
	// reason, never by message.
	Reason string `json:"reason,omitempty"`
	// Schema is the structured failure behind an invalid_action that this
	// process's validator raised (ValidateAction, Decode): Message is then
	// Schema.Error(). It is nil otherwise, always nil on an error read from
	// the wire, and never sent (docs/protocol.md#errors keeps {code, message}).
	Schema *SchemaError `json:"-"`
}

// Local reasons, never sent by the extension.
const (
	// ReasonPortInUse: the daemon could not listen on its WebSocket port.
	ReasonPortInUse = "port_in_use"
	// ReasonRefused: the daemon refused an invalid_action before sending
	// it to any extension (it does not match the schema), so nothing ran.
	ReasonRefused = "refused"
	// ReasonBrowserExited: bridge_unavailable because the managed browser
	// exited at launch, before its extension connected; the message gives
	// its exit status and the last lines of its log.
	ReasonBrowserExited = "browser_exited"
	// ReasonNoDisplay: bridge_unavailable because a managed browser with a
	// window (not --headless) found no display to open it on.
	ReasonNoDisplay = "no_display"
	// ReasonDaemonUnresponsive: bridge_unavailable because the daemon
	// accepted the CLI's connection but did not answer in time: it is
	// suspended (SIGSTOP, Ctrl-Z) or stuck.
	ReasonDaemonUnresponsive = "daemon_unresponsive"
	// ReasonUnsafeSocket: the CLI refused to speak on the daemon's socket,
	// or to start a daemon there, because a directory on the way is
	// another user's or a symlink, or the socket's listener runs as
	// another user (home.UnsafeError): nothing was sent.
	ReasonUnsafeSocket = "unsafe_socket"
	// ReasonTabHeld: the daemon refused an agent's action on a tab that
	// another agent (another bua mcp) holds, so nothing ran.
	ReasonTabHeld = "tab_held"
)

// Errorf builds an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Is matches another *Error by code, so errors.Is(err, &Error{Code: c})
// works through wrapping.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}
