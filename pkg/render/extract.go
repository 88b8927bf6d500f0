package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// ExtractOptions say how Extract writes.
type ExtractOptions struct {
	Terms Terms
	// Fence wraps the page's words (the markdown and the element lines);
	// nil writes them as they are.
	Fence *Fence
	// NoneLine, when set, is written in place of an empty element list
	// (the CLI's "(no interactive elements)" on a terminal).
	NoneLine string
	// Where starts the page's words with its URL and title (Where), for
	// an agent that did not type the URL.
	Where bool
}

// Where is a page's URL and title as one line: `at URL "title"`, each cut
// to a sensible length (a tracking-laden URL, a title stuffed for search).
func Where(r protocol.ExtractResult) string {
	return fmt.Sprintf("at %s %q", Cut(r.URL, 200), Cut(r.Title, 120))
}

// Extract writes an extract result as `bua extract` prints it and as an
// agent reads it: a note when the page stayed empty, the markdown, a blank
// line, the elements one a line (Elements), then bua's own lines: the
// element list's cut (ElementsCut), the budget's cut (Budget) and the
// obstacle verdict (Verdict).
func Extract(w io.Writer, r protocol.ExtractResult, o ExtractOptions) {
	if r.Empty {
		fmt.Fprintln(w, "empty: the page showed no text and no visible element, even after waiting for it to settle")
	}
	if r.Matches > 1 {
		fmt.Fprintf(w, "matches: %d, read in document order\n\n", r.Matches)
	}
	var page strings.Builder
	if o.Where {
		page.WriteString(Where(r) + "\n\n")
	}
	if o.Terms == Agent {
		page.WriteString(RefLinks(strings.TrimRight(r.Markdown, "\n")))
	} else {
		page.WriteString(strings.TrimRight(r.Markdown, "\n"))
	}
	page.WriteString("\n\n")
	if len(r.Elements) == 0 && o.NoneLine != "" {
		page.WriteString(o.NoneLine + "\n")
	}
	if o.Terms == Agent {
		ElementRuns(&page, r.Elements)
	} else {
		Elements(&page, r.Elements)
	}
	if o.Fence != nil {
		fmt.Fprintln(w, o.Fence.Wrap(page.String()))
	} else {
		io.WriteString(w, page.String())
	}
	if c := r.BudgetCut; c != nil && c.MaxChars == 0 && c.Parts > 1 {
		// A part lists the elements inside it; the others are in the others.
		fmt.Fprintf(w, "elements: the %d inside this part, of %d\n", len(r.Elements), r.ElementsTotal)
	} else if r.Cut() {
		fmt.Fprintln(w, ElementsCut(r, o.Terms))
	}
	if line := Budget(r, o.Terms); line != "" {
		fmt.Fprintln(w, line)
	}
	if r.Obstacle != nil {
		if o.Fence == nil { // the CLI's blank line before it
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, Verdict(r.Obstacle, o.Terms))
	}
}

