package expr

import (
	"fmt"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// checkPage is an extract with a checkbox, a radio, an indeterminate
// checkbox and a button, as a flow sees it.
var checkPage = map[string]any{"elements": []any{
	map[string]any{"uid": "e0", "role": "checkbox", "name": "Remember me", "checked": true},
	map[string]any{"uid": "e1", "role": "radio", "name": "Express", "checked": false},
	map[string]any{"uid": "e2", "role": "checkbox", "name": "All", "checked": "mixed"},
	map[string]any{"uid": "e3", "role": "button", "name": "Save"},
}}

// In a flow: assert: checked(page, "checkbox", "Remember me").
func ExampleChecked() {
	on, _ := Checked(checkPage, "checkbox", "Remember me")
	off, _ := Checked(checkPage, "radio", "Express")
	mixed, _ := Checked(checkPage, "checkbox", "^All$")
	fmt.Println(on, off, mixed)
	// Output: true false false
}

func TestChecked_Errors(t *testing.T) {
	for _, tt := range []struct {
		role, name string
		code       protocol.ErrorCode
	}{
		{"checkbox", "Newsletter", protocol.CodeElementNotFound},
		{"button", "Save", protocol.CodeInvalidAction},
		{"checkbox", "(", protocol.CodeInvalidAction},
	} {
		_, err := Checked(checkPage, tt.role, tt.name)
		if pe, ok := err.(*protocol.Error); !ok || pe.Code != tt.code {
			t.Errorf("checked(%s, %s) = %v, want %s", tt.role, tt.name, err, tt.code)
		}
	}
	// Typed extract results work as the decoded ones do.
	typed := runnertest.Page("checkbox", "Terms")
	typed.Elements[0].Checked = protocol.Checked
	if on, err := Checked(typed, "checkbox", "Terms"); !on || err != nil {
		t.Errorf("typed: %v %v", on, err)
	}
}
