package docs

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// srcPrefix is where the extension's modules live, as the folder table
// names them.
const srcPrefix = "extension/src/"

// jsImport is a relative module specifier a module imports: `from "./x.js"`
// (an import or an export ... from), `import "./x.js"` or `import("./x.js")`.
var jsImport = regexp.MustCompile(`(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?/[^"']+)["']`)

// folderRules reads architecture.md's "The extension's folders": each
// row's folder (the first segment under extension/src/, or background.js)
// and the folders it may import; "any" when it may import any.
func folderRules(t *testing.T) map[string][]string {
	t.Helper()
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## The extension's folders\n")
	if !ok {
		t.Fatal("architecture.md has no section \"The extension's folders\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rules := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `"+srcPrefix) || len(cells) != 3 {
			continue
		}
		folder := strings.TrimSuffix(strings.TrimPrefix(spans(cells[0])[0], srcPrefix), "/")
		allowed := []string{}
		if cells[2] == "any folder" {
			allowed = []string{"any"}
		}
		for _, s := range spans(cells[2]) {
			if f, ok := strings.CutPrefix(s, srcPrefix); ok {
				allowed = append(allowed, strings.TrimSuffix(f, "/"))
			}
		}
		rules[folder] = allowed
	}
	if len(rules) < 10 {
		t.Fatalf("only %d rows read from architecture.md's extension folder table: the table or its reader changed", len(rules))
	}
	return rules
}

// folderOf is the row a module under src belongs to: its first folder,
// or its own name for a module at the top (background.js).
func folderOf(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	return first
}

// TestExtensionFolders keeps the extension's folders pointing one way, as
// TestDependencyRules does for Go: every module's relative imports are
// checked against its folder's row in architecture.md's "The extension's
// folders", so a stage never imports one above it (a library never reaches
// back into sessions, a session never into routing). A folder without a
// row fails too: a new one must be placed first.
func TestExtensionFolders(t *testing.T) {
	rules := folderRules(t)
	src := os.DirFS("../" + srcPrefix)
	checked := 0
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		folder := folderOf(p)
		if d.IsDir() {
			if p != "." && !strings.Contains(p, "/") {
				if _, ok := rules[folder]; !ok {
					t.Errorf("%s%s/ has no row in architecture.md's \"The extension's folders\": place it in the stages first", srcPrefix, p)
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".js") || folder == "generated" {
			return nil
		}
		allowed, ok := rules[folder]
		if !ok {
			t.Errorf("%s%s has no row in architecture.md's \"The extension's folders\"", srcPrefix, p)
			return nil
		}
		code, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		for _, m := range jsImport.FindAllStringSubmatch(string(code), -1) {
			target := path.Join(path.Dir(p), m[1])
			dep := folderOf(target)
			checked++
			if strings.HasPrefix(target, "..") {
				t.Errorf("%s%s imports %s, outside extension/src/", srcPrefix, p, m[1])
			} else if dep != folder && !slices.Contains(allowed, dep) && !slices.Contains(allowed, "any") {
				t.Errorf("%s%s imports %s%s: its row (%s) in architecture.md's \"The extension's folders\" does not allow %s/", srcPrefix, p, srcPrefix, target, folder, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 {
		t.Fatalf("only %d imports checked: the import pattern no longer matches the modules", checked)
	}
}
