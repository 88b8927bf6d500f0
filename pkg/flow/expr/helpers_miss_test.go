package expr

import (
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestUID_MissNamesWhatThePageHas: a uid() miss names what the extract
// does have: the names of the asked role's elements, nearest first, or the
// roles present (with a did-you-mean) when it has none of that role.
func TestUID_MissNamesWhatThePageHas(t *testing.T) {
	links := []any{}
	for _, n := range []string{"Home", "News", "Sport", "Weather", "Travel", "Jobs", "Help"} {
		links = append(links, map[string]any{"uid": "e" + n, "role": "link", "name": n})
	}
	for _, tc := range []struct {
		name, role, pattern string
		result              any
		want                string
	}{
		{"NamesOfTheRole", "button", "(?i)^log in$", page,
			`no button named /(?i)^log in$/ among the 3 elements of the extract; its button elements are named "Sign in" (hidden), "Sign in now"`},
		{"RolesWhenNoneOfIt", "link", "Help", page,
			`no link named /Help/ among the 3 elements of the extract, which has no link; the roles it has: button (2), textbox (1)`},
		{"MisspeltRole", "buton", "Sign in", page,
			`no buton named /Sign in/ among the 3 elements of the extract, which has no buton; the roles it has: button (2), textbox (1) (did you mean button?)`},
		{"NearestFirstAndCapped", "link", "(?i)^wether$", map[string]any{"elements": links},
			`no link named /(?i)^wether$/ among the 7 elements of the extract; its link elements are named "Weather", "Home", "News", "Travel", "Help" and 2 more`},
		{"TypedResult", "checkbox", "Remember", runnertest.Page("textbox", "Email", "button", "Go"),
			`no checkbox named /Remember/ among the 2 elements of the extract, which has no checkbox; the roles it has: button (1), textbox (1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := UID(tc.result, tc.role, tc.pattern)
			be, ok := err.(*protocol.Error)
			if !ok || be.Code != protocol.CodeElementNotFound {
				t.Fatalf("UID = %v, want element_not_found", err)
			}
			if be.Message != tc.want {
				t.Errorf("message\n got %s\nwant %s", be.Message, tc.want)
			}
		})
	}
}
