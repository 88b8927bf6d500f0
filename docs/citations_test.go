package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citationRules are what a comment of the tree may not cite, since the
// repository does not hold it: a reader who follows the citation must find
// what it points to here. Each rule's pattern is built from parts, so this
// file does not match itself.
var citationRules = []struct {
	pattern *regexp.Regexp
	why     string
}{
	{regexp.MustCompile(`(?i)\b` + "issue" + `s?` + gap + `#?[0-9]+`), "an issue of a tracker the repository does not have: say the reason in words, or cite a record under docs/decisions/"},
	{regexp.MustCompile(`(?i)\b` + "conventions" + `(\.md)?` + gap + `§`), "a conventions file the repository does not have: cite the file that shows the convention, or say it in words"},
	{regexp.MustCompile(`\b` + "CONVENTIONS" + `\.md\b`), "a conventions file the repository does not have: cite the file that shows the convention, or say it in words"},
	{regexp.MustCompile(`(?i)\b` + "spec" + `(?:-|` + gap + `)?0[0-9]{2}\b`), "a spec file the repository does not have: name what was borrowed in words"},
}

// gap is what may part a citation's words: a space or a hyphen, or a line
// break and the next line's comment marker.
const gap = `(?:[ \t-]|[ \t]*\n[ \t]*(?://|#|\*)?[ \t]*)`

// lineOf is the line number of text's byte offset i.
func lineOf(text string, i int) int { return strings.Count(text[:i], "\n") + 1 }

// docName is a Markdown file a comment names: a page under docs/, or a
// top-level document in capitals (README.md, BENCHMARKS.md).
var docName = regexp.MustCompile(`(?:\bdocs/[a-z0-9_/-]+|\b[A-Z][A-Z0-9_-]+)\.md\b`)

// outputNames are Markdown files bua writes, not files of the tree.
var outputNames = map[string]bool{"SKILL.md": true}

// TestCitations fails on a comment (in Go, JavaScript, shell or YAML,
// outside testdata corpora and fixtures, whose Go generators it reads, and
// generated bundles) or a line of a top-level Markdown file, a docs page or
// bench's pages that cites a tracker's
// issue, a conventions file or a spec file the repository does not hold,
// or names a Markdown file that does not exist.
func TestCitations(t *testing.T) {
	root := ".."
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", ".tools":
				return filepath.SkipDir
			}
			if rel == "extension/src/generated" {
				return filepath.SkipDir // bundles of the modules checked here
			}
			return nil
		}
		if !citedSource(rel) {
			return nil
		}
		if inTestdata(rel) && filepath.Ext(rel) != ".go" {
			return nil // a corpus or a fixture: pages, flows, recordings as found
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		text := string(data)
		for _, r := range citationRules {
			for _, m := range r.pattern.FindAllStringIndex(text, -1) {
				t.Errorf("%s:%d cites %q, %s", rel, lineOf(text, m[0]), text[m[0]:m[1]], r.why)
			}
		}
		for _, m := range docName.FindAllStringIndex(text, -1) {
			name := text[m[0]:m[1]]
			if outputNames[name] {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil {
				t.Errorf("%s:%d names %s, which the repository does not have", rel, lineOf(text, m[0]), name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("only %d source files read: the walk no longer finds the tree's sources", files)
	}
}

// inTestdata reports whether rel is under a testdata folder.
func inTestdata(rel string) bool {
	return strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

// citedSource reports whether the file at rel (slash-separated, from the
// repository's root) is a source whose comments TestCitations reads: Go,
// JavaScript, shell and YAML, the scripts without an extension, and the
// guide's Markdown pages.
func citedSource(rel string) bool {
	switch filepath.Ext(rel) {
	case ".go", ".js", ".mjs", ".sh", ".yaml", ".yml":
		return true
	case ".md":
		return !strings.Contains(rel, "/") || strings.HasPrefix(rel, "docs/") || strings.HasPrefix(rel, "bench/")
	case "":
		return strings.HasPrefix(rel, "scripts/") || strings.HasPrefix(rel, ".ci/") || strings.HasPrefix(rel, "bench/")
	}
	return false
}

// TestCitationRules: each rule finds a citation however a comment wraps
// it, and leaves alone what only looks like one. The examples break the
// cited words with a ~, taken out before the check, so that TestCitations
// does not find them in this file.
func TestCitationRules(t *testing.T) {
	words := strings.NewReplacer("~", "")
	cites := func(text string) bool {
		for _, r := range citationRules {
			if r.pattern.MatchString(words.Replace(text)) {
				return true
			}
		}
		return false
	}
	for _, text := range []string{
		"// (iss~ue 20 §2)", "// as Iss~ue 21 found", "// the iss~ue-31 packages", "// small (iss~ue\n// 22: at most", "# see iss~ues\n#   20 and 21",
		"// (CONVENTIONS~.md §22)", "// (conv~entions §2)",
		"// (sp~ec 004 §Dedupe)", "// sp~ec\n// 002", "// sp~ec-001's sequences",
	} {
		if !cites(text) {
			t.Errorf("no rule finds the citation in %q", words.Replace(text))
		}
	}
	for _, text := range []string{
		"// the issue's own bar", "// issued 20 tokens", "// a special 001 case", "// docs/decisions/replay-cache.md",
	} {
		if cites(text) {
			t.Errorf("a rule finds a citation in %q, which has none", words.Replace(text))
		}
	}
}
