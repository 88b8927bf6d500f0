package flowwriter

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/roletarget"
)

func nth(i int) *int { return &i }

func TestLocate(t *testing.T) {
	role := func(r, n string, count int) protocol.Locator {
		return protocol.Locator{By: "role", Role: r, Name: n, Count: count}
	}
	sel := func(by, s string, count int) protocol.Locator {
		return protocol.Locator{By: by, Selector: s, Count: count}
	}
	tests := []struct {
		name     string
		d        protocol.DescribeResult
		want     string // the target, as fmt prints it
		note, ok string
	}{
		{"UniqueRole", protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{sel("testid", `[data-testid="go"]`, 1), role("button", "Go", 1)}},
			`role button "Go"`, "", "ok"},
		{"UniqueRoleNoName", protocol.DescribeResult{Tag: "main", Locators: []protocol.Locator{role("main", "", 1)}},
			`role main ""`, "", "ok"},
		{"LabelWhenRoleIsNot", protocol.DescribeResult{Tag: "input", Locators: []protocol.Locator{role("textbox", "Name", 2), {By: "label", Label: "Full name", Count: 1}, sel("id", "#name", 1)}},
			`role textbox "Full name"`, "", "ok"},
		{"LabelSameAsRoleNameIsNoBetter", protocol.DescribeResult{Tag: "input", Locators: []protocol.Locator{role("textbox", "Name", 2), {By: "label", Label: "Name", Count: 1}, sel("id", "#name", 1)}},
			`selector "#name"`, "", "ok"},
		{"LabelNeedsARole", protocol.DescribeResult{Tag: "div", Locators: []protocol.Locator{{By: "label", Label: "Notes", Count: 1}, sel("css", "div.notes", 1)}},
			`selector "div.notes"`, "", "ok"},
		{"TestIDBeforeID", protocol.DescribeResult{Tag: "a", Locators: []protocol.Locator{sel("id", "#x", 1), sel("testid", `[data-testid="x"]`, 1)}},
			`selector "[data-testid=\"x\"]"`, "", "ok"},
		{"IDBeforeCSS", protocol.DescribeResult{Tag: "a", Locators: []protocol.Locator{sel("css", "nav > a", 1), sel("id", "#x", 1)}},
			`selector "#x"`, "", "ok"},
		{"NotUniqueSkipped", protocol.DescribeResult{Tag: "a", Locators: []protocol.Locator{sel("testid", `[data-testid="row"]`, 4), sel("css", "nav > a.more", 1)}},
			`selector "nav > a.more"`, "", "ok"},
		{"NeverNthChild", protocol.DescribeResult{Tag: "li", Locators: []protocol.Locator{sel("css", "ul > li:nth-child(3)", 1), {By: "role", Role: "listitem", Name: "Three", Count: 3, Nth: nth(2)}}},
			`role listitem "Three" nth 2`, `no unique locator: the 3rd of 3 listitem "Three"`, "ok"},
		{"NeverNthOfType", protocol.DescribeResult{Tag: "li", Locators: []protocol.Locator{sel("css", "li:nth-of-type(2)", 1)}},
			"", "no locator is unique and none says which match this li is", ""},
		{"TextIsNoTarget", protocol.DescribeResult{Tag: "span", Locators: []protocol.Locator{{By: "text", Text: "Hello", Count: 1}}},
			"", "no locator is unique and none says which match this span is", ""},
		{"NotARole", protocol.DescribeResult{Tag: "div", Locators: []protocol.Locator{role("clickable", "x", 1), sel("css", "div.x", 1)}},
			`selector "div.x"`, "", "ok"},
		{"NothingAtAll", protocol.DescribeResult{Tag: "div"},
			"", "describe gave no locator for this div", ""},
		{"RoleNotUniqueWithoutNth", protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{role("button", "OK", 2)}},
			"", "no locator is unique and none says which match this button is", ""},
		{"FrameKept", protocol.DescribeResult{Tag: "button", Frame: "pay.html", Locators: []protocol.Locator{role("button", "Pay", 1)}},
			`role button "Pay" frame "pay.html"`, "", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, ok := locate(&tt.d)
			s := ""
			if ok {
				s = show(got)
			}
			if s != tt.want || note != tt.note || ok != (tt.ok == "ok") {
				t.Errorf("locate = %s, %q, %v; want %s, %q, %v", s, note, ok, tt.want, tt.note, tt.ok == "ok")
			}
		})
	}
}

func show(t target) string {
	var s string
	if t.Role != "" {
		s = fmt.Sprintf("role %s %q", t.Role, t.Name)
		if t.Nth != nil {
			s += fmt.Sprintf(" nth %d", *t.Nth)
		}
	} else {
		s = fmt.Sprintf("selector %q", t.Selector)
	}
	if t.Frame != "" {
		s += fmt.Sprintf(" frame %q", t.Frame)
	}
	return s
}

func TestRoleTargetName(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"Sign in", "Sign in"},
		{"/usr/bin/", `/^\/usr\/bin\/$/`},
		{"/a.b/i", `/^\/a\.b\/i$/`},
		{"/not a regex/ x", "/not a regex/ x"},
		{"a/b", "a/b"},
	} {
		if got := roleTargetName(tt.name); got != tt.want {
			t.Errorf("roleTargetName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		got := roleTargetName(tt.name)
		if err := roletarget.CheckName(got); err != nil {
			t.Errorf("roleTargetName(%q): %v", tt.name, err)
		}
		// A regex must match the name whole (RE2 reads these escapes as
		// JavaScript does).
		if pattern, _, ok := roletarget.ParseName(got); ok && !regexp.MustCompile(pattern).MatchString(tt.name) {
			t.Errorf("roleTargetName(%q) = %q does not match the name", tt.name, got)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
