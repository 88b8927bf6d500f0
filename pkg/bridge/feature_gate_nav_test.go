package bridge

import (
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFeatureGateNav: waitUntil (wait_until) and dialogs (dialog_policy)
// are sent only to an extension whose hello lists them: an older one
// would wait for load anyway, or leave a dialog open that the caller asked
// to answer. Without the fields the same actions go to it as before.
func TestFeatureGateNav(t *testing.T) {
	all := []string{protocol.FeatureHistory, protocol.FeatureWaitUntil, protocol.FeatureDialogPolicy}
	tests := []struct {
		action, plain string
		feature       string
	}{
		{`{"type":"navigate","url":"https://a.test/","waitUntil":"commit"}`, `{"type":"navigate","url":"https://a.test/"}`, protocol.FeatureWaitUntil},
		{`{"type":"reload","waitUntil":"networkidle"}`, `{"type":"reload"}`, protocol.FeatureWaitUntil},
		{`{"type":"go_back","waitUntil":"domcontentloaded"}`, `{"type":"go_back"}`, protocol.FeatureWaitUntil},
		{`{"type":"go_forward","waitUntil":"load"}`, `{"type":"go_forward"}`, protocol.FeatureWaitUntil},
		{`{"type":"open_tab","url":"https://a.test/","waitUntil":"commit"}`, `{"type":"open_tab","url":"https://a.test/"}`, protocol.FeatureWaitUntil},
		{`{"type":"navigate","url":"https://a.test/","dialogs":"accept"}`, `{"type":"navigate","url":"https://a.test/"}`, protocol.FeatureDialogPolicy},
		{`{"type":"reload","dialogs":"dismiss"}`, `{"type":"reload"}`, protocol.FeatureDialogPolicy},
		{`{"type":"go_back","dialogs":"accept"}`, `{"type":"go_back"}`, protocol.FeatureDialogPolicy},
		{`{"type":"close_tab","tabId":3,"dialogs":"dismiss"}`, `{"type":"close_tab","tabId":3}`, protocol.FeatureDialogPolicy},
	}
	for _, tt := range tests {
		var a protocol.Action
		if err := json.Unmarshal([]byte(tt.action), &a); err != nil {
			t.Fatal(err)
		}
		spec := protocol.ActionSpecs[a.Type]
		var without []string
		for _, f := range all {
			if f != tt.feature {
				without = append(without, f)
			}
		}
		old := &Conn{Hello: protocol.Hello{ClientVersion: "old", Caps: &protocol.Caps{Features: without}}}
		if err := featureGate(old, spec, json.RawMessage(tt.action)); err == nil || err.Reason != protocol.ReasonRefused {
			t.Errorf("%s to an extension without %s: %v, want refused", tt.action, tt.feature, err)
		}
		if err := featureGate(old, spec, json.RawMessage(tt.plain)); err != nil {
			t.Errorf("%s to an extension without %s: %v", tt.plain, tt.feature, err)
		}
		cur := &Conn{Hello: protocol.Hello{ClientVersion: "new", Caps: &protocol.Caps{Features: all}}}
		if err := featureGate(cur, spec, json.RawMessage(tt.action)); err != nil {
			t.Errorf("%s to an extension with %s: %v", tt.action, tt.feature, err)
		}
	}
}
