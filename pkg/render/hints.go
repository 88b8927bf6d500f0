package render

import (
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The next step after an error, in two voices: an agent's (Next), in the
// protocol's terms, and a person's at the shell (CommandHint), in bua's
// own commands and flags, which the CLI prints under an error and flow
// reports carry. Both look their words up in the one order of hints.lookup,
// so a reason that refines a code's advice does so for both.

// hints is one voice's words: by session-end reason, by code and reason
// together, by reason, and by code.
type hints struct {
	pairs   map[codeReason]string
	reasons map[string]string
	codes   func(protocol.ErrorCode) string
}

// codeReason is an error code with one of its reasons.
type codeReason struct {
	code   protocol.ErrorCode
	reason string
}

// lookup is the next step after e: internal_error's session-end reason
// (EndHints), the code and reason together, the reason, a net:: failure
// (NetHint), else the code.
func (h hints) lookup(e *protocol.Error) string {
	if s, ok := EndHints[e.Reason]; ok && e.Code == protocol.CodeInternalError {
		return s
	}
	if s, ok := h.pairs[codeReason{e.Code, e.Reason}]; ok {
		return s
	}
	if s, ok := h.reasons[e.Reason]; ok {
		return s
	}
	if s := NetHint(e.Reason); s != "" {
		return s
	}
	return h.codes(e.Code)
}

// agentHints are the protocol's own words: the schema's x-reasons and
// each code's contract row (extract again, wait and retry, fix the call,
// or stop and tell the person).
var agentHints = hints{
	reasons: protocol.Reasons,
	codes: func(c protocol.ErrorCode) string {
		info, _ := protocol.Lookup(c)
		return info.Next
	},
}

// Next is an agent's next step after e, in the protocol's terms.
func Next(e *protocol.Error) string { return agentHints.lookup(e) }

// CommandHint is the one line the CLI prints under an error, in bua's
// commands and flags: by code and reason when one is known (a net::
// failure is the page's, not bua's), else by code.
func CommandHint(e *protocol.Error) string { return commandHints.lookup(e) }

// CommandCodeHints is the CLI's next step for each error code. The
// protocol's contract (protocol.Contract) says what a code means to any
// caller; this says what to type. cmd/bua's TestHints fails when a code
// has none.
var CommandCodeHints = map[protocol.ErrorCode]string{
	protocol.CodeDomainBlocked:        "blocked by your blocklist: this is intentional, do not retry on another tab or action",
	protocol.CodeSessionNotFound:      "no single session to act on: open a tab with `bua open URL` or pass --tab t2 (see `bua tabs`)",
	protocol.CodeTabNotFound:          "that tab is closed or never existed: list tabs with `bua tabs` and pass a current --tab (its handle, like t2, or its id)",
	protocol.CodeElementNotFound:      "nothing matches that target on the current page: run `bua extract` again and pick a different uid, selector or --role/--name",
	protocol.CodeElementStale:         "the page changed: run `bua extract` again, then use a new uid",
	protocol.CodeTimeout:              "the action ran out of time: if the page is just slow, wait for it with `bua wait-for` or raise --timeout, then retry",
	protocol.CodeDebuggerAttachFailed: "Chrome refused the debugger: close DevTools or any other debugger on that tab, then retry",
	protocol.CodeInvalidAction:        "the request is invalid: read the message, fix the action, do not retry it as is",
	protocol.CodeInternalError:        "bua or the extension failed unexpectedly: check `bua status` and `bua doctor`, then retry once",
	protocol.CodeBridgeUnavailable:    "no browser is connected: run `bua doctor`, pair Chrome with `bua pair`, or start one with `bua browser start`",
}

// commandHints are the CLI's words; a reason's refines its code's
// (protocol §Errors' optional reason): the cause is known, so is the fix.
var commandHints = hints{
	// A request whose managed browser died mid-action.
	pairs: map[codeReason]string{
		{protocol.CodeBridgeUnavailable, protocol.ReasonOutcomeUnknown}: "the managed browser died mid-action (a crash, or killed), so the action may or may not have run: the next command launches a new one; look at the page (`bua extract`) before running it again, and `bua doctor` if it keeps dying",
	},
	reasons: map[string]string{
		protocol.ReasonRestrictedPage:     "the tab shows a browser page that no extension may drive (chrome://, the Web Store): navigate it to an http(s) page, or act on another tab",
		protocol.ReasonPortInUse:          "another program holds bua's port: stop it, or set BUA_LISTEN=127.0.0.1:PORT for every bua command and pair the extension with that port",
		protocol.ReasonBackgroundTab:      "that tab is behind another in the person's own window, where Chrome delivers no input: ask them to switch to it, or open the page in bua's window with `bua open URL`",
		protocol.ReasonDialogOpen:         "a dialog blocks the page: answer it with `bua dialog dismiss` (or accept; --prompt-text TEXT for a prompt) and run the action again, or run it with --dialogs dismiss (or accept) to answer dialogs as actions meet them and leave a page that has one",
		protocol.ReasonDialogOpened:       "the action opened a dialog, which blocks the page: answer it with `bua dialog dismiss` (or accept; --prompt-text TEXT for a prompt), or run actions with --dialogs dismiss (or accept) to answer dialogs as they meet them",
		protocol.ReasonBrowserExited:      "the managed browser quit as it started: its own last lines above say why; fix that (or point BUA_CHROME at a Chromium), then run `bua browser start` to see it start",
		protocol.ReasonNoDisplay:          "a browser with a window needs a display: use `bua browser start --headless`, or run bua under Xvfb (`xvfb-run bua ...`)",
		protocol.ReasonDaemonUnresponsive: "the bua daemon took the connection but does not answer: if it was suspended (Ctrl-Z), resume it with `fg`; otherwise end that `bua serve` process, and the next command starts a fresh daemon",
		protocol.ReasonUnsafeSocket:       "bua sent nothing: the way to its socket is not yours alone; do what the message says, then check with `bua doctor`",
		protocol.ReasonUidUnknown:         "no extract on this tab listed that uid (a typo, or another tab's uid?): run `bua extract` and use a uid it lists",
		protocol.ReasonScriptThrew:        "the page script threw: the message is its error; fix the expression (or wait until the page is in the state it expects), do not retry it as is",
		protocol.ReasonOutcomeUnknown:     "the extension lost its connection or its worker mid-action, so the action may or may not have run: look at the page (`bua extract`) before running it again, or it may happen twice",
	},
	codes: func(c protocol.ErrorCode) string { return CommandCodeHints[c] },
}

// EndHints are internal_error's next steps by the session-end reason the
// extension gives (schema error.reason x-reasons): the person, or their
// computer, ended the session while the request ran, so bua says who did
// and what to do rather than blaming itself. The words name no command,
// so the CLI and an agent share them.
var EndHints = map[string]string{
	protocol.ReasonUserStopped:      "the person pressed Stop on this tab in the bua extension: they want it left alone, so ask them before acting on that tab again",
	protocol.ReasonGlobalStop:       "the person pressed Stop all in the bua extension: every bua session ended; ask them before running anything again",
	protocol.ReasonDomainBlocked:    "the person blocked this tab's domain while the action ran: this is intentional, do not retry on that domain",
	protocol.ReasonDebuggerDetached: "the debugger was detached (Chrome's Cancel bar, DevTools, or another extension): close DevTools on that tab and retry once; if the person pressed Cancel, ask them first",
	protocol.ReasonSystemIdle:       "the computer went idle, so the extension ended its sessions: retry when the person is back",
	protocol.ReasonScreenLocked:     "the screen was locked, so the extension ended its sessions: retry when the person has unlocked it",
}

// NetHint is the next step for a page that could not load (a net:: error
// name as the reason): the page's fault or the network's, not bua's. ""
// for any other reason.
func NetHint(reason string) string {
	if !strings.HasPrefix(reason, "net::") {
		return ""
	}
	return "the page could not be loaded (" + reason + "): check the URL, and that the server is up and reachable from this machine"
}
