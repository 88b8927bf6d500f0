package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// OK is the line for {ok: true, tabId}: verb, what scroll and history
// add (nothing scrolled; the URL moved to, or nothing that way), and the
// tab (TabNote): `ok (t1)`, or `ok (tab 12)` for an answer without the
// daemon's handle (an agent's). which is go_back's "earlier" or
// go_forward's "later".
func OK(verb string, r protocol.OKResult, which string) string {
	tab := TabNote(r.TabID, r.TabHandle)
	switch {
	case r.Moved != nil && !*r.Moved:
		return fmt.Sprintf("%s, nothing moved: no %s page in the tab's history%s", verb, which, tab)
	case r.Moved != nil:
		return fmt.Sprintf("%s %s%s", verb, r.URL, tab)
	case r.Scrolled != nil && !*r.Scrolled:
		return verb + ", nothing scrolled (already at that end)" + tab
	}
	return verb + tab
}

// TabNote names the tab an answer was on, after a space and in
// parentheses: ` (t1)` by the handle the daemon gave it, ` (tab 12)` by
// its id when the answer carries no handle; "" when it names no tab.
func TabNote(id *int, handle string) string {
	switch {
	case handle != "":
		return " (" + handle + ")"
	case id != nil:
		return fmt.Sprintf(" (tab %d)", *id)
	}
	return ""
}

// Input is the CLI's line for an input's answer (click, press, type,
// hover, upload): where it went. `ok: navigated to URL (t1)` when it
// navigated its tab, `ok: opened t2 URL (act on it with --tab t2)` when it
// opened a tab, both when it did both; otherwise OK's line, `ok (t1)`.
// Without the daemon's handles, tabs are named by id.
func Input(verb string, r protocol.OKResult) string {
	line := OK(verb, r, "")
	navigated := r.URL != "" && r.Moved == nil
	if navigated {
		line = fmt.Sprintf("%s: navigated to %s%s", verb, r.URL, TabNote(r.TabID, r.TabHandle))
	}
	if r.NewTabID == nil {
		return line
	}
	name, arg := r.NewTabHandle, r.NewTabHandle
	if name == "" {
		name, arg = fmt.Sprintf("tab %d", *r.NewTabID), fmt.Sprint(*r.NewTabID)
	}
	opened := "opened " + name
	if r.NewTabURL != "" {
		opened += " " + r.NewTabURL
	}
	opened += " (act on it with " + CLI.param("tabId", "tab", arg) + ")"
	if navigated {
		return line + "; " + opened
	}
	return verb + ": " + opened
}

// NewTab is the words for a tab an input opened (result newTabId): how to
// act on it, by --tab or tabId.
func NewTab(id int, t Terms) string {
	return fmt.Sprintf("it opened tab %d (act on it with %s)", id, t.param("tabId", "tab", id))
}

// Eval is an evaluate result as `bua eval` prints it
// (docs/protocol.md#evaluate): a string as it is, any other value as JSON, a
// described or truncated value by its description or preview, undefined
// with the reminder that the body needs return.
func Eval(r protocol.EvaluateResult) string {
	switch {
	case r.Truncated:
		return r.Preview
	case r.Description != "":
		return r.Description
	case r.Type == "undefined":
		return "undefined (did you forget `return`?)"
	}
	if s, ok := r.Value.(string); ok {
		return s
	}
	b, _ := json.Marshal(r.Value)
	return string(b)
}

// Changes is what an input changed in the page's elements (extract with
// changes: true): the elements that appeared, one a line, then the uids
// that went away. It stays small on any page: at most maxElements element
// lines and about maxChars characters (a name is cut at 80), then how
// many more there are. "" when nothing changed.
func Changes(c *protocol.ElementChanges, maxElements, maxChars int) string {
	if c == nil || (len(c.Added) == 0 && len(c.Removed) == 0) {
		return ""
	}
	var b strings.Builder
	if n := len(c.Added); n > 0 {
		fmt.Fprintf(&b, "appeared (%d):\n", n)
		shown := 0
		for _, e := range c.Added {
			if shown == maxElements || b.Len() >= maxChars {
				break
			}
			e.Name = Cut(e.Name, 80)
			e.Value = Cut(e.Value, 80)
			if e.Parent != "" {
				b.WriteString("  ")
			}
			b.WriteString(ElementLine(e) + "\n")
			shown++
		}
		if n > shown {
			fmt.Fprintf(&b, "... and %d more: extract to read them all\n", n-shown)
		}
	}
	if n := len(c.Removed); n > 0 {
		fmt.Fprintf(&b, "gone (%d):", n)
		shown := 0
		for _, uid := range c.Removed {
			if shown == maxElements*4 || b.Len() >= maxChars+200 {
				break
			}
			b.WriteString(" " + uid)
			shown++
		}
		if n > shown {
			fmt.Fprintf(&b, " ... and %d more", n-shown)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// Cut shortens s to at most n runes, ending a cut one with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Tab is one get_tabs row for an agent: `12 example.com "Title" URL`,
// marked [yours] or [another agent's] when the daemon says so.
func Tab(t protocol.TabInfo) string {
	line := fmt.Sprintf("%d %s %q %s", t.TabID, t.Domain, t.Title, t.URL)
	switch {
	case t.Mine:
		line += " [yours]"
	case t.HeldByOther:
		line += " [another agent's: not yours to use]"
	}
	return line
}

// Describe is a describe result: the element's kind and label, then its
// locators best first, each with how many elements it matches and, when
// several, which of them the element is (nth, 0-based).
func Describe(d protocol.DescribeResult) string {
	var b strings.Builder
	b.WriteString(d.Tag)
	if d.InputType != "" {
		b.WriteString(" type=" + d.InputType)
	}
	if d.Autocomplete != "" {
		b.WriteString(" autocomplete=" + d.Autocomplete)
	}
	if d.Label != "" {
		fmt.Fprintf(&b, " label %q", d.Label)
	}
	if d.Frame != "" {
		b.WriteString(" in frame " + d.Frame)
	}
	if len(d.Locators) == 0 {
		b.WriteString("\n(no readable locator finds it alone: act on it by its uid)")
	}
	for _, l := range d.Locators {
		b.WriteString("\n" + LocatorText(l))
		switch {
		case l.Count == 1:
			b.WriteString(" (unique)")
		case l.Nth != nil:
			fmt.Fprintf(&b, " (%d matches, nth %d)", l.Count, *l.Nth)
		default:
			fmt.Fprintf(&b, " (%d matches)", l.Count)
		}
	}
	return b.String()
}

// LocatorText is a locator in flow terms: `role: button, name: "Sign in"`,
// `label: "Email"`, `selector: #email` or `text: "Forgot?"`.
func LocatorText(l protocol.Locator) string {
	switch l.By {
	case "role":
		if l.Name == "" {
			return "role: " + l.Role
		}
		return fmt.Sprintf("role: %s, name: %q", l.Role, l.Name)
	case "label":
		return fmt.Sprintf("label: %q", l.Label)
	case "text":
		return fmt.Sprintf("text: %q", l.Text)
	}
	return "selector: " + l.Selector
}
