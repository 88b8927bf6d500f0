package flow

import (
	"fmt"
	"sort"

	"github.com/expr-lang/expr/ast"
	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/internal/nearest"
	"github.com/bua-dev/bua/pkg/flow/expr"
)

// A flow's expressions may read vars.NAME only for a NAME the flow has at
// that point, so a misspelt var is a load error at its file:line:col and
// not an empty string at run time. A var is there when it is
//   - declared under vars: (--var and a caller's with: replace its value),
//     above the var being defined when the expression is a var's default;
//   - vars.base_url, which serving (serve: or --serve) or --var sets: a
//     flow that reads it and has no serve: key is invalid in a run that
//     does neither (runner.Runner.Load);
//   - assigned by a set: step earlier in the file (in document order: a set
//     inside a branch counts for the steps below it, which read nil when
//     the branch did not run);
//   - or read as one that may be missing: vars.NAME ?? DEFAULT, vars?.NAME,
//     vars.NAME == nil or != nil, "NAME" in vars. Such a test makes NAME
//     known from there on, so `if: vars.debug != nil` guards the steps
//     that read vars.debug.

// varRef is one vars.NAME an expression reads.
type varRef struct {
	name string
	node ast.Node
}

// varCheck collects an expression's vars.NAME reads and the names it tests
// for being there.
type varCheck struct {
	refs   []varRef
	tested map[string]bool
}

// varName returns NAME when n is vars.NAME (or vars["NAME"]).
func varName(n ast.Node) (string, *ast.MemberNode, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok {
		return "", nil, false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "vars" {
		return "", nil, false
	}
	p, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", nil, false
	}
	return p.Value, m, true
}

func (c *varCheck) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.MemberNode:
		if name, m, ok := varName(x); ok {
			c.refs = append(c.refs, varRef{name, x})
			if m.Optional {
				c.tested[name] = true
			}
		}
	case *ast.BinaryNode:
		switch x.Operator {
		case "??":
			if name, _, ok := varName(x.Left); ok {
				c.tested[name] = true
			}
		case "==", "!=":
			for _, pair := range [][2]ast.Node{{x.Left, x.Right}, {x.Right, x.Left}} {
				if _, isNil := pair[1].(*ast.NilNode); !isNil {
					continue
				}
				if name, _, ok := varName(pair[0]); ok {
					c.tested[name] = true
				}
			}
		case "in", "not in":
			s, ok := x.Left.(*ast.StringNode)
			if id, isID := x.Right.(*ast.IdentifierNode); ok && isID && id.Value == "vars" {
				c.tested[s.Value] = true
			}
		}
	}
}

// knownVar reports whether expressions may read vars.name here.
func (fs *fileScope) knownVar(name string) bool {
	return name == "base_url" || fs.hasVar(name) || fs.vars[name]
}

// markVar makes vars.name known for the expressions below: a set: step
// assigned it, or an expression tested whether it is there.
func (fs *fileScope) markVar(name string) {
	if fs.vars == nil {
		fs.vars = map[string]bool{}
	}
	fs.vars[name] = true
}

// checkVars reports each vars.NAME that e (compiled from src, at node n)
// reads while the flow does not have NAME (see above).
func (fs *fileScope) checkVars(n *yaml.Node, src string, e *expr.Expr, what string) {
	if !e.Compiled() {
		return
	}
	c := &varCheck{tested: map[string]bool{}}
	node := e.Program()
	ast.Walk(&node, c)
	for name := range c.tested {
		fs.markVar(name)
		if fs.flow.optVars == nil {
			fs.flow.optVars = map[string]bool{}
		}
		fs.flow.optVars[name] = true
	}
	reported := map[string]bool{}
	for _, r := range c.refs {
		if r.name == "base_url" {
			fs.flow.readsBaseURL = true
			if !fs.hasVar(r.name) && !fs.vars[r.name] && len(fs.flow.Unserved) == 0 {
				reported[r.name] = true
				xe := expr.SnippetError(src, r.node, "vars.base_url is set only when the flow is served, and this flow has no serve: key")
				fs.flow.Unserved = append(fs.flow.Unserved, Diagnostic{File: fs.file, Line: n.Line, Col: n.Column,
					Msg:     fmt.Sprintf("%s: %s", what, xe.Msg),
					Hint:    "add serve: FOLDER (the folder to serve, relative to the flow file), run it with --serve DIR or --var base_url=URL (bua lint takes them too), or declare base_url under vars: with a default",
					Snippet: xe.Snippet})
			}
		}
		if fs.knownVar(r.name) || reported[r.name] {
			continue
		}
		reported[r.name] = true
		xe := expr.SnippetError(src, r.node, fs.unknownVarMsg(r.name))
		fs.l.diags = append(fs.l.diags, Diagnostic{File: fs.file, Line: n.Line, Col: n.Column,
			Msg: fmt.Sprintf("%s: %s", what, xe.Msg), Snippet: xe.Snippet})
	}
}

// unknownVarMsg says what vars.name is not, what it may have meant, and
// how to make it a var.
func (fs *fileScope) unknownVarMsg(name string) string {
	if fs.laterVar(name) {
		return fmt.Sprintf("vars.%s is declared below this default: a var's default reads only the vars declared above it", name)
	}
	names := []string{"base_url"}
	for _, v := range fs.flow.Vars {
		names = append(names, v.Name)
	}
	for v := range fs.vars {
		names = append(names, v)
	}
	sort.Strings(names)
	if line, ok := fs.allSets[name]; ok {
		return fmt.Sprintf("vars.%s is read before the set: step that assigns it (line %d): declare it under vars: with a default, or read it after that step", name, line)
	}
	msg := fmt.Sprintf("vars.%s is not a var of this flow", name)
	if near := nearest.Word(name, names, max(1, len(name)/4)); near != "" {
		msg += fmt.Sprintf(" (did you mean vars.%s?)", near)
	}
	return msg + fmt.Sprintf(": declare it under vars: with a default (--var replaces it), set it in an earlier step with set:, or read it as vars.%s ?? DEFAULT when it may be missing", name)
}

// scanVars notes, before the flow is parsed, every name under vars: and
// every name a set: step assigns, so a read that comes too early is named
// as such.
func (fs *fileScope) scanVars(root *yaml.Node) {
	fs.allSets = map[string]int{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k, v := n.Content[i], n.Content[i+1]; k.Value == "set" && v.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(v.Content); j += 2 {
						if _, seen := fs.allSets[v.Content[j].Value]; !seen {
							fs.allSets[v.Content[j].Value] = k.Line
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Value == "vars" && v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				fs.allVars = append(fs.allVars, v.Content[j].Value)
			}
		}
	}
}

// laterVar reports whether name is declared under vars: below the one
// whose default is being read (parseVars fills Flow.Vars in order).
func (fs *fileScope) laterVar(name string) bool {
	for _, n := range fs.allVars {
		if n == name {
			return true
		}
	}
	return false
}

// VarNames are the names `bua run --var` may set in f, sorted: its
// declared vars, the ones its expressions read as vars that may be missing
// (vars.NAME ?? DEFAULT), and base_url when it reads vars.base_url.
func (f *Flow) VarNames() []string {
	seen := map[string]bool{}
	for _, v := range f.Vars {
		seen[v.Name] = true
	}
	for name := range f.optVars {
		seen[name] = true
	}
	if f.readsBaseURL {
		seen["base_url"] = true
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
