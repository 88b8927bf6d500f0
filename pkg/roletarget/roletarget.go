// Package roletarget checks a role target's role and name ({role, name,
// nth}: an element by its WAI-ARIA role and accessible name) before it is
// sent, with advice a person can act on: the lowercase spelling of a
// capitalised role, a concrete role for an abstract one, the nearest role
// for a misspelt one, a regex flag JavaScript does not take. The CLI and
// the flow loader run the same checks, so a bad target fails before
// anything runs; the schema's $defs/role and accessibleName are the rules.
package roletarget

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bua-dev/bua/internal/nearest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// abstractRoles are WAI-ARIA 1.2's abstract roles (§5.3.1): ontology only,
// never an element's role, so a role target naming one can match nothing.
var abstractRoles = []string{
	"command", "composite", "input", "landmark", "range", "roletype", "section",
	"sectionhead", "select", "structure", "widget", "window",
}

// CheckRole reports why role cannot be a role target's role, or nil when it
// is one of protocol.Roles (the schema's $defs/role). The message suggests the fix:
// the lowercase spelling of a capitalised role ("Button": roles are
// lowercase), a concrete role for an abstract one, or the nearest role for
// a misspelt one.
func CheckRole(role string) error {
	if slices.Contains(protocol.Roles, role) {
		return nil
	}
	if role == "" {
		return fmt.Errorf("role is empty: name a WAI-ARIA role such as button, link or textbox")
	}
	if lower := strings.ToLower(role); lower != role && slices.Contains(protocol.Roles, lower) {
		return fmt.Errorf("role %q: WAI-ARIA roles are lowercase; write %q", role, lower)
	}
	if slices.Contains(abstractRoles, strings.ToLower(role)) {
		return fmt.Errorf("role %q is an abstract WAI-ARIA role, which no element has; name a concrete one such as button, link, textbox or combobox", role)
	}
	if near := nearestRole(strings.ToLower(role)); near != "" {
		return fmt.Errorf("role %q is not a WAI-ARIA role; did you mean %q? (roles are lowercase: button, link, textbox, checkbox, combobox, heading, ...)", role, near)
	}
	return fmt.Errorf("role %q is not a WAI-ARIA role (roles are lowercase: button, link, textbox, checkbox, combobox, heading, ...)", role)
}

// nearestRole is the role closest to s by edit distance, when it is close
// enough to be a misspelling (at most a third of its letters, at least 2),
// else "".
func nearestRole(s string) string {
	return nearest.Word(s, protocol.Roles, max(2, len(s)/3))
}

// regexFlags are the flags a JavaScript RegExp takes.
const regexFlags = "dgimsuvy"

// ParseName reads a role target's name: "/pattern/flags" is a JavaScript
// regular expression (ok true), anything else an exact name (ok false).
// A name that starts with "/" and ends in "/" plus letters is read as a
// regex, so an exact name of that shape cannot be written. The extension
// reads names by the same rule (extension/src/lib/role-target.js's
// parseName); testdata/roletarget/names.json states it once, and both
// sides' tests meet it.
func ParseName(name string) (pattern, flags string, ok bool) {
	if len(name) < 2 || name[0] != '/' {
		return "", "", false
	}
	i := strings.LastIndexByte(name, '/')
	if i == 0 {
		return "", "", false
	}
	flags = name[i+1:]
	for _, c := range flags {
		if c < 'a' || c > 'z' {
			return "", "", false
		}
	}
	return name[1:i], flags, true
}

// CheckName reports what is wrong with a role target's name, or nil: an
// empty /pattern/, or a flag JavaScript's RegExp does not take. The pattern
// itself is JavaScript's syntax, which the extension checks.
func CheckName(name string) error {
	pattern, flags, ok := ParseName(name)
	if !ok {
		return nil
	}
	if pattern == "" {
		return fmt.Errorf("name %q is an empty /pattern/: leave name out to match any name", name)
	}
	for _, c := range flags {
		if !strings.ContainsRune(regexFlags, c) || strings.Count(flags, string(c)) > 1 {
			return fmt.Errorf("name %q: %q is not a regular expression flag (flags: d g i m s u v y, each once)", name, string(c))
		}
	}
	return nil
}
