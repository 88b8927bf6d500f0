package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestHints: every code has a CLI hint and an exit code, and a known
// reason picks its own hint over the code's.
func TestHints(t *testing.T) {
	for _, c := range append(protocol.Codes, protocol.CodeBridgeUnavailable) {
		if codeHints[c] == "" {
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
		if endHints[r] == "" {
			t.Errorf("session-end reason %s has no hint", r)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hintFor(tt.err); !strings.Contains(got, tt.want) {
				t.Errorf("hint = %q, want it to contain %q", got, tt.want)
			}
			if got := exitForCode(tt.err.Code); got != tt.exit {
				t.Errorf("exit = %d, want %d", got, tt.exit)
			}
		})
	}
}
