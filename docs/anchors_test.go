package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// A citation of a docs page's section, as code comments and docs write
// them: docs/protocol.md#errors.
var citation = regexp.MustCompile(`docs/([a-z0-9_-]+)\.md#([A-Za-z0-9_-]+)`)

// A link between the docs pages, or within one: (extension.md#trace),
// (#errors).
var relLink = regexp.MustCompile(`\]\((?:([a-z0-9_-]+)\.md)?#([A-Za-z0-9_-]+)\)`)

// TestAnchors fails when a source file or a docs page cites a section of a
// docs page that has no such heading, as GitHub names a heading's anchor,
// and when any Markdown file of the tree (README.md, CONTRIBUTING.md, the
// docs pages and their decisions, outside testdata) links to a file that
// does not exist or a section its page lacks: a renamed section or a moved
// page cannot leave its citations pointing nowhere.
func TestAnchors(t *testing.T) {
	anchors := map[string]map[string]bool{} // page -> its anchors
	pageAnchors := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		doc, err := os.ReadFile(page + ".md")
		if err != nil {
			anchors[page] = nil
			return nil
		}
		anchors[page] = headingAnchors(string(doc))
		return anchors[page]
	}
	cited, links := 0, 0
	check := func(file, page, anchor string) {
		cited++
		a := pageAnchors(page)
		switch {
		case a == nil:
			t.Errorf("%s cites docs/%s.md#%s: there is no docs/%s.md", file, page, anchor, page)
		case !a[anchor]:
			t.Errorf("%s cites docs/%s.md#%s: the page has no heading with that anchor", file, page, anchor)
		}
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" || name == "node_modules" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".js", ".md", ".json", ".yaml", ".yml", ".sh":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range citation.FindAllStringSubmatch(string(data), -1) {
			check(rel, m[1], m[2])
		}
		if filepath.Dir(rel) == "docs" && filepath.Ext(name) == ".md" {
			// protocol.head.md is the start of protocol.md.
			self := strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".head")
			for _, m := range relLink.FindAllStringSubmatch(string(data), -1) {
				page := m[1]
				if page == "" {
					page = self
				}
				check(rel, page, m[2])
			}
		}
		if filepath.Ext(name) == ".md" {
			links += checkMarkdownLinks(t, root, rel, string(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 50 {
		t.Fatalf("only %d citations found: the patterns no longer match what the tree writes", cited)
	}
	if links < 200 {
		t.Fatalf("only %d Markdown links found: the pattern no longer matches what the pages write", links)
	}
}

// inlineCode is inline code, where a [x](y) is code, not a link.
var inlineCode = regexp.MustCompile("`[^`\n]*`")

// mdTarget is the target of a Markdown link or image: [text](target).
var mdTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkMarkdownLinks fails the test for each link of the Markdown file rel
// (README.md, CONTRIBUTING.md, docs/decisions/..., any .md of the tree)
// that leads to no file, or to a section of a Markdown file that has no
// such heading. Links to other sites are not followed. It returns how many
// links it checked.
func checkMarkdownLinks(t *testing.T, root, rel, doc string) int {
	t.Helper()
	n := 0
	self := rel
	if rel == filepath.Join("docs", "protocol.head.md") {
		self = filepath.Join("docs", "protocol.md") // the start of protocol.md
	}
	for _, m := range mdTarget.FindAllStringSubmatch(inlineCode.ReplaceAllString(stripFences(doc), ""), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		n++
		file, anchor, _ := strings.Cut(target, "#")
		path := filepath.Join(root, self)
		if file != "" {
			path = filepath.Join(root, filepath.Dir(rel), filepath.FromSlash(file))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if st, serr := os.Stat(path); serr == nil && (st.IsDir() || anchor == "") {
				continue // a folder, or a file that is not text
			}
			t.Errorf("%s links to %s: there is no such file", rel, target)
			continue
		}
		if anchor != "" && strings.HasSuffix(path, ".md") && !headingAnchors(string(data))[anchor] {
			t.Errorf("%s links to %s: the page has no heading with that anchor", rel, target)
		}
	}
	return n
}

// stripFences drops the lines inside code fences, where a [x](y) is code,
// not a link.
func stripFences(doc string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence == "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestProtocolSections: the protocol reference has the sections code cites
// most, and one for each part of the protocol.
func TestProtocolSections(t *testing.T) {
	doc, err := os.ReadFile("protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	a := headingAnchors(string(doc))
	for _, want := range []string{"handshake", "targets", "uids", "role-targets", "extract", "evaluate", "obstacles", "dialogs", "sessions", "cancellation", "versioning",
		"messages", "actions", "action-navigate", "action-press_key", "errors", "reasons", "events", "session-end-reasons", "features", "timeout-ladder", "close-codes", "keys", "roles"} {
		if !a[want] {
			t.Errorf("docs/protocol.md has no section #%s", want)
		}
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"One action: `bua click e3`":                     "one-action-bua-click-e3",
		"action `press_key`":                             "action-press_key",
		"Trace (`src/core/trace.js`, §Trace ring buffer)": "trace-srccoretracejs-trace-ring-buffer",
		"The person's side: popup, options, badge":       "the-persons-side-popup-options-badge",
		"Stop all (global_stop)":                         "stop-all-global_stop",
		"See [the layers](#the-layers) **now**":          "see-the-layers-now",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	got := headingAnchors("# A\n```\n# not a heading\n```\n## A\n### B\n")
	for _, want := range []string{"a", "a-1", "b"} {
		if !got[want] {
			t.Errorf("headingAnchors: no %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code fence was read as a heading")
	}
}

var (
	headingLine = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t#]*$`)
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors lists the anchors GitHub gives a page's headings: each
// heading's slug, a repeated one with -1, -2, ... after it. Lines in code
// fences are not headings.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fence := ""
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := count[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading's text: the rendered text,
// lowercased, with everything but letters, marks, numbers, underscores,
// hyphens and spaces dropped, and spaces turned into hyphens.
func slug(heading string) string {
	text := mdLink.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
