package userflow

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/bua-dev/bua/pkg/roletarget"
)

// Selector kinds, by a Recorder selector's prefix (Schema.ts SelectorType).
const (
	kindCSS    = "css"
	kindARIA   = "aria"
	kindText   = "text"
	kindXPath  = "xpath"
	kindPierce = "pierce"
)

// selectorKind is the kind of one Recorder selector and the rest after its
// prefix (the whole selector for CSS).
func selectorKind(sel string) (kind, rest string) {
	for _, k := range []string{kindARIA, kindText, kindXPath, kindPierce} {
		if r, ok := strings.CutPrefix(sel, k+"/"); ok {
			return k, r
		}
	}
	return kindCSS, sel
}

// target is the element a step acts on as a bua flow names it: a role
// target (Role and Name) or a CSS Selector. From is the Recorder selector
// it came from; Guess, when set, says the role was guessed, which the
// conversion reports.
type target struct {
	Role, Name, Selector string
	From                 string
	Guess                string
}

func (t target) ok() bool { return t.Role != "" || t.Selector != "" }

// Selection is what a step's selector alternatives give a bua flow.
type selection struct {
	// Target is the best bua target among the alternatives, in this
	// order: an ARIA selector with a role (a role target, which survives
	// a redesign and is looked up in every frame), a CSS selector, an
	// XPath with a CSS equal, an ARIA selector with no role (its role
	// guessed). Zero when none is usable; Why then says why.
	Target target
	Why    string
	// Page are the alternatives a page script can query (CSS, pierce/,
	// XPath, and paths through shadow roots of those), in the
	// recording's order, for the steps a flow runs as an evaluate.
	Page [][]string
	// Text is the first text/ alternative's text.
	Text string
	// Tag is the element's tag name when an alternative says it (a CSS
	// selector's or an XPath's last step), else "".
	Tag string
}

// selectFrom reads a step's alternatives. guessRole is the role to give an
// ARIA selector that names none, when nothing better exists ("" gives no
// target then).
func selectFrom(alts [][]string, guessRole string) selection {
	var sel selection
	var css, xcss, roleless target
	var whys []string
	for _, path := range alts {
		if len(path) == 0 {
			continue
		}
		if pageQueryable(path) {
			sel.Page = append(sel.Page, path)
		}
		if len(path) > 1 {
			whys = append(whys, fmt.Sprintf("%s is a path through shadow roots, which bua's CSS selectors do not enter", strings.Join(path, " >> ")))
			continue
		}
		s := path[0]
		kind, rest := selectorKind(s)
		switch kind {
		case kindARIA:
			name, role := parseARIA(rest)
			switch {
			case role != "" && roletarget.CheckRole(role) == nil:
				if !sel.Target.ok() {
					sel.Target = target{Role: role, Name: name, From: s}
				}
			case name != "" && roleless.From == "":
				roleless = target{Name: name, From: s}
			}
		case kindCSS:
			if css.From == "" {
				css = target{Selector: s, From: s}
			}
			if sel.Tag == "" {
				sel.Tag = cssTag(s)
			}
		case kindXPath:
			if c := xpathCSS(rest); c != "" && xcss.From == "" {
				xcss = target{Selector: c, From: s}
			} else if c == "" {
				whys = append(whys, fmt.Sprintf("%s has no CSS equal", s))
			}
			if sel.Tag == "" {
				sel.Tag = xpathTag(rest)
			}
		case kindPierce:
			whys = append(whys, fmt.Sprintf("%s looks inside shadow roots, which bua's CSS selectors do not", s))
		case kindText:
			if sel.Text == "" {
				sel.Text = rest
			}
			whys = append(whys, fmt.Sprintf("%s matches by text, and a flow's steps take no text target", s))
		}
	}
	for _, t := range []target{css, xcss} {
		if !sel.Target.ok() && t.From != "" {
			sel.Target = t
		}
	}
	if !sel.Target.ok() && roleless.From != "" {
		if guessRole != "" {
			roleless.Role = guessRole
			roleless.Guess = fmt.Sprintf("%s names no role, which a bua role target needs: %s is a guess", roleless.From, guessRole)
			sel.Target = roleless
		} else {
			whys = append(whys, fmt.Sprintf("%s names no role, which a bua role target needs", roleless.From))
		}
	}
	if !sel.Target.ok() {
		if len(whys) == 0 {
			whys = append(whys, "the step has no selector")
		}
		sel.Why = strings.Join(whys, "; ")
	}
	return sel
}

