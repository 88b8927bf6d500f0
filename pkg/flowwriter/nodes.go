package flowwriter

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// str is a plain string scalar for bua's own words: keys, roles, names.
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// flowMap is a mapping written on one line, { k: v, ... }, from key and
// value nodes in turn.
func flowMap(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: kv}
}

// part is a piece of a template: literal text, or an expression's source.
type part struct {
	text string
	expr bool
}

// lit is a string value from the recording, which the flow loader reads
// back as s.
func lit(s string) *yaml.Node { return tmpl(part{text: s}) }

// tmpl is a string value made of literal text and ${{ }} expressions, as
// the flow loader reads templates (pkg/runner). The loader reads every
// "${{" as an expression's start and has no escape, so when a literal part
// holds one, the whole value is one expression that builds the text from
// quoted strings. Text over several lines is written as a literal block.
func tmpl(parts ...part) *yaml.Node {
	hasExpr, unsafe := false, false
	for _, p := range parts {
		hasExpr = hasExpr || p.expr
		unsafe = unsafe || !p.expr && strings.Contains(p.text, "${{")
	}
	var b strings.Builder
	switch {
	case unsafe:
		b.WriteString("${{ ")
		for k, p := range parts {
			if k > 0 {
				b.WriteString(" + ")
			}
			if p.expr {
				b.WriteString("(" + p.text + ")")
			} else {
				b.WriteString(exprString(p.text))
			}
		}
		b.WriteString(" }}")
	default:
		for _, p := range parts {
			if p.expr {
				b.WriteString("${{ " + p.text + " }}")
			} else {
				b.WriteString(p.text)
			}
		}
	}
	n := str(b.String())
	switch {
	case hasExpr || unsafe:
		n.Style = yaml.DoubleQuotedStyle
	case strings.Contains(n.Value, "\n"):
		n.Style = yaml.LiteralStyle
	}
	return n
}

// exprString is s as an expr string literal in single quotes (which a YAML
// double-quoted scalar need not escape) that holds no "}}", which would end
// the ${{ }} around it: two braces in a row are two literals joined.
func exprString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	var prev rune
	for _, r := range s {
		switch {
		case r == '}' && prev == '}':
			b.WriteString("' + '}")
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	b.WriteByte('\'')
	return b.String()
}
