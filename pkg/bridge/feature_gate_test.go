package bridge

import (
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFeatureGate: an action, or a param of one, whose schema names a
// feature is refused with invalid_action reason refused unless the hello
// lists that feature; a param left unset never is.
func TestFeatureGate(t *testing.T) {
	spec := &protocol.ActionSpec{
		Type: "probe",
		Params: []protocol.ParamSpec{
			{Name: "selector", Kind: protocol.KindString},
			{Name: "frame", Kind: protocol.KindString, Feature: "frames"},
		},
	}
	gated := &protocol.ActionSpec{Type: "gated", Feature: "trace"}
	tests := []struct {
		name     string
		spec     *protocol.ActionSpec
		action   string
		features []string
		refused  bool
	}{
		{"plain param", spec, `{"type":"probe","selector":"#a"}`, nil, false},
		{"gated param unset", spec, `{"type":"probe","selector":"#a"}`, nil, false},
		{"gated param set, not listed", spec, `{"type":"probe","selector":"#a","frame":"pay"}`, []string{"cancel"}, true},
		{"gated param set, listed", spec, `{"type":"probe","selector":"#a","frame":"pay"}`, []string{"frames"}, false},
		{"gated action, not listed", gated, `{"type":"gated"}`, nil, true},
		{"gated action, listed", gated, `{"type":"gated"}`, []string{"trace"}, false},
		{"unknown action", nil, `{"type":"nope"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Conn{Hello: protocol.Hello{ClientVersion: "old", Caps: &protocol.Caps{Features: tt.features}}}
			err := featureGate(c, tt.spec, json.RawMessage(tt.action))
			if got := err != nil; got != tt.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, tt.refused)
			}
			if err != nil && (err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused) {
				t.Fatalf("err = %+v, want invalid_action reason refused", err)
			}
		})
	}
}