// pageQueryable reports whether a page script can query path: every part
// is CSS, pierce/ or XPath (ARIA and text need the accessibility tree and
// Puppeteer's text engine).
func pageQueryable(path []string) bool {
	for _, s := range path {
		if k, _ := selectorKind(s); k == kindARIA || k == kindText {
			return false
		}
	}
	return true
}

// ariaAttr is one trailing [attribute="value"] of an ARIA selector:
// Puppeteer's ARIA query handler reads name and role this way.
var ariaAttr = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[\s*(name|role)\s*=\s*(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)')\s*\]\s*$`)
})

// parseARIA reads the part of an ARIA selector after aria/: an accessible
// name with optional [role="..."] and [name="..."] after it.
func parseARIA(s string) (name, role string) {
	for {
		m := ariaAttr().FindStringSubmatchIndex(s)
		if m == nil {
			break
		}
		var val string
		if m[4] >= 0 {
			val = s[m[4]:m[5]]
		} else {
			val = s[m[6]:m[7]]
		}
		val = unescapeQuoted(val)
		if s[m[2]:m[3]] == "role" {
			role = val
		} else {
			name = val
		}
		s = s[:m[0]]
	}
	if n := strings.TrimSpace(s); n != "" {
		name = n
	}
	return name, role
}

// unescapeQuoted drops the backslash of each \x in a quoted value.
func unescapeQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cssTag is the tag name of the element a CSS selector's last compound
// selector names ("" when it names none): "div > select#size" gives
// select. A selector list (a comma outside brackets) gives "".
func cssTag(sel string) string {
	last := 0
	depth, quote := 0, byte(0)
	for i := 0; i < len(sel); i++ {
		c := sel[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case depth == 0 && c == ',':
			return ""
		case depth == 0 && (c == ' ' || c == '>' || c == '+' || c == '~'):
			last = i + 1
		}
	}
	return strings.ToLower(tagName().FindString(sel[last:]))
}

var tagName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*`) })

// xpathStep is one step of the XPaths the Recorder writes: a tag (or *)
// with an optional [n] or [@id="..."].
var xpathStep = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9-]*|\*)(?:\[(\d+)\]|\[@id=(?:"([^"]*)"|'([^']*)')\])?$`)
})

// xpathCSS is the CSS selector equal to an XPath of the shapes the
// Recorder writes, or "": an absolute path of tags and positions
// (/html/body/div[2]/a: html > body > div:nth-of-type(2) > a), one that
// starts from an element with an id (//*[@id="x"]/span[1]: #x >
// span:nth-of-type(1)). [n] counts among siblings of the same tag, as
// :nth-of-type does.
func xpathCSS(x string) string {
	var start string
	switch {
	case strings.HasPrefix(x, "//"):
		// Only a first step with an id: any other descendant search has
		// no CSS equal we write.
		first, rest, _ := strings.Cut(x[2:], "/")
		m := xpathStep().FindStringSubmatch(first)
		if m == nil || m[3]+m[4] == "" {
			return ""
		}
		id := m[3] + m[4]
		start = cssID(id)
		if m[1] != "*" {
			start = strings.ToLower(m[1]) + start
		}
		if rest == "" {
			return start
		}
		x = "/" + rest
	case strings.HasPrefix(x, "/"):
	default:
		return ""
	}
	parts := []string{}
	if start != "" {
		parts = append(parts, start)
	}
	for _, step := range strings.Split(x[1:], "/") {
		m := xpathStep().FindStringSubmatch(step)
		if m == nil || m[1] == "*" {
			return ""
		}
		p := strings.ToLower(m[1])
		switch {
		case m[2] != "":
			p += ":nth-of-type(" + m[2] + ")"
		case m[3]+m[4] != "":
			p += cssID(m[3] + m[4])
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " > ")
}

// xpathTag is the tag name an XPath's last step names, or "".
func xpathTag(x string) string {
	i := strings.LastIndexByte(x, '/')
	m := xpathStep().FindStringSubmatch(x[i+1:])
	if m == nil || m[1] == "*" {
		return ""
	}
	return strings.ToLower(m[1])
}

var cssIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?[a-zA-Z_][a-zA-Z0-9_-]*$`) })

// cssID is a CSS selector for the element with id: #id, or [id="..."]
// when the id is not a plain identifier.
func cssID(id string) string {
	if cssIdent().MatchString(id) {
		return "#" + id
	}
	return `[id="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(id) + `"]`
}
