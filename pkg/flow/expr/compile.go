package expr

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// Built-in names of the expression environment. An `as` name may not shadow
// any of them, nor a helper.
var builtinNames = map[string]bool{"vars": true, "env": true, "last": true, "error": true, "flow": true}

// IsBuiltin reports whether name is a built-in name of the environment
// (vars, env, last, error, flow), which an `as` name may not shadow.
func IsBuiltin(name string) bool { return builtinNames[name] }

// IsHelper reports whether name is one of the extract helpers (uid, has,
// element, checked).
func IsHelper(name string) bool { return helperNames[name] }

// IsLangBuiltin reports whether name is one of expr-lang's builtin
// functions, which an `as` name would collide with.
func IsLangBuiltin(name string) bool {
	if name == "last" {
		return false
	}
	for _, b := range builtin.Builtins {
		if b.Name == name {
			return true
		}
	}
	return false
}

// helperNames are the runner's own expression functions.
var helperNames = map[string]bool{"uid": true, "has": true, "element": true, "checked": true}

// helperOptions declare the helpers with their Go signatures, so a call with
// the wrong number or types of arguments fails at compile time.
var helperOptions = []expr.Option{
	expr.Function("uid", func(p ...any) (any, error) {
		return UID(p[0], p[1].(string), p[2].(string))
	}, new(func(any, string, string) string)),
	expr.Function("has", func(p ...any) (any, error) {
		return Has(p[0], p[1].(string), p[2].(string))
	}, new(func(any, string, string) bool)),
	expr.Function("element", func(p ...any) (any, error) {
		return Element(p[0], p[1].(string), p[2].(string))
	}, new(func(any, string, string) map[string]any)),
	expr.Function("checked", func(p ...any) (any, error) {
		return Checked(p[0], p[1].(string), p[2].(string))
	}, new(func(any, string, string) bool)),
}

// compileEnv types the built-ins that have a fixed shape; `last`, `error`
// and the `as` names are dynamic (any), checked by checkNames instead.
var compileEnv = map[string]any{
	"vars": map[string]any{},
	"env":  map[string]any{},
	"flow": map[string]any{},
}

// nameCheck walks a compiled expression's tree and collects what it
// refers to, so unknown names and as-names used too early fail at load.
type nameCheck struct {
	known    func(string) bool
	lets     map[string]bool
	refs     []string
	envNames []string
	unknown  []*ast.IdentifierNode
	calls    []*ast.IdentifierNode
	badRegex []badRegex
}

type badRegex struct {
	node *ast.StringNode
	err  error
}

func (c *nameCheck) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.VariableDeclaratorNode:
		c.lets[x.Name] = true
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			c.calls = append(c.calls, id)
			if helperNames[id.Value] && len(x.Arguments) == 3 {
				if s, ok := x.Arguments[2].(*ast.StringNode); ok {
					if _, err := regexp.Compile(s.Value); err != nil {
						c.badRegex = append(c.badRegex, badRegex{s, err})
					}
				}
			}
		}
	case *ast.MemberNode:
		if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == "env" {
			if p, ok := x.Property.(*ast.StringNode); ok {
				c.envNames = append(c.envNames, p.Value)
			}
		}
	case *ast.IdentifierNode:
		if c.lets[x.Value] || helperNames[x.Value] {
			return
		}
		if !contains(c.refs, x.Value) {
			c.refs = append(c.refs, x.Value)
		}
		if !c.known(x.Value) {
			c.unknown = append(c.unknown, x)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exprOptions are the options every flow expression is checked with. `last`
// is the latest step result here, so expr's last() builtin goes.
func exprOptions() []expr.Option {
	return append([]expr.Option{expr.Env(compileEnv), expr.AllowUndefinedVariables(), expr.DisableBuiltin("last")}, helperOptions...)
}

// guardedOptions are exprOptions with the size budget's guards
// (budget.go): what an expression runs as.
var guardedOptions = append(exprOptions(), guardOptions()...)

// Error is a compile problem: its message and expr-lang's snippet of the
// source with a caret under where it is.
type Error struct {
	Msg     string
	Snippet string
}

// Compile compiles src for a scope where known reports the names
// defined so far (built-ins, and the `as` names of earlier steps). later
// names `as` names defined further down, for a precise message.
//
// It compiles src twice: as written, for the type checks, the name checks
// and their messages, then with the budget's guards, for running (a
// guard's twin takes any, so it would check nothing itself).
func Compile(src string, known func(string) bool, later func(string) (int, bool)) (*Expr, *Error) {
	checked, err := expr.Compile(src, exprOptions()...)
	var prog *vm.Program
	if err == nil {
		prog, err = expr.Compile(src, guardedOptions...)
	}
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, &Error{Msg: fe.Message, Snippet: fe.Snippet}
		}
		return nil, &Error{Msg: err.Error()}
	}
	c := &nameCheck{known: known, lets: map[string]bool{}}
	node := checked.Node()
	ast.Walk(&node, c)
	for _, id := range c.calls {
		if !helperNames[id.Value] && !known(id.Value) {
			return nil, SnippetError(src, id, fmt.Sprintf("unknown function %s (expected a helper: uid, has, element, checked, or an expr builtin)", id.Value))
		}
	}
	if len(c.badRegex) > 0 {
		br := c.badRegex[0]
		return nil, SnippetError(src, br.node, fmt.Sprintf("name pattern %q is not a valid RE2 regex: %v", br.node.Value, br.err))
	}
	for _, id := range c.unknown {
		if contains(callNames(c.calls), id.Value) {
			continue
		}
		if line, ok := later(id.Value); ok {
			return nil, SnippetError(src, id, fmt.Sprintf("%s is used before the step that defines it (as: %s at line %d)", id.Value, id.Value, line))
		}
		return nil, SnippetError(src, id, fmt.Sprintf("unknown name %s (expected vars, env, last, error, flow or an earlier step's `as` name)", id.Value))
	}
	e := &Expr{Src: src, prog: prog, tree: node, refs: c.refs, envNames: c.envNames}
	for _, r := range c.refs {
		if r != "vars" && r != "env" && r != "flow" {
			e.dynamic = true
		}
	}
	for _, id := range c.calls {
		if helperNames[id.Value] {
			e.dynamic = true
		}
	}
	return e, nil
}

func callNames(ids []*ast.IdentifierNode) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Value
	}
	return out
}

// SnippetError is msg about node n of src, with expr-lang's caret snippet
// pointing at n.
func SnippetError(src string, n ast.Node, msg string) *Error {
	fe := &file.Error{Location: n.Location(), Message: msg}
	fe = fe.Bind(file.NewSource(src))
	return &Error{Msg: msg, Snippet: fe.Snippet}
}
