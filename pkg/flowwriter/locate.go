package flowwriter

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/roletarget"
)

// target is a step's target as a flow writes it: a role target (Role, with
// Name and Nth) or a CSS Selector, and the frame to look in.
type target struct {
	Role, Name string
	Nth        *int
	Selector   string
	Frame      string
}

// maxName is the longest accessible name a role target takes (the schema's
// accessibleName maxLength).
const maxName = 1024

// locate picks the locator a flow uses for an element, from its describe
// result, in the order docs/decisions/readable-locators.md gives (Testing
// Library's query priority; Playwright's selectorGenerator scores the same
// way):
//
//  1. a unique role and name;
//  2. a unique label, written as the element's role with the label as its
//     name (a flow has no label target, and a labelled field's accessible
//     name is its label);
//  3. a unique test id, then a unique id that does not look generated
//     (describe leaves generated ones out), then a unique short CSS path
//     that is not an nth-child chain: as a selector;
//  4. nothing unique: the role and name with nth, and note says so.
//
// A text locator is never used: a flow cannot target by text. ok is false
// when no locator fits; note then says why.
func locate(d *protocol.DescribeResult) (t target, note string, ok bool) {
	t.Frame = d.Frame
	var role *protocol.Locator
	for i, l := range d.Locators {
		if l.By == "role" && roleUsable(l.Role, l.Name) {
			role = &d.Locators[i]
			break
		}
	}
	if role != nil && role.Count == 1 {
		t.Role, t.Name = role.Role, role.Name
		return t, "", true
	}
	for _, l := range d.Locators {
		if l.By == "label" && l.Count == 1 && role != nil && l.Label != role.Name && roleUsable(role.Role, l.Label) {
			t.Role, t.Name = role.Role, l.Label
			return t, "", true
		}
	}
	for _, by := range []string{"testid", "id", "css"} {
		for _, l := range d.Locators {
			if l.By == by && l.Count == 1 && l.Selector != "" && !positional(l.Selector) {
				t.Selector = l.Selector
				return t, "", true
			}
		}
	}
	if role != nil && role.Count > 1 && role.Nth != nil {
		t.Role, t.Name, t.Nth = role.Role, role.Name, role.Nth
		return t, fmt.Sprintf("no unique locator: the %s of %d %s", ordinal(*role.Nth+1), role.Count, roleName(role.Role, role.Name)), true
	}
	if len(d.Locators) == 0 {
		return t, "describe gave no locator for this " + d.Tag, false
	}
	return t, "no locator is unique and none says which match this " + d.Tag + " is", false
}

// roleUsable reports whether a role target with role and name passes the
// flow loader's checks (roletarget.CheckRole, the name's length).
func roleUsable(role, name string) bool {
	return roletarget.CheckRole(role) == nil && len(roleTargetName(name)) <= maxName
}

// roleTargetName is name as a role target's name matches it exactly: a
// name that looks like /pattern/flags would be read as a regular
// expression, so it becomes one that matches the text whole.
func roleTargetName(name string) string {
	if _, _, isRegex := roletarget.ParseName(name); !isRegex {
		return name
	}
	var b strings.Builder
	b.WriteString("/^")
	for _, r := range name {
		if strings.ContainsRune(`\^$.*+?()[]{}|/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString("$/")
	return b.String()
}

// anySelector is the first CSS selector among d's locators, unique or
// not, "" when none: a stand-in for an element no locator tells apart.
func anySelector(d *protocol.DescribeResult) string {
	for _, l := range d.Locators {
		if l.Selector != "" && !positional(l.Selector) {
			return l.Selector
		}
	}
	return ""
}

// frameRef is how a step names its frame: a frame's name as it is, a
// frame's http(s) URL as its path (with its query, without its
// fragment), which a target's frame finds inside the URL on any host, so
// `bua run --var base=...` replays it elsewhere, as bua import writes it.
// A URL whose path says nothing ("/") stays whole.
func frameRef(f string) string {
	u, err := url.Parse(f)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.EscapedPath() == "" || u.EscapedPath() == "/" {
		return f
	}
	ref := u.EscapedPath()
	if u.RawQuery != "" {
		ref += "?" + u.RawQuery
	}
	return ref
}

// positional reports whether a CSS selector picks by position (nth-child,
// nth-of-type and their kin), which the rules never write.
func positional(sel string) bool {
	return strings.Contains(sel, ":nth-") || strings.Contains(sel, ":first-") || strings.Contains(sel, ":last-") || strings.Contains(sel, ":only-")
}

func roleName(role, name string) string {
	if name == "" {
		return role
	}
	return fmt.Sprintf("%s %q", role, name)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
