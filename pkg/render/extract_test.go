package render

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestExtractCutMarkers: a read that stopped at the 30 KB cap names the
// maxChars and part that read on, in the reader's terms; a part of a
// budgeted read says its elements are the ones inside it, not that the
// list was cut; a read without a cut has no marker.
func TestExtractCutMarkers(t *testing.T) {
	els := []protocol.Element{{UID: "e7", Role: "link", Name: "Next"}}
	for _, tc := range []struct {
		name  string
		r     protocol.ExtractResult
		terms Terms
		want  []string
		not   []string
	}{
		{"long read, agent", protocol.ExtractResult{Markdown: "# A\n\nText.\n\n", Elements: els, ElementsTotal: 1, BudgetCut: &protocol.ExtractCut{Part: 1, Parts: 3, ShownChars: 30100, TotalChars: 80000, MaxChars: 30733}}, Agent,
			[]string{"cut: the markdown stops at a block boundary, part 1 of 3 (30100 of 80000 characters); read on with part: 2 and maxChars: 30733, each part listing its elements, or narrow with selector"},
			[]string{"elements:"}},
		{"long read, CLI", protocol.ExtractResult{Markdown: "# A", Elements: els, ElementsTotal: 1, BudgetCut: &protocol.ExtractCut{Part: 1, Parts: 2, ShownChars: 10, TotalChars: 20, MaxChars: 30733}}, CLI,
			[]string{"read on with --part 2 and --max-chars 30733"}, nil},
		{"part 2 of a budgeted read", protocol.ExtractResult{Markdown: "More.", Elements: els, ElementsTotal: 400, BudgetCut: &protocol.ExtractCut{Part: 2, Parts: 5, ShownChars: 900, TotalChars: 4000}}, Agent,
			[]string{"elements: the 1 inside this part, of 400\n", "cut: part 2 of 5 (900 of 4000 characters); read on with part: 3 and the same maxChars"},
			[]string{"1 of 400 listed"}},
		{"whole", protocol.ExtractResult{Markdown: "# A", Elements: els, ElementsTotal: 1}, Agent, []string{"# A\n\ne7 link \"Next\"\n"}, []string{"cut:"}},
	} {
		var b strings.Builder
		Extract(&b, tc.r, ExtractOptions{Terms: tc.terms})
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: has %q:\n%s", tc.name, w, b.String())
			}
		}
	}
}

// TestRefLinks: a target used more than once is written once, under the
// markdown, and referenced by number; one used once, a short one, and
// fenced code stay inline; markdown that already holds reference-like
// text is left alone.
func TestRefLinks(t *testing.T) {
	long := "https://example.com/share?u=https%3A%2F%2Fexample.org%2Fa"
	for _, tc := range []struct{ in, want string }{
		{"[Share](" + long + ") and [Tweet](/t) and ![x](" + long + ")\n\n[Share](" + long + ") [Tweet](/t)",
			"[Share][1] and [Tweet](/t) and ![x][1]\n\n[Share][1] [Tweet](/t)\n\n[1]: " + long},
		{"[a](" + long + ")", "[a](" + long + ")"},
		{"```\n[a](" + long + ")\n[a](" + long + ")\n```", "```\n[a](" + long + ")\n[a](" + long + ")\n```"},
		{"see a][1] and [a](" + long + ") [a](" + long + ")", "see a][1] and [a](" + long + ") [a](" + long + ")"},
		{"[a](" + long + ") [b](" + long + "x) [c](" + long + "x) [d](" + long + ")",
			"[a][1] [b][2] [c][2] [d][1]\n\n[1]: " + long + "\n[2]: " + long + "x"},
	} {
		if got := RefLinks(tc.in); got != tc.want {
			t.Errorf("RefLinks(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestElementRuns: links in a row share a line and the role; other
// elements keep a line each, an option indented under its select.
func TestElementRuns(t *testing.T) {
	no := false
	els := []protocol.Element{
		{UID: "e0", Role: "link", Name: "Home"},
		{UID: "e1", Role: "link", Name: `Say "hi", e9`},
		{UID: "e2", Role: "link", Visible: &no},
		{UID: "e3", Role: "textbox", Name: "Q", Value: "x"},
		{UID: "e4", Role: "textbox", Name: "R"},
		{UID: "e5", Role: "combobox", Name: "Plan"},
		{UID: "e6", Role: "option", Name: "Free", Parent: "e5", Selected: true},
		{UID: "e7", Role: "option", Name: "Pro", Parent: "e5"},
		{UID: "e8", Role: "button", Name: "Go", Disabled: true},
		{UID: "e9", Role: "button", Name: "Stop"},
	}
	var b strings.Builder
	ElementRuns(&b, els)
	want := `e0 link "Home", e1 "Say \"hi\", e9", e2 [hidden]
e3 textbox "Q": x
e4 textbox "R"
e5 combobox "Plan"
  e6 option "Free" [selected]
  e7 option "Pro"
e8 button "Go" [disabled]
e9 button "Stop"
`
	if b.String() != want {
		t.Errorf("ElementRuns:\n%s\nwant:\n%s", b.String(), want)
	}
	// A menu written three times, then once with a name changed: the
	// copies name the first, the changed one is written out.
	var menu []protocol.Element
	for c, names := range [][]string{{"A", "B", "C", "D"}, {"A", "B", "C", "D"}, {"A", "B", "C", "D"}, {"A", "B", "X", "D"}} {
		for k, n := range names {
			menu = append(menu, protocol.Element{UID: "e" + strconv.Itoa(c*4+k), Role: "link", Name: n})
		}
	}
	b.Reset()
	ElementRuns(&b, menu)
	want = `e0 link "A", e1 "B", e2 "C", e3 "D"
e4-e7 same as e0-e3
e8-e11 same as e4-e7
e12 link "A", e13 "B", e14 "X", e15 "D"
`
	if b.String() != want {
		t.Errorf("ElementRuns of a repeated menu:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	ElementRuns(&b, nil)
	if b.String() != "" {
		t.Errorf("no elements: %q", b.String())
	}
}