// Elements writes one line per element (ElementLine); an option is
// indented under the select or listbox it belongs to. About 25 characters
// for a named button.
func Elements(w io.Writer, els []protocol.Element) {
	var b strings.Builder
	for _, e := range els {
		b.Reset()
		if e.Parent != "" {
			b.WriteString("  ")
		}
		b.WriteString(ElementLine(e))
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

// ElementRuns writes the elements as Elements does, for an agent, but
// shorter where they repeat. A run of links shares one line and the
// role: `e3 link "Home", e4 "Docs", e5 "Blog" [hidden]`. A stretch that repeats an earlier one
// element for element (a menu written again in the footer) is one line
// naming it: `e17-e31 same as e2-e16`, the same roles, names and states
// in the same order (Repeats).
func ElementRuns(w io.Writer, els []protocol.Element) {
	var b strings.Builder
	reps := Repeats(els)
	for i := 0; i < len(els); i++ {
		e := els[i]
		if r, ok := reps[i]; ok {
			if i > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s-%s same as %s-%s", e.UID, els[i+r.Len-1].UID, els[r.From].UID, els[r.From+r.Len-1].UID)
			i += r.Len - 1
			b.WriteByte('\n')
			continue
		}
		if i > 0 && !strings.HasSuffix(b.String(), "\n") && joins(els[i-1], e) {
			// The line without its role: uid, name, states.
			b.WriteString(", ")
			b.WriteString(e.UID)
			b.WriteString(strings.TrimPrefix(ElementLine(e), e.UID+" "+e.Role))
			continue
		}
		if i > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		if e.Parent != "" {
			b.WriteString("  ")
		}
		b.WriteString(ElementLine(e))
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// Repeat is a stretch of elements that repeats the Len elements from
// index From, element for element.
type Repeat struct{ From, Len int }

// minRepeat is the shortest stretch written as a repeat: two elements
// cost about what the line naming them does.
const minRepeat = 3

// Repeats finds, from the start, each stretch of at least minRepeat
// elements whose lines but for the uid (role, name, value, states) are
// those of an earlier stretch that ends before it, none an option: a map
// from the stretch's first index to the latest such earlier stretch (the
// copy just before, as a reader would compare them).
func Repeats(els []protocol.Element) map[int]Repeat {
	key := make([]string, len(els))
	for i, e := range els {
		if e.Parent == "" {
			key[i] = strings.TrimPrefix(ElementLine(e), e.UID)
		}
	}
	seen := map[string][]int{}
	out := map[int]Repeat{}
	for i := 0; i < len(els); {
		best := Repeat{}
		if key[i] != "" {
			cands := seen[key[i]]
			// The latest few earlier places are enough: a menu repeats
			// its own last copy.
			for c := len(cands) - 1; c >= 0 && c >= len(cands)-8; c-- {
				p := cands[c]
				n := 0
				for i+n < len(els) && p+n < i && key[i+n] != "" && key[p+n] == key[i+n] {
					n++
				}
				if n > best.Len {
					best = Repeat{From: p, Len: n}
				}
				if n >= minRepeat {
					break // the latest copy: the menu it repeats
				}
			}
		}
		if best.Len >= minRepeat {
			out[i] = best
			for t := i; t < i+best.Len; t++ {
				seen[key[t]] = append(seen[key[t]], t)
			}
			i += best.Len
			continue
		}
		if key[i] != "" {
			seen[key[i]] = append(seen[key[i]], i)
		}
		i++
	}
	return out
}

// joins says whether e goes on prev's line in ElementRuns: both links.
// Links are most of a page's elements and name again what the markdown
// shows; a form's fields and buttons, what an agent acts on, keep a line
// each.
func joins(prev, e protocol.Element) bool {
	return prev.Role == "link" && e.Role == "link" && prev.Parent == "" && e.Parent == ""
}

// ElementLine is one element as bua writes it: `e3 button "Sign in"`,
// then `: value` and the states that hold, in brackets: [checked] [mixed]
// [selected] [expanded] [disabled], and [hidden] when it has no box.
func ElementLine(e protocol.Element) string {
	var b strings.Builder
	b.WriteString(e.UID)
	b.WriteByte(' ')
	b.WriteString(e.Role)
	if e.Name != "" {
		fmt.Fprintf(&b, " %q", e.Name)
	}
	if e.Value != "" {
		b.WriteString(": ")
		b.WriteString(e.Value)
	}
	for _, s := range ElementStates(e) {
		b.WriteString(" [")
		b.WriteString(s)
		b.WriteByte(']')
	}
	return b.String()
}

// ElementStates lists the states an element line shows, only those that
// hold: an unchecked box or a collapsed menu shows nothing.
func ElementStates(e protocol.Element) []string {
	var out []string
	switch e.Checked {
	case protocol.Checked:
		out = append(out, "checked")
	case protocol.Mixed:
		out = append(out, "mixed")
	}
	if e.Selected {
		out = append(out, "selected")
	}
	if e.Expanded != nil && *e.Expanded {
		out = append(out, "expanded")
	}
	if e.Disabled {
		out = append(out, "disabled")
	}
	if e.Visible != nil && !*e.Visible {
		out = append(out, "hidden")
	}
	return out
}

// ElementsCut is the one line under an element list that maxElements cut:
// both counts, and how to narrow or widen the read.
func ElementsCut(r protocol.ExtractResult, t Terms) string {
	return fmt.Sprintf("elements: %d of %d listed; narrow with %s or widen with %s", len(r.Elements), r.ElementsTotal, t.name("selector", "selector"), t.param("maxElements", "max-elements", min(r.ElementsTotal, 5000)))
}

// Budget is the marker for what was cut (the result's cut): which part
// this is, how much of the page it shows, and how to read the rest (the
// next part, or a selector). A read that gave no maxChars and stopped at
// the 30 KB cap names the maxChars whose part 2 reads on (cut.maxChars).
// "" when nothing was cut.
func Budget(r protocol.ExtractResult, t Terms) string {
	c := r.BudgetCut
	if c == nil {
		return ""
	}
	shown := fmt.Sprintf("%d of %d characters", c.ShownChars, c.TotalChars)
	if c.MaxChars > 0 {
		return fmt.Sprintf("cut: the markdown stops at a block boundary, part 1 of %d (%s); read on with %s and %s, each part listing its elements, or narrow with %s",
			c.Parts, shown, t.param("part", "part", 2), t.param("maxChars", "max-chars", c.MaxChars), t.name("selector", "selector"))
	}
	if c.Part >= c.Parts {
		return fmt.Sprintf("cut: this is part %d of %d, the last (%s); %s reads the first", c.Part, c.Parts, shown, t.param("part", "part", 1))
	}
	return fmt.Sprintf("cut: part %d of %d (%s); read on with %s and the same %s, or narrow with %s",
		c.Part, c.Parts, shown, t.param("part", "part", c.Part+1), t.name("maxChars", "max-chars"), t.name("selector", "selector"))
}

// Verdict is the obstacle line: `obstacle: auth_wall (high) — message`,
// and for an agent what to do about it (docs/protocol.md#obstacles:
// high is terminal, low advisory).
func Verdict(o *protocol.Obstacle, t Terms) string {
	line := fmt.Sprintf("obstacle: %s (%s) — %s", o.Type, o.Confidence, o.Message)
	if t == CLI {
		return line
	}
	switch {
	case o.Confidence == "high" && o.Type == "auth_wall":
		return line + "\nnext: sign in only with credentials the person gave you for this site; otherwise call handoff to hand them the tab (you get the page back once they signed in), or stop and tell the person"
	case o.Confidence == "high":
		return line + "\nnext: a person must clear this page: call handoff to hand them the tab (you get the cleared page back), or stop and tell the person; do not try to get around it"
	}
	return line + "\nnext: advisory only: the page may still be usable; one other attempt is reasonable before giving up"
}
