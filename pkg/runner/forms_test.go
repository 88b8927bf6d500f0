package runner

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

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
	wantStatus(t, rec, report.StatusPassed)
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
