package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// TestHints: every code has a CLI hint and an exit code, and a known
// reason picks its own hint over the code's.
func TestHints(t *testing.T) {
	for _, c := range append(protocol.Codes, protocol.CodeBridgeUnavailable) {
		if render.CommandCodeHints[c] == "" {
			t.Errorf("%s has no CLI hint", c)
		}
		if _, ok := codeExits[c]; !ok {
			t.Errorf("%s has no exit code", c)
		}
	}
	tests := []struct {
		name string
		err  *protocol.Error
		want string
		exit int
	}{
		{"ByCode", &protocol.Error{Code: protocol.CodeElementStale}, "run `bua extract` again", exitFailure},
		{"Timeout", &protocol.Error{Code: protocol.CodeTimeout}, "raise --timeout", exitTimeout},
		{"NetFailureIsThePage", &protocol.Error{Code: protocol.CodeInternalError, Reason: "net::ERR_CONNECTION_REFUSED"}, "the page could not be loaded (net::ERR_CONNECTION_REFUSED)", exitFailure},
		{"PortInUse", &protocol.Error{Code: protocol.CodeBridgeUnavailable, Reason: protocol.ReasonPortInUse}, "BUA_LISTEN", exitUnavailable},
		{"Blocked", &protocol.Error{Code: protocol.CodeDomainBlocked}, "blocklist", exitBlocked},
		{"UserStopped", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonUserStopped}, "pressed Stop on this tab", exitFailure},
		{"GlobalStop", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonGlobalStop}, "pressed Stop all", exitFailure},
		{"BlockedWhileRunning", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonDomainBlocked}, "blocked this tab's domain", exitFailure},
		{"Detached", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonDebuggerDetached}, "Cancel bar", exitFailure},
		{"Idle", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonSystemIdle}, "went idle", exitFailure},
		{"Locked", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonScreenLocked}, "screen was locked", exitFailure},
		{"DialogOpen", &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonDialogOpen}, "`bua dialog dismiss`", exitFailure},
		{"DialogOpenWayOut", &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonDialogOpen}, "--dialogs dismiss", exitFailure},
		{"UIDUnknown", &protocol.Error{Code: protocol.CodeElementStale, Reason: protocol.ReasonUidUnknown}, "use a uid it lists", exitFailure},
		{"DialogOpened", &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonDialogOpened}, "the action opened a dialog", exitFailure},
		{"BrowserExited", &protocol.Error{Code: protocol.CodeBridgeUnavailable, Reason: protocol.ReasonBrowserExited}, "BUA_CHROME", exitUnavailable},
		{"BrowserDiedMidAction", &protocol.Error{Code: protocol.CodeBridgeUnavailable, Reason: protocol.ReasonOutcomeUnknown}, "managed browser died mid-action", exitUnavailable},
		{"OutcomeUnknown", &protocol.Error{Code: protocol.CodeInternalError, Reason: protocol.ReasonOutcomeUnknown}, "lost its connection or its worker", exitFailure},
		{"NoDisplay", &protocol.Error{Code: protocol.CodeBridgeUnavailable, Reason: protocol.ReasonNoDisplay}, "--headless", exitUnavailable},
		{"DaemonUnresponsive", &protocol.Error{Code: protocol.CodeBridgeUnavailable, Reason: protocol.ReasonDaemonUnresponsive}, "does not answer", exitUnavailable},
		{"DialogOpenedWayOut", &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonDialogOpened}, "--dialogs dismiss", exitFailure},
		// The hint goes by code and reason: the same reason on another code
		// keeps the code's hint.
		{"ReasonOnOtherCode", &protocol.Error{Code: protocol.CodeTimeout, Reason: protocol.ReasonGlobalStop}, "raise --timeout", exitTimeout},
	}
	for _, r := range []string{protocol.ReasonUserStopped, protocol.ReasonGlobalStop, protocol.ReasonDomainBlocked, protocol.ReasonDebuggerDetached, protocol.ReasonSystemIdle, protocol.ReasonScreenLocked} {
		if render.EndHints[r] == "" {
			t.Errorf("session-end reason %s has no hint", r)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render.CommandHint(tt.err); !strings.Contains(got, tt.want) {
				t.Errorf("hint = %q, want it to contain %q", got, tt.want)
			}
			if got := exitForCode(tt.err.Code); got != tt.exit {
				t.Errorf("exit = %d, want %d", got, tt.exit)
			}
		})
	}
}

// TestInvalidActionHint: invalid_action's next step blames the page
// script only when one ran, which the error says by its reason
// (script_threw: evaluate's expression threw in the page); a request bua
// or the extension refused (scroll sideways, a bad selector) is the
// request's fault alone. The same for the CLI's hint and an agent's next
// step (render.Next), and through a real command line each way.
func TestInvalidActionHint(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionEvaluate, func(protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonScriptThrew, Message: "ReferenceError: boom is not defined"}
	})
	ext.Handle(protocol.ActionClick, func(protocol.Action) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeInvalidAction, Message: `invalid CSS selector "##": SyntaxError: '##' is not a valid selector.`}
	})
	hintLine := func(r result) string {
		for _, l := range strings.Split(r.stderr, "\n") {
			if h, ok := strings.CutPrefix(l, "hint: "); ok {
				return h
			}
		}
		t.Errorf("no hint in stderr %q", r.stderr)
		return ""
	}
	sideways := runCLI(t, h, "", "scroll", "sideways")
	if sideways.code != exitUsage {
		t.Errorf("scroll sideways: exit %d, want %d", sideways.code, exitUsage)
	}
	refused := &protocol.Error{Code: protocol.CodeInvalidAction, Message: `invalid CSS selector "##"`}
	threw := &protocol.Error{Code: protocol.CodeInvalidAction, Reason: protocol.ReasonScriptThrew, Message: "TypeError: x is undefined"}
	blames := regexp.MustCompile(`(?i)script threw|threw in the page`)
	for _, tt := range []struct {
		name   string
		hint   string
		blames bool
	}{
		{"scroll sideways, refused before it is sent", hintLine(sideways), false},
		{"a selector the extension refused", hintLine(runCLI(t, h, "", "click", "##")), false},
		{"eval whose script threw", hintLine(runCLI(t, h, "", "eval", "boom()")), true},
		{"hintFor: refused", render.CommandHint(refused), false},
		{"hintFor: the script threw", render.CommandHint(threw), true},
		{"agent: refused", render.Next(refused), false},
		{"agent: the script threw", render.Next(threw), true},
	} {
		if tt.hint == "" || blames.MatchString(tt.hint) != tt.blames {
			t.Errorf("%s: hint %q; want it to blame the page script: %v", tt.name, tt.hint, tt.blames)
		}
	}
}
