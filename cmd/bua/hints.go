package main

import (
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// codeHints is the CLI's next step for each error code, in bua's own
// commands and flags. The protocol's contract (protocol.Contract) says
// what a code means to any caller; this says what to type. TestHints fails
// when a code has none.
var codeHints = map[protocol.ErrorCode]string{
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

// reasonHints refine a code's hint by the error's reason (protocol
// §Errors' optional reason): the cause is known, so is the fix.
var reasonHints = map[string]string{
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
}

// endHints are internal_error's hints by the session-end reason the
// extension gives; an agent reads the same words (pkg/render).
var endHints = render.EndHints

// browserDiedHint is the hint of a request whose managed browser died
// mid-action (bridge_unavailable, reason outcome_unknown).
const browserDiedHint = "the managed browser died mid-action (a crash, or killed), so the action may or may not have run: the next command launches a new one; look at the page (`bua extract`) before running it again, and `bua doctor` if it keeps dying"

// hintFor is the one line printed under an error: by code and reason when
// one is known (a net:: failure is the page's, not bua's), else by code.
func hintFor(e *protocol.Error) string {
	if h, ok := endHints[e.Reason]; ok && e.Code == protocol.CodeInternalError {
		return h
	}
	if e.Code == protocol.CodeBridgeUnavailable && e.Reason == protocol.ReasonOutcomeUnknown {
		return browserDiedHint
	}
	if h, ok := reasonHints[e.Reason]; ok {
		return h
	}
	if h := render.NetHint(e.Reason); h != "" {
		return h
	}
	return codeHints[e.Code]
}

// errorBody is the JSON form scripts read on failure:
// {"error": {"code", "message", "reason"?, "hint"}}.
type errorBody struct {
	Error struct {
		Code    protocol.ErrorCode `json:"code"`
		Message string             `json:"message"`
		Reason  string             `json:"reason,omitempty"`
		Hint    string             `json:"hint"`
	} `json:"error"`
}

func bodyOf(e *protocol.Error) errorBody {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Reason, b.Error.Hint = e.Code, e.Message, e.Reason, hintFor(e)
	return b
}
