package flowwriter

import (
	"strings"
	"testing"
)

func TestURLGlob(t *testing.T) {
	none := func(string) bool { return false }
	tests := []struct {
		name, before, after string
		hides               func(string) bool
		orig, glob          string
		ambiguous           bool // the glob may match before too
	}{
		{"Path", "http://h:1/login", "http://h:1/home", none, "http://h:1", "/home", false},
		{"QueryWild", "http://h:1/login", "http://h:1/dash?user=a%40b&t=17", none, "http://h:1", "/dash?**", false},
		{"FragmentWild", "http://h:1/a", "http://h:1/b#top", none, "http://h:1", "/b#**", false},
		{"QueryOnlyChangeExact", "http://h:1/s?page=2", "http://h:1/s?page=3", none, "http://h:1", "/s?page=3", false},
		{"FragmentOnlyChangeExact", "http://h:1/spa#a", "http://h:1/spa#b", none, "http://h:1", "/spa#b", false},
		{"FragmentAddedWild", "http://h:1/spa", "http://h:1/spa#b", none, "http://h:1", "/spa#**", false},
		{"SecretInQueryWild", "http://h:1/s?page=2", "http://h:1/s?pw=hunter2", func(s string) bool { return strings.Contains(s, "hunter2") }, "http://h:1", "/s?**", true},
		{"GlobCharsEscaped", "", "https://h/a*b/{c,d}\\e", none, "https://h", `/a\*b/\{c\,d\}\\e`, false},
		{"NotHTTP", "http://h/x", "about:blank", none, "", "about:blank", false},
		{"RootPath", "about:blank", "https://example.com/", none, "https://example.com", "/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, glob := urlGlob(tt.before, tt.after, tt.hides)
			if orig != tt.orig || glob != tt.glob {
				t.Fatalf("urlGlob = %q, %q; want %q, %q", orig, glob, tt.orig, tt.glob)
			}
			if !globMatch(globEscape(orig)+glob, tt.after) {
				t.Errorf("the glob does not match where the page landed, %q", tt.after)
			}
			if !tt.ambiguous && tt.before != "" && tt.before != tt.after && globMatch(globEscape(orig)+glob, tt.before) {
				t.Errorf("the glob also matches the URL before, %q", tt.before)
			}
		})
	}
}

// TestGlobMatch pins the glob semantics of the extension's globRegExp
// (extension/src/actions/wait.js), which globMatch mirrors.
func TestGlobMatch(t *testing.T) {
	for _, tt := range []struct {
		glob, url string
		want      bool
	}{
		{"**/done.html", "http://h/a/b/done.html", true},
		{"**/done.html", "http://h/a/b/done.html?x", false},
		{"http://h/*/x", "http://h/a/x", true},
		{"http://h/*/x", "http://h/a/b/x", false},
		{"http://h/{a,b}.html", "http://h/b.html", true},
		{"http://h/{a,b}.html", "http://h/c.html", false},
		{`http://h/\*`, "http://h/*", true},
		{`http://h/\*`, "http://h/x", false},
		{"http://h/a?b", "http://h/a?b", true},
		{"http://h/a?b", "http://h/axb", false},
		{"http://h/a.b", "http://h/axb", false},
		{"http://h/é?q=ü", "http://h/é?q=ü", true},
	} {
		if got := globMatch(tt.glob, tt.url); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.glob, tt.url, got, tt.want)
		}
	}
}

func TestSplitURL(t *testing.T) {
	for _, tt := range []struct{ u, orig, path, tail string }{
		{"http://h:8/a/b?c=d#e", "http://h:8", "/a/b", "?c=d#e"},
		{"https://h/a#x?y", "https://h", "/a", "#x?y"},
		{"HTTP://Host:8/a", "http://host:8", "/a", ""},
		{"http://user:pw@h/a", "", "http://user:pw@h/a", ""},
		{"about:blank", "", "about:blank", ""},
		{"data:text/html,hi", "", "data:text/html,hi", ""},
	} {
		o, p, tl := splitURL(tt.u)
		if o != tt.orig || p != tt.path || tl != tt.tail {
			t.Errorf("splitURL(%q) = %q %q %q, want %q %q %q", tt.u, o, p, tl, tt.orig, tt.path, tt.tail)
		}
	}
}
