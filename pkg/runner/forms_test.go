package runner

import (
	"fmt"
	"path/filepath"
	"reflect"
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

// TestRun_FormSteps: select_option takes one item or a YAML list (items
// may be expressions), upload resolves relative paths against the flow
// file's folder and a rooted one as the OS does (/tmp/b.txt is absolute
// off Windows, the current drive's on it: resolvePaths), and checked()
// reads an extract in assert.
func TestRun_FormSteps(t *testing.T) {
	page := runnertest.Page("checkbox", "Remember me")
	page.Elements[0].Checked = protocol.Checked
	fake := runnertest.New().
		On(protocol.ActionExtract, runnertest.Result(page)).
		On(protocol.ActionSelectOption, runnertest.Result(protocol.SelectOptionResult{Values: []string{"blue"}}))
	rec, _ := runFlow(t, fake, `
name: forms
vars: { second: green, idx: 2 }
steps:
  - select_option: { selector: "#colour", label: Blue }
    as: chosen
  - assert: chosen.values[0] == "blue"
  - select_option: { selector: "#colours", value: [blue, "${{ vars.second }}"] }
  - select_option: { selector: "#colours", index: [0, "${{ vars.idx }}"] }
  - select_option: { uid: e4, value: [] }
  - upload: { selector: "input[type=file]", files: [files/a.txt, /tmp/b.txt] }
  - upload: { selector: "input[type=file]", files: files/one.txt }
  - extract: {}
    as: page
  - assert: checked(page, "checkbox", "Remember me")
`)
	wantStatus(t, rec, StatusPassed)
	reqs := fake.Requests()
	dir := filepath.Dir(rec.File)
	rooted, err := filepath.Abs("/tmp/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.Action{
		{Type: protocol.ActionSelectOption, Selector: "#colour", Label: protocol.OneOrMany[string]{"Blue"}},
		{Type: protocol.ActionSelectOption, Selector: "#colours", Value: protocol.OneOrMany[string]{"blue", "green"}},
		{Type: protocol.ActionSelectOption, Selector: "#colours", Index: protocol.OneOrMany[int]{0, 2}},
		{Type: protocol.ActionSelectOption, UID: "e4", Value: protocol.OneOrMany[string]{}},
		{Type: protocol.ActionUpload, Selector: "input[type=file]", Files: []string{filepath.Join(dir, "files", "a.txt"), rooted}},
		{Type: protocol.ActionUpload, Selector: "input[type=file]", Files: []string{filepath.Join(dir, "files", "one.txt")}},
	}
	for i, w := range want {
		if !reflect.DeepEqual(reqs[i], w) {
			t.Errorf("request %d = %+v, want %+v", i, reqs[i], w)
		}
	}
}
