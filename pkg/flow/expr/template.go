package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Template is a YAML value that may interpolate `${{ expr }}`. Lit holds a
// value without any; Whole a value that is exactly one `${{ }}` and keeps
// its type; otherwise Parts concatenate to a string. Items, for a list
// param written as a YAML list, holds one Template per item (Lit is then
// the list of their values when none has an expression).
type Template struct {
	Raw   string
	Lit   any
	Whole *Expr
	Parts []Part
	Items []*Template
	// Pos is where a template with Parts is (file:line:col), for the
	// budget's error when the interpolated string would pass it.
	Pos string
}

// Part is a piece of a template with Parts: Text as written, or, with
// Expr set, the source of a `${{ }}` whose value goes there.
type Part struct {
	Text string
	Expr *Expr
}

// IsLiteral reports whether t has no expression.
func (t *Template) IsLiteral() bool { return t.Whole == nil && t.Parts == nil && len(t.Exprs()) == 0 }

// Exprs lists t's expressions.
func (t *Template) Exprs() []*Expr {
	if t == nil {
		return nil
	}
	if t.Whole != nil {
		return []*Expr{t.Whole}
	}
	var out []*Expr
	for _, it := range t.Items {
		out = append(out, it.Exprs()...)
	}
	for _, p := range t.Parts {
		if p.Expr != nil {
			out = append(out, p.Expr)
		}
	}
	return out
}

// Dynamic reports whether t depends on step results.
func (t *Template) Dynamic() bool {
	for _, e := range t.Exprs() {
		if e.Dynamic() {
			return true
		}
	}
	return false
}

// Eval returns t's value: the literal, the whole expression's typed value,
// or the interpolated string.
func (t *Template) Eval(sc Scope) (any, error) {
	switch {
	case t.Whole != nil:
		return t.Whole.Eval(sc)
	case t.Items != nil:
		out := make([]any, len(t.Items))
		for i, it := range t.Items {
			v, err := it.Eval(sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case t.Parts == nil:
		return t.Lit, nil
	}
	var b strings.Builder
	for _, p := range t.Parts {
		text := p.Text
		if p.Expr != nil {
			v, err := p.Expr.Eval(sc)
			if err != nil {
				return nil, err
			}
			text = Stringify(v)
		}
		if n := int64(b.Len()) + int64(len(text)); n > MaxValueBytes {
			return nil, fmt.Errorf("value %q at %s: %w", cut(t.Raw, 120), t.Pos, &BudgetError{Op: "interpolation", Bytes: n})
		}
		b.WriteString(text)
	}
	return b.String(), nil
}

// cut is s cut to n characters, the last an ellipsis when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n-1 {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// EvalString evaluates t and formats the value as a string.
func (t *Template) EvalString(sc Scope) (string, error) {
	v, err := t.Eval(sc)
	if err != nil {
		return "", err
	}
	return Stringify(v), nil
}

// SplitTemplate cuts s at `${{ ... }}` markers: the parts, each one's
// byte offset in s, and a message (no parts) when a marker is not closed or
// holds nothing. An expression part's Expr holds only its Src, for the
// loader to compile.
func SplitTemplate(s string) (parts []Part, offsets []int, msg string) {
	rest, off := s, 0
	for {
		i := strings.Index(rest, "${{")
		if i < 0 {
			if rest != "" {
				parts = append(parts, Part{Text: rest})
				offsets = append(offsets, off)
			}
			return parts, offsets, ""
		}
		if i > 0 {
			parts = append(parts, Part{Text: rest[:i]})
			offsets = append(offsets, off)
		}
		j := strings.Index(rest[i+3:], "}}")
		if j < 0 {
			return nil, nil, "unterminated ${{ (expected a closing }})"
		}
		src := strings.TrimSpace(rest[i+3 : i+3+j])
		if src == "" {
			return nil, nil, "empty ${{ }} (expected an expression inside)"
		}
		parts = append(parts, Part{Text: src, Expr: &Expr{Src: src}})
		offsets = append(offsets, off+i)
		off += i + 3 + j + 2
		rest = rest[i+3+j+2:]
	}
}
