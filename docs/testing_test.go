package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// wineSection is docs/testing.md's section on the Windows tests under
// Wine, up to the next heading of its level.
func wineSection(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile("testing.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), "\n## Windows under Wine\n")
	if !ok {
		t.Fatal("testing.md has no section \"Windows under Wine\"")
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// testFunc matches a top-level test's declaration.
var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

// TestWineSkipsListed: every test that behaves otherwise under Wine (it
// calls wine.Detected()) is named in testing.md's Wine section, with what
// Wine lacks and where it runs instead; and every package
// scripts/test-windows lists as needing what Wine lacks is named there
// too. A Wine-only skip nobody wrote down is a test that silently never
// runs anywhere.
func TestWineSkipsListed(t *testing.T) {
	section := wineSection(t)
	found := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || strings.Contains(filepath.ToSlash(path), "internal/wine/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, use := range regexp.MustCompile(`wine\.Detected\(\)`).FindAllIndex(src, -1) {
			decls := testFunc.FindAllSubmatchIndex(src[:use[0]], -1)
			if len(decls) == 0 {
				continue // a helper: its callers are tests of their own
			}
			name := string(src[decls[len(decls)-1][2]:decls[len(decls)-1][3]])
			found++
			if !strings.Contains(section, name) {
				t.Errorf("%s: %s behaves otherwise under Wine, and testing.md's Wine section does not name it", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("only %d uses of wine.Detected() in tests: the search is broken", found)
	}
	script, err := os.ReadFile("../scripts/test-windows")
	if err != nil {
		t.Fatal(err)
	}
	_, known, ok := strings.Cut(string(script), "declare -A wine_known=(\n")
	known, _, _ = strings.Cut(known, "\n)")
	if !ok {
		t.Fatal("scripts/test-windows has no wine_known table")
	}
	for _, m := range regexp.MustCompile(`\[([^\]]+)\]=`).FindAllStringSubmatch(known, -1) {
		if !strings.Contains(section, "`"+m[1]+"`") {
			t.Errorf("scripts/test-windows lists %s as needing what Wine lacks; testing.md's Wine section does not", m[1])
		}
	}
}
