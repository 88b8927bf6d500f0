package recording

import (
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Describe is one line about a step for the person watching `bua record`:
// "click button "Sign in"", "type a secret into textbox "Password"",
// "the page went to http://…/dashboard.html". A secret's text is never in
// it: the extension never sent it.
func Describe(s protocol.RecordedStep) string {
	switch {
	case s.Landed:
		return "the page went to " + s.URL
	case s.NewTabID != nil && s.Action == nil:
		return fmt.Sprintf("it opened tab %d, which the recording follows", *s.NewTabID)
	case s.AssertTitle != "":
		return fmt.Sprintf("check: the page's title is %q", s.AssertTitle)
	case s.AssertURL != "":
		return "check: the page is at " + s.AssertURL
	case s.Action == nil:
		return ""
	}
	a := s.Action
	on := element(s.Target)
	switch a.Type {
	case protocol.ActionType_:
		if s.Secret > 0 {
			return "type a secret into " + on
		}
		return fmt.Sprintf("type %q into %s", clip(deref(a.Text)), on)
	case protocol.ActionClick:
		if a.ClickCount != nil && *a.ClickCount > 1 {
			return fmt.Sprintf("click %s (%d clicks)", on, *a.ClickCount)
		}
		return "click " + on
	case protocol.ActionSelectOption:
		return fmt.Sprintf("select %s in %s", strings.Join([]string(a.Value), ", "), on)
	case protocol.ActionUpload:
		return fmt.Sprintf("upload %s into %s", strings.Join(a.Files, ", "), on)
	case protocol.ActionPressKey:
		return "press " + a.Key
	case protocol.ActionNavigate:
		return "go to " + a.URL
	case protocol.ActionWaitFor:
		return fmt.Sprintf("check: the page shows %q", deref(a.Text))
	}
	return string(a.Type)
}

// element names a step's element by its best locator: `button "Sign in"`,
// `#email`.
func element(d *protocol.DescribeResult) string {
	if d == nil || len(d.Locators) == 0 {
		return "the element"
	}
	l := d.Locators[0]
	switch {
	case l.By == "role" && l.Name != "":
		return fmt.Sprintf("%s %q", l.Role, l.Name)
	case l.By == "role":
		return l.Role
	case l.Selector != "":
		return l.Selector
	case l.Label != "":
		return fmt.Sprintf("the field %q", l.Label)
	}
	return fmt.Sprintf("%q", l.Text)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// clip shortens long typed text for a progress line.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
