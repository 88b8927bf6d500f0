package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestBudgetChangesDescribeClearCommands: extract --max-chars/--part and
// --changes, screenshot --labels, type --clear and describe send the
// contract's fields, print what came back, and refuse a bad mix before
// sending anything.
func TestBudgetChangesDescribeClearCommands(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionExtract, func(a protocol.Action) (any, *protocol.Error) {
		if a.Changes {
			return protocol.ChangesResult{Changes: protocol.Changes{Added: []protocol.Element{{UID: "e153", Role: "button", Name: "Open"}}, Removed: []string{"e2", "e9"}}}, nil
		}
		return protocol.ExtractResult{Markdown: "# Part", Elements: []protocol.Element{}, Budget: &protocol.BudgetCut{Part: 2, Parts: 3, ShownChars: 1990, TotalChars: 5800}}, nil
	})
	ext.Handle(protocol.ActionDescribe, func(protocol.Action) (any, *protocol.Error) {
		one := 1
		return protocol.DescribeResult{Tag: "input", InputType: "password", Autocomplete: "current-password", Label: "Password", Locators: []protocol.Locator{
			{By: "role", Role: "textbox", Name: "Password", Count: 1},
			{By: "css", Selector: "form input", Count: 2, Nth: &one},
		}}, nil
	})
	ext.Handle(protocol.ActionScreenshot, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/"}, nil
	})
	shot := t.TempDir() + "/s.jpg"
	tests := []struct {
		args   []string
		code   int
		check  func(protocol.Action) bool
		stdout []string
	}{
		{[]string{"extract", "--max-chars", "2000", "--part", "2"}, 0, func(a protocol.Action) bool { return *a.MaxChars == 2000 && *a.Part == 2 && !a.Changes },
			[]string{"# Part", "part 2 of 3: 1990 of 5800 characters shown; read on with --part 3"}},
		{[]string{"extract", "--changes"}, 0, func(a protocol.Action) bool { return a.Changes && a.MaxChars == nil },
			[]string{`e153 button "Open"`, "removed: e2 e9"}},
		{[]string{"screenshot", "--labels", "-o", shot}, 0, func(a protocol.Action) bool { return a.Labels }, nil},
		{[]string{"type", "--clear", "e1", "new"}, 0, func(a protocol.Action) bool { return a.Clear && *a.Text == "new" }, nil},
		{[]string{"describe", "--role", "textbox", "--name", "Password"}, 0, func(a protocol.Action) bool { return a.Role == "textbox" && a.Name == "Password" },
			[]string{`<input type=password autocomplete=current-password> label "Password"`, `role textbox name "Password"`, "css form input (2 matches, nth 1)"}},
		{[]string{"extract", "--part", "2"}, exitUsage, nil, nil},
		{[]string{"extract", "--max-chars", "100"}, exitUsage, nil, nil},
		{[]string{"extract", "--changes", "--selector", "main"}, exitUsage, nil, nil},
		{[]string{"extract", "--changes", "--max-chars", "2000"}, exitUsage, nil, nil},
		{[]string{"describe"}, exitUsage, nil, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			before := len(ext.Requests())
			r := runCLI(t, h, "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", r.code, tt.code, r.stderr)
			}
			reqs := ext.Requests()
			if tt.code != 0 {
				if len(reqs) != before {
					t.Fatalf("sent %+v, want nothing sent", reqs[len(reqs)-1])
				}
				return
			}
			if got := reqs[len(reqs)-1]; !tt.check(got) {
				t.Fatalf("sent %+v", got)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout %q, want %q in it", r.stdout, s)
				}
			}
		})
	}
}
