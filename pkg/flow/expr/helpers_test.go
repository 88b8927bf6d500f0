package expr

import (
	"fmt"

	"github.com/bua-dev/bua/pkg/protocol"
)

// page is an extract result as a flow sees it (decoded JSON).
var page = map[string]any{"elements": []any{
	map[string]any{"uid": "e0", "role": "textbox", "name": "Email"},
	map[string]any{"uid": "e1", "role": "button", "name": "Sign in", "visible": false},
	map[string]any{"uid": "e2", "role": "button", "name": "Sign in now"},
}}

// In a flow: click: { uid: "${{ uid(page, 'button', '(?i)sign in') }}" }.
// Visible elements win over hidden ones.
func ExampleUID() {
	uid, _ := UID(page, "button", "(?i)sign in")
	fmt.Println(uid)
	_, err := UID(page, "link", "Help")
	fmt.Println(err.(*protocol.Error).Code)
	// Output:
	// e2
	// element_not_found
}

// In a flow: if: has(page, 'textbox', '^Email$').
func ExampleHas() {
	ok, _ := Has(page, "textbox", "^Email$")
	fmt.Println(ok)
	// Output: true
}

// In a flow: assert: element(page, 'textbox', 'Email').name == "Email".
func ExampleElement() {
	el, _ := Element(page, "textbox", "Email")
	fmt.Println(el["uid"], el["name"])
	none, _ := Element(page, "checkbox", ".")
	fmt.Println(none == nil)
	// Output:
	// e0 Email
	// true
}

// An extract cut at maxElements says so when a uid is not among its list.
func ExampleUID_cut() {
	cut := map[string]any{"elementsTotal": float64(412), "elements": page["elements"]}
	_, err := UID(cut, "searchbox", "Search")
	fmt.Println(err.(*protocol.Error).Message)
	// Output:
	// no searchbox named /Search/ among the 3 elements of the extract, which has no searchbox; the roles it has: button (2), textbox (1) (this extract lists 3 of 412 elements: pass maxElements or a selector)
}
