package expr

import (
	"reflect"
	"testing"
)

// TestExprReads: the names a failing expression read are its variables and
// outermost member chains, without helpers, lets or closure fields.
func TestExprReads(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`page.title == "x"`, []string{"page.title"}},
		{`len(page.elements) > 3 && vars.n < 2`, []string{"page.elements", "vars.n"}},
		{`has(page, 'button', 'x')`, []string{"page"}},
		{`page.obstacle?.type == "auth_wall"`, []string{"page.obstacle?.type"}},
		{`let x = vars.a; x + 1 > 2`, []string{"vars.a"}},
		{`len(filter(page.elements, .role == "button")) == 0`, []string{"page.elements"}},
		{`page.elements[0].name == last.value`, []string{"page.elements[0].name", "last.value"}},
		{`vars[vars.key] == 1`, []string{"vars", "vars.key"}},
		{`title.value contains "Dash" or title.value == ""`, []string{"title.value"}},
		{`true`, nil},
	} {
		t.Run(tc.src, func(t *testing.T) {
			e, cerr := Compile(tc.src, func(string) bool { return true }, func(string) (int, bool) { return 0, false })
			if cerr != nil {
				t.Fatal(cerr.Msg)
			}
			var got []string
			for _, n := range e.reads() {
				got = append(got, n.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reads = %q, want %q", got, tc.want)
			}
		})
	}
}
