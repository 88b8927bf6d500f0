package protocol

import (
	"fmt"

	"github.com/bua-dev/bua/pkg/schema"
)

// ErrorCode is a protocol error code, per protocol v4 §Errors. Callers
// branch on codes, never on messages.
type ErrorCode string

// The protocol's nine codes, plus CodeBridgeUnavailable, which never crosses
// the wire: the CLI and runner use it when no daemon or browser answers.
const (
	CodeDomainBlocked        ErrorCode = "domain_blocked"
	CodeSessionNotFound      ErrorCode = "session_not_found"
	CodeTabNotFound          ErrorCode = "tab_not_found"
	CodeElementNotFound      ErrorCode = "element_not_found"
	CodeElementStale         ErrorCode = "element_stale"
	CodeTimeout              ErrorCode = "timeout"
	CodeDebuggerAttachFailed ErrorCode = "debugger_attach_failed"
	CodeInvalidAction        ErrorCode = "invalid_action"
	CodeInternalError        ErrorCode = "internal_error"

	CodeBridgeUnavailable ErrorCode = "bridge_unavailable"
)

// Exit codes, stable and documented in README and `bua help exit-codes`.
const (
	ExitOK          = 0 // success
	ExitFailure     = 1 // an action error, or a failed flow
	ExitUsage       = 2 // usage or invalid input, an action refused before sending, an invalid flow
	ExitBlocked     = 3 // domain_blocked, or an obstacle that policy says stops
	ExitUnavailable = 4 // no daemon, or no browser in time
	ExitTimeout     = 5 // timeout, for one-shot commands
)

// CodeInfo is one row of the error contract: what the code means to a
// caller, what to do next, and how the CLI exits on it.
type CodeInfo struct {
	// Hint is one line of what to do next, from protocol v4 §Errors.
	Hint string
	// Retry says whether resending can ever help: "never"; "re-extract"
	// (pick a new target first); or "if-transient": only when the cause may
	// pass (a slow page, a tab still opening, DevTools about to close, a
	// hiccup), so a flow must ask for it in retry.on.
	Retry string
	// Exit is the one-shot CLI's exit code for this code.
	Exit int
}

// Contract is the one table of hints, retry meanings and exit codes, used
// by every command and by flows. TestContract fails when a code is missing.
var Contract = map[ErrorCode]CodeInfo{
	CodeDomainBlocked: {
		Hint:  "blocked by your blocklist: this is intentional, do not retry on another tab or action",
		Retry: "never", Exit: ExitBlocked,
	},
	CodeSessionNotFound: {
		Hint:  "no single session to act on: open a tab with `bua open URL` or pass --tab ID (see `bua tabs`)",
		Retry: "never", Exit: ExitFailure,
	},
	CodeTabNotFound: {
		Hint:  "that tab is closed or never existed: list tabs with `bua tabs` and pass a current --tab ID",
		Retry: "if-transient", Exit: ExitFailure,
	},
	CodeElementNotFound: {
		Hint:  "nothing matches that target on the current page: run `bua extract` again and pick a different uid or selector",
		Retry: "re-extract", Exit: ExitFailure,
	},
	CodeElementStale: {
		Hint:  "the page changed: run `bua extract` again, then use a new uid",
		Retry: "re-extract", Exit: ExitFailure,
	},
	CodeTimeout: {
		Hint:  "the action ran out of time: if the page is just slow, wait for it with `bua wait-for` or raise --timeout, then retry",
		Retry: "if-transient", Exit: ExitTimeout,
	},
	CodeDebuggerAttachFailed: {
		Hint:  "Chrome refused the debugger: close DevTools or any other debugger on that tab, then retry",
		Retry: "if-transient", Exit: ExitFailure,
	},
	CodeInvalidAction: {
		Hint:  "the request is invalid (or the page script threw): read the message, fix the action or expression, do not retry it as is",
		Retry: "never", Exit: ExitFailure,
	},
	CodeInternalError: {
		Hint:  "bua or the extension failed unexpectedly: check `bua status` and `bua doctor`, then retry once",
		Retry: "if-transient", Exit: ExitFailure,
	},
	CodeBridgeUnavailable: {
		Hint:  "no browser is connected: run `bua doctor`, pair Chrome with `bua pair`, or start one with `bua browser start`",
		Retry: "never", Exit: ExitUnavailable,
	},
}

// Codes lists the protocol's wire codes in spec order (CodeBridgeUnavailable
// is local and not among them).
var Codes = []ErrorCode{
	CodeDomainBlocked, CodeSessionNotFound, CodeTabNotFound, CodeElementNotFound,
	CodeElementStale, CodeTimeout, CodeDebuggerAttachFailed, CodeInvalidAction, CodeInternalError,
}

// Error is the protocol's error shape, {code, message}, used by response
// and reject alike. It implements error.
type Error struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	// Schema is the structured failure behind an invalid_action that this
	// process's validator raised (ValidateAction, Decode): Message is then
	// Schema.Error(). It is nil otherwise, always nil on an error read from
	// the wire, and never sent (protocol v4 §Errors keeps {code, message}).
	Schema *schema.Error `json:"-"`
}

// Errorf builds an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Hint is the contract's next step for e's code, or "" for unknown codes.
func (e *Error) Hint() string { return Contract[e.Code].Hint }

// ExitCode is the one-shot CLI's exit code for e; unknown codes exit 1.
func (e *Error) ExitCode() int {
	if info, ok := Contract[e.Code]; ok {
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
