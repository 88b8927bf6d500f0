package flowwriter

import (
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// baseExpr is how a URL on the recording's first origin starts in the flow:
// `bua run --var base=...` then replays the flow against another host.
const baseExpr = "vars.base"

// origin is u's scheme://host[:port] in lower case, as a browser writes
// it, when u is an http(s) URL, else "".
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + strings.ToLower(p.Host)
}

// hostOf is u's host, or "".
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// splitURL cuts u, an http(s) URL, into its origin (origin), its path and
// the rest (query and fragment, with their ? or #), keeping the path's and
// the rest's own encoding. Any other URL is all path.
func splitURL(u string) (orig, path, tail string) {
	orig = origin(u)
	if orig == "" || !strings.EqualFold(u[:min(len(orig), len(u))], orig) {
		return "", u, ""
	}
	rest := u[len(orig):]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return orig, rest[:i], rest[i:]
	}
	return orig, rest, ""
}

// globEscape escapes the characters a wait_for URL glob reads (the
// extension's globRegExp: * ** { } , and \), so s matches itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*{},\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// urlGlob is the wait_for url glob that checks a navigation landed on
// after: its path exactly, any query and fragment (they often carry a
// session's tokens or a time), unless that would also match before, the URL
// the tab left (a change of query or fragment alone), in which case the
// whole URL. A tail that holds a secret (hides true) is never written. The
// glob is returned with the URL's origin as is; the writer puts vars.base
// in front of a path on the base origin.
func urlGlob(before, after string, hides func(string) bool) (orig, glob string) {
	orig, path, tail := splitURL(after)
	if tail == "" {
		return orig, globEscape(path)
	}
	wild := globEscape(path) + tail[:1] + "**" // ? and # are literal in a glob
	if hides(tail) || !globMatch(globEscape(orig)+wild, before) {
		return orig, wild
	}
	return orig, globEscape(path + tail)
}

// globMatch reports whether glob matches the whole of u, as the extension's
// globRegExp reads a glob (extension/src/actions/wait.js): ** is any
// characters, * any but /, {a,b} either, a backslash escapes; the rest is
// literal.
func globMatch(glob, u string) bool {
	var re strings.Builder
	re.WriteString("^")
	group := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '{' && !group:
			group = true
			re.WriteString("(?:")
		case c == '}' && group:
			group = false
			re.WriteString(")")
		case c == ',' && group:
			re.WriteString("|")
		case c == '\\' && i+1 < len(glob):
			i++
			re.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		default:
			re.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	re.WriteString("$")
	m, err := regexp.Compile(re.String())
	return err == nil && m.MatchString(u)
}

// GlobEscape is s as a wait_for url glob that matches s itself: the
// characters a glob reads (* { } , and \) escaped, for a producer that
// writes a wait_for of its own.
func GlobEscape(s string) string { return globEscape(s) }

// urlNode writes a URL to load: one on the base origin (the first origin
// the flow loads, which sets it) as ${{ vars.base }} and its path.
func (b *builder) urlNode(u string) *yaml.Node {
	orig, path, tail := splitURL(u)
	return b.originTemplate(orig, path+tail)
}

// originTemplate writes orig followed by rest, orig as vars.base when it is
// the base origin (or becomes it, being the first).
func (b *builder) originTemplate(orig, rest string) *yaml.Node {
	if orig != "" && b.base == "" {
		b.base = orig
	}
	if orig != "" && orig == b.base {
		return tmpl(part{text: baseExpr, expr: true}, part{text: rest})
	}
	return lit(orig + rest)
}
