package protocol

import (
	"fmt"

	"github.com/bua-dev/bua/pkg/schema"
)

// ErrorCode is a protocol error code, per protocol v4 §Errors. Callers
// branch on codes, never on messages.
type ErrorCode string

// CodeBridgeUnavailable never crosses the wire: the CLI and the runner use
// it when no daemon or browser answers. The wire codes (CodeDomainBlocked,
// ...) and Codes are generated from the schema's errorCode enum.
const CodeBridgeUnavailable ErrorCode = "bridge_unavailable"

// Exit codes, stable and documented in README and `bua help exit-codes`.
const (
	ExitOK          = 0 // success
	ExitFailure     = 1 // an action error, or a failed flow
	ExitUsage       = 2 // usage or invalid input, an action refused before sending, an invalid flow
	ExitBlocked     = 3 // domain_blocked, or an obstacle that policy says stops
	ExitUnavailable = 4 // no daemon, or no browser in time
	ExitTimeout     = 5 // timeout, for one-shot commands
)

// Retry is a code's retry meaning, per protocol v4 §Errors ("every code
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

// cliContract is the CLI's hints and exit codes, kept here until they move
// to cmd/bua.
var cliContract = map[ErrorCode]struct {
	Hint string
	Exit int
}{
	CodeDomainBlocked:        {"blocked by your blocklist: this is intentional, do not retry on another tab or action", ExitBlocked},
	CodeSessionNotFound:      {"no single session to act on: open a tab with `bua open URL` or pass --tab ID (see `bua tabs`)", ExitFailure},
	CodeTabNotFound:          {"that tab is closed or never existed: list tabs with `bua tabs` and pass a current --tab ID", ExitFailure},
	CodeElementNotFound:      {"nothing matches that target on the current page: run `bua extract` again and pick a different uid or selector", ExitFailure},
	CodeElementStale:         {"the page changed: run `bua extract` again, then use a new uid", ExitFailure},
	CodeTimeout:              {"the action ran out of time: if the page is just slow, wait for it with `bua wait-for` or raise --timeout, then retry", ExitTimeout},
	CodeDebuggerAttachFailed: {"Chrome refused the debugger: close DevTools or any other debugger on that tab, then retry", ExitFailure},
	CodeInvalidAction:        {"the request is invalid (or the page script threw): read the message, fix the action or expression, do not retry it as is", ExitFailure},
	CodeInternalError:        {"bua or the extension failed unexpectedly: check `bua status` and `bua doctor`, then retry once", ExitFailure},
	CodeBridgeUnavailable:    {"no browser is connected: run `bua doctor`, pair Chrome with `bua pair`, or start one with `bua browser start`", ExitUnavailable},
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
	// the wire, and never sent (protocol v4 §Errors keeps {code, message}).
	Schema *schema.Error `json:"-"`
}

// Local reasons, never sent by the extension.
const (
	// ReasonPortInUse: the daemon could not listen on its WebSocket port.
	ReasonPortInUse = "port_in_use"
)

// Errorf builds an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Hint is the contract's next step for e's code, or "" for unknown codes.
func (e *Error) Hint() string { return cliContract[e.Code].Hint }

// ExitCode is the one-shot CLI's exit code for e; unknown codes exit 1.
func (e *Error) ExitCode() int {
	if info, ok := cliContract[e.Code]; ok {
		return info.Exit
	}
	return ExitFailure
}

// Is matches another *Error by code, so errors.Is(err, &Error{Code: c})
// works through wrapping.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// ErrorBody is the JSON form scripts read on failure:
// {"error": {"code", "message", "hint"}}.
type ErrorBody struct {
	Error struct {
		Code    ErrorCode `json:"code"`
		Message string    `json:"message"`
		Hint    string    `json:"hint"`
	} `json:"error"`
}

// Body returns e in its scripted JSON form.
func (e *Error) Body() ErrorBody {
	var b ErrorBody
	b.Error.Code, b.Error.Message, b.Error.Hint = e.Code, e.Message, e.Hint()
	return b
}
