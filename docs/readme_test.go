package docs

import (
	"os"
	"strings"
	"testing"
)

// maxReadmeLines bounds README.md: it holds what a user needs first (the
// two commands, install, first steps, the command table, a first flow), and
// each capability's reference is a page of its own under docs/, linked from
// it.
const maxReadmeLines = 400

// TestReadmeLength fails when README.md grows to maxReadmeLines: give the
// new material a docs page and link it instead.
func TestReadmeLength(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(doc), "\n"); n >= maxReadmeLines {
		t.Errorf("README.md has %d lines, want under %d: move the detail to a page under docs/ and link it", n, maxReadmeLines)
	}
}
