package main

import (
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestExtractBudget: --max-chars and --part reach extract as maxChars and
// part, the cut marker (written from the result's cut) says which part
// this is and how to read the next, and --part alone is a usage error.
func TestExtractBudget(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionExtract, func(a protocol.Action) (any, *protocol.Error) {
		part := 1
		if a.Part != nil {
			part = *a.Part
		}
		return protocol.ExtractResult{Markdown: "# Long page", Elements: []protocol.Element{},
			BudgetCut: &protocol.ExtractCut{Part: part, Parts: 3, ShownChars: 998, TotalChars: 2900}}, nil
	})
	r := runCLI(t, h, "", "extract", "--max-chars", "1000")
	if r.code != 0 || !strings.Contains(r.stdout, "cut: part 1 of 3 (998 of 2900 characters); read on with --part 2 and the same --max-chars, or narrow with --selector") {
		t.Fatalf("extract --max-chars: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	last := ext.Requests()[len(ext.Requests())-1]
	if last.MaxChars == nil || *last.MaxChars != 1000 || last.Part != nil {
		t.Errorf("sent maxChars %v part %v, want 1000 and none", last.MaxChars, last.Part)
	}
	r = runCLI(t, h, "", "extract", "--max-chars", "1000", "--part", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "cut: this is part 3 of 3, the last") {
		t.Fatalf("extract --part 3: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"extract", "--part", "2"}, {"extract", "--max-chars", "10"}} {
		if r := runCLI(t, h, "", args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d (usage)\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}

// TestExtractChanges: --changes reaches extract as changes: true and
// prints the elements that appeared and the uids gone; with --selector
// or --max-chars it is a usage error, and nothing is sent.
func TestExtractChanges(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionExtract, func(a protocol.Action) (any, *protocol.Error) {
		if !a.Changes {
			return protocol.ExtractResult{Markdown: "# Page", Elements: []protocol.Element{}}, nil
		}
		return protocol.ExtractResult{Changes: &protocol.ElementChanges{
			Added: []protocol.Element{{UID: "e153", Role: "button", Name: "Open"}}, Removed: []string{"e2", "e9"}}}, nil
	})
	r := runCLI(t, h, "", "extract", "--changes")
	want := "appeared (1):\ne153 button \"Open\"\ngone (2): e2 e9\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("extract --changes: exit %d\n got %q\nwant %q\n%s", r.code, r.stdout, want, r.stderr)
	}
	if last := ext.Requests()[len(ext.Requests())-1]; !last.Changes || last.MaxChars != nil || last.Selector != "" {
		t.Errorf("sent %+v, want changes: true alone", last)
	}
	sent := len(ext.Requests())
	for _, args := range [][]string{{"extract", "--changes", "--selector", "main"}, {"extract", "--changes", "--max-chars", "2000"}} {
		if r := runCLI(t, h, "", args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d (usage)\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
	if n := len(ext.Requests()); n != sent {
		t.Errorf("a refused --changes sent %d requests", n-sent)
	}
}

// TestTypeClearScreenshotLabels: --clear and --labels become type's clear
// and screenshot's labels.
func TestTypeClearScreenshotLabels(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionScreenshot, func(protocol.Action) (any, *protocol.Error) {
		return protocol.ScreenshotResult{DataURL: "data:image/jpeg;base64,/9j/"}, nil
	})
	if r := runCLI(t, h, "", "type", "e1", "new", "--clear"); r.code != 0 {
		t.Fatalf("type --clear: %d %s", r.code, r.stderr)
	}
	if last := ext.Requests()[len(ext.Requests())-1]; !last.Clear || *last.Text != "new" {
		t.Errorf("type --clear sent %+v, want clear: true", last)
	}
	if r := runCLI(t, h, "", "screenshot", "--labels", "-o", t.TempDir()+"/s.jpg"); r.code != 0 {
		t.Fatalf("screenshot --labels: %d %s", r.code, r.stderr)
	}
	if last := ext.Requests()[len(ext.Requests())-1]; !last.Labels {
		t.Errorf("screenshot --labels sent %+v, want labels: true", last)
	}
}

// TestDescribeCommand prints the element, then its locators best first
// with their match counts.
func TestDescribeCommand(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionDescribe, func(protocol.Action) (any, *protocol.Error) {
		one := 1
		return protocol.DescribeResult{Tag: "input", InputType: "email", Label: "Email", Locators: []protocol.Locator{
			{By: "role", Role: "textbox", Name: "Email", Count: 1},
			{By: "css", Selector: "form input", Count: 2, Nth: &one},
		}}, nil
	})
	r := runCLI(t, h, "", "describe", "--role", "textbox", "--name", "Email")
	want := "input type=email label \"Email\"\nrole: textbox, name: \"Email\" (unique)\nselector: form input (2 matches, nth 1)\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("describe: exit %d\n got %q\nwant %q\n%s", r.code, r.stdout, want, r.stderr)
	}
	if last := ext.Requests()[len(ext.Requests())-1]; last.Type != protocol.ActionDescribe || last.Role != "textbox" || last.Name != "Email" {
		t.Errorf("sent %+v", last)
	}
}
