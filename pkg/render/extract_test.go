package render

import (
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

