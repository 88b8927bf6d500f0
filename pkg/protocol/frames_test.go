package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFrameParam: frame rides beside a selector on click, type, hover and
// wait_for, is gated by the frames feature (so the daemon never sends it
// to an extension that would ignore it and act in the main frame), and is
// refused with a uid, empty, or alone.
func TestFrameParam(t *testing.T) {
	for _, typ := range []ActionType{ActionClick, ActionType_, ActionHover, ActionWaitFor} {
		p, ok := ActionSpecs[typ].Param("frame")
		if !ok || p.Feature != FeatureFrames || p.Kind != KindString {
			t.Errorf("%s: frame param %+v (found %v), want a string gated by %q", typ, p, ok, FeatureFrames)
		}
	}
	if _, ok := ActionSpecs[ActionPressKey].Param("frame"); ok {
		t.Error("press_key takes frame: keys go to the focused frame")
	}
	tests := []struct {
		name   string
		action Action
		want   string // substring of the error message; "" means valid
	}{
		{"ClickSelectorFrame", Click(Target{Selector: "#card", Frame: "pay"}), ""},
		{"TypeSelectorFrame", Type(Target{Selector: "#card", Frame: "localhost:8080/pay"}, "4242"), ""},
		{"HoverSelectorFrame", Hover(Target{Selector: "button", Frame: "pay"}), ""},
		{"WaitForSelectorFrame", WaitFor(Target{Selector: "#card", Frame: "pay"}, 0), ""},
		{"UIDFrame", Click(Target{UID: "e3", Frame: "pay"}), "frame goes with a selector or a role target"},
		{"RoleFrame", Click(Target{Role: "button", Name: "Pay now", Frame: "pay"}), ""},
		{"FrameAlone", Hover(Target{Frame: "pay"}), "needs exactly one of selector, uid or role"},
		{"FrameTooLong", Click(Target{Selector: "#a", Frame: strings.Repeat("x", 2049)}), "frame: must be a non-empty part of a frame's URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.action.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && err == nil:
				t.Fatal("Validate accepted an invalid action")
			case tt.want != "" && !strings.Contains(err.Message, tt.want):
				t.Fatalf("message %q does not mention %q", err.Message, tt.want)
			}
		})
	}
	// An empty frame is not omitted on the wire when set by hand.
	if err := ValidateAction([]byte(`{"type":"click","selector":"#a","frame":""}`)); err == nil || !strings.Contains(err.Message, "action.frame") {
		t.Fatalf("empty frame: %v", err)
	}
	// The result side: an element's frame decodes.
	var r ExtractResult
	if err := json.Unmarshal([]byte(`{"text":"","markdown":"","elements":[{"uid":"e4","role":"textbox","frame":"http://localhost:8080/pay.html"}]}`), &r); err != nil || r.Elements[0].Frame != "http://localhost:8080/pay.html" {
		t.Fatalf("element frame: %+v %v", r.Elements, err)
	}
}
