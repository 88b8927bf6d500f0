// Package docs holds contributor documentation; its test keeps the file
// paths that docs/architecture.md names in step with the tree.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pathLike is a backticked span that names a file or folder of the repo:
// it has a slash and no spaces, and does not start with a scheme or ".".
var pathLike = regexp.MustCompile("`([A-Za-z][A-Za-z0-9_./-]*/[A-Za-z0-9_./-]*)`")

// TestArchitectureFiles fails when docs/architecture.md names a path that
// does not exist, so the trace cannot drift from the code it describes.
func TestArchitectureFiles(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, m := range pathLike.FindAllStringSubmatch(string(doc), -1) {
		p := m[1]
		if strings.HasPrefix(p, "../shared/") {
			continue // the spec lives beside the repo, not in it
		}
		seen++
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(p))); err != nil {
			t.Errorf("architecture.md names %s, which does not exist", p)
		}
	}
	if seen < 30 {
		t.Fatalf("only %d paths found: the pattern no longer matches the page", seen)
	}
}
