package obstacle

import (
	"regexp"
	"strings"
	"sync"
)

// The patterns, needles, labels and thresholds are data, generated from
// extension/schema/obstacle.rules.json into rules_gen.go, as the
// extension's are into its generated/obstacle-rules.js. This file holds
// what runs them: lazily compiled patterns, the rules' needle prefilter,
// and the text handling that both classifiers do alike (ASCII lowercasing,
// code point counts, title segments, headlines).

// lazyRegexp compiles on first use. Every bua command links this package,
// and compiling its patterns at start-up cost each command about 2 ms,
// while only extract and `bua obstacle` ever run them.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// allPatterns lets TestPatternsCompile compile each one, so a bad pattern
// still fails in CI rather than on a user's first extract.
var allPatterns []*lazyRegexp

func lazy(src string) *lazyRegexp {
	l := &lazyRegexp{src: src}
	allPatterns = append(allPatterns, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool            { return l.get().MatchString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// rule is one labelled pattern. The regexp runs only when one of needles
// occurs in the text; every needle list is a necessary condition for its
// pattern, so the prefilter changes cost, never the answer.
type rule struct {
	label   string
	needles []string
	re      *lazyRegexp
}

func (r rule) match(s string) bool {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return r.re == nil || r.re.MatchString(s)
		}
	}
	return false
}

// lower lowercases ASCII only and turns NBSP into a space. Full Unicode
// lowercasing differs between Go and JS (İ, final sigma) and can change
// lengths; every pattern is ASCII, so ASCII folding loses nothing.
func lower(s string) string {
	if !needsLower(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUpper(c):
			c = toLower(c)
		case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
			// NBSP is C2 A0 in UTF-8. Byte-wise is safe: 0xC2 is only
			// ever a lead byte, and ASCII never occurs inside a
			// multi-byte sequence.
			c = ' '
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

// needsLower reports whether lower would change s.
func needsLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) || s[i] == 0xC2 {
			return true
		}
	}
	return false
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// toLower lowercases an ASCII letter; other bytes come back as they are.
func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// authLeads are the words every anchored control-name rule (authOauth,
// authSignIn, authForgot, authSignUp) can begin with, after leading
// punctuation. A name starting otherwise cannot match any of them, which
// spares most links on a page the lowercasing and four pattern checks.
var authLeads = []string{"continue", "connect", "sign", "log", "register", "forgot", "reset", "trouble", "can", "new", "do", "create", "join"}

// leadsByFirst indexes authLeads by first letter.
var leadsByFirst = func() (t [256][]string) {
	for _, p := range authLeads {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// mayBeAuthControl reports whether name (not yet lowercased) could match an
// anchored control-name rule once lowercased. The JS twin does without it:
// it is a necessary condition, so it changes cost, never the answer.
func mayBeAuthControl(name string) bool {
	i := 0
	for i < len(name) && !isAlnum(name[i]) {
		i++
	}
	lead := name[i:]
	if len(lead) == 0 {
		return false
	}
	first := toLower(lead[0])
	if first == 'i' && len(lead) >= 2 && (lead[1] == ' ' || lead[1] == 0xC2) {
		return true // "i forgot…", NBSP allowed as lower would make it a space
	}
	for _, p := range leadsByFirst[first] {
		if hasPrefixFold(lead, p) {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix after ASCII-lowercasing s; p is
// lowercase ASCII.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if toLower(s[j]) != p[j] {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// cut returns the first n code points of s. Code points, not bytes or
// UTF-16 units, so the JS twin cuts at the same place.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 { // a code point starts here
			if k == n {
				return s[:i]
			}
			k++
		}
	}
	return s
}

// countUpTo counts code points in s, up to limit: callers only compare the
// count with thresholds no greater than limit.
func countUpTo(s string, limit int) int {
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 { // a code point starts here
			k++
			if k >= limit {
				break
			}
		}
	}
	return k
}

// segments splits each line into its separator-delimited parts.
func segments(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l == "" {
			continue
		}
		out = splitSegments(out, l)
	}
	return out
}

// splitSegments appends to out the parts of l between title separators
// (a run of spaces or tabs, one of titleSeparators, another such run), as
// JS's l.split(TITLE_SEPARATOR) does, without the regexp machinery: titles
// are split on every call. A match is a run of
// spaces or tabs, one separator, and another such run; since a separator
// is never a space, a run that fails to start a match cannot contain the
// start of one either.
func splitSegments(out []string, l string) []string {
	start := 0
	for i := 0; i < len(l); {
		if l[i] != ' ' && l[i] != '\t' {
			i++
			continue
		}
		j := i
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		k := j + separatorLen(l[j:])
		if k == j || k >= len(l) || (l[k] != ' ' && l[k] != '\t') {
			i = j
			continue
		}
		for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			k++
		}
		out = append(out, l[start:i])
		start, i = k, k
	}
	return append(out, l[start:])
}

// separatorLen is the byte length of the title separator (titleSeparators)
// that s starts with, or 0.
func separatorLen(s string) int {
	for _, sep := range titleSeparators {
		if strings.HasPrefix(s, sep) {
			return len(sep)
		}
	}
	return 0
}

// headlines returns the H1 lines of md plus its first heading line of any
// level: where an error page states its error. Lower headings are left out
// because documentation lists error codes as H2/H3 ("## 429 Too Many
// Requests").
func headlines(md string) []string {
	var out []string
	first := true
	for len(md) > 0 {
		line := md
		if i := strings.IndexByte(md, '\n'); i >= 0 {
			line, md = md[:i], md[i+1:]
		} else {
			md = ""
		}
		level := headingLevel(line)
		if level == 0 {
			continue
		}
		if first || level == 1 {
			out = append(out, line)
		}
		first = false
	}
	return out
}

// headingLevel returns 1..6 for an ATX heading line (up to three leading
// spaces, 1-6 '#', then a space, a tab or the end), else 0.
func headingLevel(line string) int {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if i < len(line) && line[i] != ' ' && line[i] != '\t' {
		return 0
	}
	return n
}
