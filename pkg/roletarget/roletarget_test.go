package roletarget

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// TestNameVectors: ParseName and CheckName meet every vector of
// testdata/roletarget/names.json, the syntax's one statement, which the
// extension's parseName meets too (extension/test/role-target.test.js).
func TestNameVectors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "roletarget", "names.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Names []struct {
			Why, Name      string
			Regex          bool
			Pattern, Flags string
			Lint           string
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Names) < 15 {
		t.Fatalf("names.json holds %d vectors: it no longer covers the syntax", len(doc.Names))
	}
	for _, v := range doc.Names {
		p, f, ok := ParseName(v.Name)
		if ok != v.Regex || p != v.Pattern || f != v.Flags {
			t.Errorf("%s: ParseName(%q) = %q, %q, %v; want %q, %q, %v", v.Why, v.Name, p, f, ok, v.Pattern, v.Flags, v.Regex)
		}
		err := CheckName(v.Name)
		if (err == nil) != (v.Lint == "") || err != nil && !strings.Contains(err.Error(), v.Lint) {
			t.Errorf("%s: CheckName(%q) = %v, want %q", v.Why, v.Name, err, v.Lint)
		}
	}
}
