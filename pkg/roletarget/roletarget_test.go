package roletarget

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

func TestCheckRole(t *testing.T) {
	tests := []struct {
		role, want string // want "" means accepted
	}{
		{"button", ""},
		{"textbox", ""},
		{"combobox", ""},
		{"image", ""}, // ARIA 1.3's name, which Chromium reports
		{"img", ""},
		{"Button", `WAI-ARIA roles are lowercase; write "button"`},
		{"TEXTBOX", `write "textbox"`},
		{"buton", `did you mean "button"?`},
		{"chekbox", `did you mean "checkbox"?`},
		{"widget", "abstract WAI-ARIA role"},
		{"Landmark", "abstract WAI-ARIA role"},
		{"spaceship", `role "spaceship" is not a WAI-ARIA role (roles are lowercase`},
		{"", "role is empty"},
	}
	for _, tt := range tests {
		err := CheckRole(tt.role)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckRole(%q) = %v, want nil", tt.role, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckRole(%q) = %v, want it to say %q", tt.role, err, tt.want)
		}
	}
}

// Every role the schema lists is lowercase and concrete, so the lint's
// advice never contradicts the schema.
func TestRolesAreLowercaseAndConcrete(t *testing.T) {
	if len(protocol.Roles) < 80 {
		t.Fatalf("only %d roles", len(protocol.Roles))
	}
	for _, r := range protocol.Roles {
		if r != strings.ToLower(r) {
			t.Errorf("role %q is not lowercase", r)
		}
		for _, a := range abstractRoles {
			if r == a {
				t.Errorf("role %q is abstract", r)
			}
		}
	}
}

func TestParseAndCheckName(t *testing.T) {
	tests := []struct {
		name           string
		pattern, flags string
		regex          bool
		err            string
	}{
		{name: "Sign in"},
		{name: "/^sign in$/i", pattern: "^sign in$", flags: "i", regex: true},
		{name: "/a/b/", pattern: "a/b", regex: true},
		{name: "/path/to", pattern: "path", flags: "to", regex: true, err: `"t" is not a regular expression flag`},
		{name: "/x/gg", pattern: "x", flags: "gg", regex: true, err: "each once"},
		{name: "//", regex: true, err: "empty /pattern/"},
		{name: "/unclosed"},
		{name: "a/b/"},
		{name: "/a/1"}, // not letters after the slash: an exact name
	}
	for _, tt := range tests {
		p, f, ok := ParseName(tt.name)
		if ok != tt.regex || p != tt.pattern || f != tt.flags {
			t.Errorf("ParseName(%q) = %q, %q, %v; want %q, %q, %v", tt.name, p, f, ok, tt.pattern, tt.flags, tt.regex)
		}
		err := CheckName(tt.name)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("CheckName(%q) = %v, want %q", tt.name, err, tt.err)
		}
	}
}
