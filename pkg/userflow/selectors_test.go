package userflow

import (
	"reflect"
	"strings"
	"testing"
)

// TestSelectFrom: which bua target a step's alternatives give, in the
// documented order (an ARIA selector with a role, a CSS selector, an XPath
// with a CSS equal, an ARIA selector with its role guessed), what a page
// script can query, and why nothing fits.
func TestSelectFrom(t *testing.T) {
	tests := []struct {
		name  string
		alts  [][]string
		guess string
		want  target
		why   string // a part of Why, when no target
		page  [][]string
		tag   string
		text  string
	}{
		{name: "the Recorder's usual order: role first",
			alts: [][]string{{`aria/Sign in[role="button"]`}, {"#login > button"}, {`xpath///*[@id="login"]/button`}, {"pierce/#login > button"}, {"text/Sign in"}},
			want: target{Role: "button", Name: "Sign in", From: `aria/Sign in[role="button"]`},
			page: [][]string{{"#login > button"}, {`xpath///*[@id="login"]/button`}, {"pierce/#login > button"}}, tag: "button", text: "Sign in"},
		{name: "a role target wins even after a CSS selector",
			alts: [][]string{{"#q"}, {`aria/Search[role="combobox"]`}},
			want: target{Role: "combobox", Name: "Search", From: `aria/Search[role="combobox"]`}, page: [][]string{{"#q"}}},
		{name: "no role: the CSS selector",
			alts: [][]string{{"aria/Click"}, {"#button"}, {`xpath///*[@id="button"]`}, {"text/Click"}},
			want: target{Selector: "#button", From: "#button"}, page: [][]string{{"#button"}, {`xpath///*[@id="button"]`}}, text: "Click"},
		{name: "an XPath with a CSS equal",
			alts: [][]string{{"xpath//html/body/div[2]/select"}},
			want: target{Selector: "html > body > div:nth-of-type(2) > select", From: "xpath//html/body/div[2]/select"},
			page: [][]string{{"xpath//html/body/div[2]/select"}}, tag: "select"},
		{name: "an XPath from an id",
			alts: [][]string{{`xpath///*[@id="main"]/ul/li[3]/a`}},
			want: target{Selector: "#main > ul > li:nth-of-type(3) > a", From: `xpath///*[@id="main"]/ul/li[3]/a`},
			page: [][]string{{`xpath///*[@id="main"]/ul/li[3]/a`}}, tag: "a"},
		{name: "an ARIA selector with no role, and nothing else: the guess",
			alts: [][]string{{"aria/Name:"}}, guess: "button",
			want: target{Role: "button", Name: "Name:", From: "aria/Name:", Guess: "aria/Name: names no role, which a bua role target needs: button is a guess"}},
		{name: "an ARIA selector with no role and no guess",
			alts: [][]string{{"aria/Name:"}}, why: "aria/Name: names no role"},
		{name: "a role outside WAI-ARIA's is no role",
			alts: [][]string{{`aria/Hello[role="StaticText"]`}}, guess: "button",
			want: target{Role: "button", Name: "Hello", From: `aria/Hello[role="StaticText"]`, Guess: `aria/Hello[role="StaticText"] names no role, which a bua role target needs: button is a guess`}},
		{name: "a path through a shadow root",
			alts: [][]string{{"custom-element", "button"}},
			why:  "custom-element >> button is a path through shadow roots", page: [][]string{{"custom-element", "button"}}},
		{name: "pierce only",
			alts: [][]string{{"pierce/#inner-span"}},
			why:  "pierce/#inner-span looks inside shadow roots", page: [][]string{{"pierce/#inner-span"}}},
		{name: "text only",
			alts: [][]string{{"text/Inp"}}, why: "text/Inp matches by text", text: "Inp"},
		{name: "an XPath with no CSS equal",
			alts: [][]string{{`xpath///a[contains(text(), "Next")]`}},
			why:  "has no CSS equal", page: [][]string{{`xpath///a[contains(text(), "Next")]`}}},
		{name: "a path through a shadow root with an ARIA part is not for a page script",
			alts: [][]string{{"my-app", "aria/Go"}}, why: "path through shadow roots"},
		{name: "no selectors", why: "the step has no selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectFrom(tt.alts, tt.guess)
			if got.Target != tt.want {
				t.Errorf("target = %+v, want %+v", got.Target, tt.want)
			}
			if tt.why != "" && !strings.Contains(got.Why, tt.why) || tt.why == "" && got.Why != "" {
				t.Errorf("why = %q, want it to say %q", got.Why, tt.why)
			}
			if !reflect.DeepEqual(got.Page, tt.page) {
				t.Errorf("page = %q, want %q", got.Page, tt.page)
			}
			if got.Tag != tt.tag || got.Text != tt.text {
				t.Errorf("tag, text = %q, %q; want %q, %q", got.Tag, got.Text, tt.tag, tt.text)
			}
		})
	}
}

func TestParseARIA(t *testing.T) {
	tests := []struct{ in, name, role string }{
		{"Sign in", "Sign in", ""},
		{`Sign in[role="button"]`, "Sign in", "button"},
		{`Sign in [role='link']`, "Sign in", "link"},
		{`[name="Email"][role="textbox"]`, "Email", "textbox"},
		{`Say \"hi\"[role="button"]`, `Say \"hi\"`, "button"},
		{`[role="button"]`, "", "button"},
		{`a [b] c`, "a [b] c", ""},
		{`Quote[role="button\"x"]`, "Quote", `button"x`},
	}
	for _, tt := range tests {
		name, role := parseARIA(tt.in)
		if name != tt.name || role != tt.role {
			t.Errorf("parseARIA(%q) = %q, %q; want %q, %q", tt.in, name, role, tt.name, tt.role)
		}
	}
}

func TestXPathCSS(t *testing.T) {
	tests := []struct{ in, want string }{
		{`//*[@id="button"]`, "#button"},
		{`//*[@id='button']`, "#button"},
		{`//input[@id="q"]`, "input#q"},
		{`//*[@id="1st"]`, `[id="1st"]`},
		{`//*[@id="a\"b"]`, ""}, // not an XPath string the Recorder writes
		{`//*[@id="a.b"]/div[2]`, `[id="a.b"] > div:nth-of-type(2)`},
		{"/html/body/div[2]/div/button", "html > body > div:nth-of-type(2) > div > button"},
		{"/html/body/*[2]", ""},
		{`//a[text()="Next"]`, ""},
		{"//div", ""},
		{"html/body", ""},
	}
	for _, tt := range tests {
		if got := xpathCSS(tt.in); got != tt.want {
			t.Errorf("xpathCSS(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCSSTag(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#select", ""},
		{"select", "select"},
		{"div > SELECT#size.big", "select"},
		{"form textarea[name='a b > c']", "textarea"},
		{"ul li:nth-child(2) > a", "a"},
		{`[data-x="select"]`, ""},
		{"select, input", ""},
		{"input:not(.a, .b)", "input"},
	}
	for _, tt := range tests {
		if got := cssTag(tt.in); got != tt.want {
			t.Errorf("cssTag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
