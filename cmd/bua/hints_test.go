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
