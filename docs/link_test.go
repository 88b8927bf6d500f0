package docs

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge/linkwire"
)

// linkTableNames are the first cells of the rows of link.md's table under
// heading, in order.
func linkTableNames(t *testing.T, page, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("link.md has no %q", heading)
	}
	section, _, _ := strings.Cut(rest, "\n#")
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-zA-Z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		names = append(names, m[1])
	}
	return names
}

// jsonNames are the JSON names of v's fields, in order.
func jsonNames(v any) []string {
	var out []string
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// TestLinkDoc: link.md lists every operation of the CLI link
// (linkwire.Ops) and every field of its request and response frames, in
// the types' order, and nothing they lack.
func TestLinkDoc(t *testing.T) {
	data, err := os.ReadFile("link.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	var ops []string
	for _, op := range linkwire.Ops {
		ops = append(ops, string(op))
	}
	for _, tc := range []struct {
		heading string
		want    []string
	}{
		{"## Operations", ops},
		{"### Request", jsonNames(linkwire.Request{})},
		{"### Response", jsonNames(linkwire.Response{})},
	} {
		if got := linkTableNames(t, page, tc.heading); !slices.Equal(got, tc.want) {
			t.Errorf("link.md's %s lists %v; linkwire has %v", tc.heading, got, tc.want)
		}
	}
}
