package flow

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bua-dev/bua/internal/nearest"
	"github.com/bua-dev/bua/pkg/flow/expr"

	"gopkg.in/yaml.v3"
)

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unknown node"
}

func (fs *fileScope) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		fs.errf(n, "%s: expected a string, got %s", what, kindName(n))
		return ""
	}
	return n.Value
}

func (fs *fileScope) duration(n *yaml.Node, what string) time.Duration {
	s := fs.str(n, what)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		fs.errf(n, "%s: bad duration %q (expected a positive Go duration such as 500ms, 30s or 2m)", what, s)
		return 0
	}
	return d
}

// known reports whether an expression may read name at this point.
func (fs *fileScope) known(name string) bool { return expr.IsBuiltin(name) || fs.defined[name] }

func (fs *fileScope) later(name string) (int, bool) {
	line, ok := fs.allAs[name]
	return line, ok
}

// expr compiles a bare expression from a scalar node.
func (fs *fileScope) expr(n *yaml.Node, what string) *expr.Expr {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		fs.errf(n, "%s: expected an expression, got %s", what, kindName(n))
		return &expr.Expr{}
	}
	src := n.Value
	if strings.HasPrefix(strings.TrimSpace(src), "${{") && strings.HasSuffix(strings.TrimSpace(src), "}}") {
		// Tolerate the interpolation form where a bare expression is due.
		src = strings.TrimSpace(src)
		src = strings.TrimSpace(src[3 : len(src)-2])
	}
	return fs.compile(n, src, what)
}

func (fs *fileScope) compile(n *yaml.Node, src, what string) *expr.Expr {
	e, xe := expr.Compile(src, fs.known, fs.later)
	if xe != nil {
		fs.l.diags = append(fs.l.diags, Diagnostic{File: fs.file, Line: n.Line, Col: n.Column,
			Msg: fmt.Sprintf("%s: invalid expression: %s", what, xe.Msg), Snippet: xe.Snippet})
		return &expr.Expr{Src: src}
	}
	for _, name := range e.EnvNames() {
		fs.envs[name] = true
	}
	e.Pos = fs.pos(n)
	fs.checkVars(n, src, e, what)
	return e
}

// pos is n's place as file:line:col, for errors found at run time (a
// flow's error, in its report: the file slash-separated, ReportPath).
func (fs *fileScope) pos(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", ReportPath(fs.file), n.Line, n.Column)
}

// template reads any YAML value as a Template: scalars interpolate
// `${{ }}`, mappings and lists are not allowed (params are flat).
func (fs *fileScope) template(n *yaml.Node, what string) *expr.Template {
	if n.Kind != yaml.ScalarNode {
		fs.errf(n, "%s: expected a scalar value, got %s", what, kindName(n))
		return &expr.Template{}
	}
	t := &expr.Template{Raw: n.Value}
	if n.Tag != "!!str" || !strings.Contains(n.Value, "${{") {
		t.Lit = scalarValue(n)
		return t
	}
	parts, _, msg := expr.SplitTemplate(n.Value)
	if msg != "" {
		fs.errf(n, "%s: %s", what, msg)
		return t
	}
	for i := range parts {
		if parts[i].Expr != nil {
			parts[i].Expr = fs.compile(n, parts[i].Text, what)
		}
	}
	if len(parts) == 1 && parts[0].Expr != nil {
		t.Whole = parts[0].Expr
		return t
	}
	t.Parts = parts
	t.Pos = fs.pos(n)
	return t
}

// scalarValue decodes a scalar to its YAML type: int, float64, bool, nil or
// string.
func scalarValue(n *yaml.Node) any {
	switch n.Tag {
	case "!!int":
		if i, err := strconv.Atoi(n.Value); err == nil {
			return i
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!null":
		return nil
	}
	return n.Value
}

// suggest returns the candidate within edit distance 2 of s, if one is.
func suggest(s string, candidates []string) string {
	return nearest.Word(s, candidates, 2)
}
