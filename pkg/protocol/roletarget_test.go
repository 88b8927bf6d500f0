package protocol

import (
	"strings"
	"testing"
)

// The role target's params come from the schema, each gated on the
// role_target feature, and Validate refuses the forms the schema refuses.
func TestRoleTargetSpec(t *testing.T) {
	for _, typ := range []ActionType{ActionClick, ActionType_, ActionHover, ActionWaitFor} {
		spec := ActionSpecs[typ]
		for _, name := range []string{"role", "name", "nth"} {
			p, ok := spec.Param(name)
			if !ok || p.Feature != FeatureRoleTarget {
				t.Errorf("%s.%s: %+v (found %v), want a param gated on %s", typ, name, p, ok, FeatureRoleTarget)
			}
		}
	}
	one := 1
	if err := Click(Target{Role: "button", Name: "Sign in", Nth: &one}).Validate(); err != nil {
		t.Errorf("a role target: %v", err)
	}
	bad := []struct {
		a    Action
		want string
	}{
		{Click(Target{Role: "button", UID: "e1"}), "needs exactly one of selector, uid or role (got 2)"},
		{Hover(Target{Selector: "#a", Name: "Go"}), "they go with role"},
		{WaitFor(Target{Role: "Button"}, 0), "must be a WAI-ARIA role, in lowercase"},
	}
	for _, b := range bad {
		err := b.a.Validate()
		if err == nil || err.Code != CodeInvalidAction || !strings.Contains(err.Message, b.want) {
			t.Errorf("%+v: %v, want invalid_action saying %q", b.a, err, b.want)
		}
	}
}
