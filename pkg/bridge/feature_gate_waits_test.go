package bridge

import (
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFeatureGateWaits: the schema marks wait_for's text, state and url
// (wait_states), go_back and go_forward (history) and handle_dialog, so an
// extension that does not list them is never sent them: it would wait for
// a bare selector, ignoring state, or not know the action.
func TestFeatureGateWaits(t *testing.T) {
	tests := []struct {
		action  string
		feature string
	}{
		{`{"type":"wait_for","selector":".spinner","state":"detached"}`, protocol.FeatureWaitStates},
		{`{"type":"wait_for","text":"Saved"}`, protocol.FeatureWaitStates},
		{`{"type":"wait_for","url":"**/done"}`, protocol.FeatureWaitStates},
		{`{"type":"go_back"}`, protocol.FeatureHistory},
		{`{"type":"go_forward"}`, protocol.FeatureHistory},
		{`{"type":"handle_dialog","accept":true}`, protocol.FeatureHandleDialog},
	}
	for _, tt := range tests {
		var a protocol.Action
		if err := json.Unmarshal([]byte(tt.action), &a); err != nil {
			t.Fatal(err)
		}
		spec := protocol.ActionSpecs[a.Type]
		old := &Conn{Hello: protocol.Hello{ClientVersion: "old", Caps: &protocol.Caps{Features: []string{protocol.FeatureCancel}}}}
		if err := featureGate(old, spec, json.RawMessage(tt.action)); err == nil || err.Reason != protocol.ReasonRefused {
			t.Errorf("%s to an extension without %s: %v, want refused", tt.action, tt.feature, err)
		}
		cur := &Conn{Hello: protocol.Hello{ClientVersion: "new", Caps: &protocol.Caps{Features: []string{tt.feature}}}}
		if err := featureGate(cur, spec, json.RawMessage(tt.action)); err != nil {
			t.Errorf("%s to an extension with %s: %v", tt.action, tt.feature, err)
		}
	}
	// A plain wait_for needs no feature.
	old := &Conn{Hello: protocol.Hello{ClientVersion: "old", Caps: &protocol.Caps{}}}
	if err := featureGate(old, protocol.ActionSpecs[protocol.ActionWaitFor], json.RawMessage(`{"type":"wait_for","selector":"#a"}`)); err != nil {
		t.Errorf("plain wait_for refused: %v", err)
	}
}
