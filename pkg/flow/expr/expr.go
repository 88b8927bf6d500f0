// Package expr compiles and evaluates a flow's expressions: the
// `${{ }}` templates and the if, assert, set and until conditions the
// loader (pkg/flow) compiles at load and the engine (pkg/runner) runs.
// Expressions are expr-lang programs checked for the names they read
// (compile.go), held to a size budget (budget.go), with the extract
// helpers uid, has, element and checked (helpers.go). They run against a
// Scope, so nothing here knows of a flow's run state.
package expr

import (
	"errors"
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Scope is what an expression is evaluated in: an environment of names.
// The engine's flow state is one; an *Env is its own.
type Scope interface {
	Env() *Env
}

// Env is an expression environment: Names maps what expressions read
// (vars, env, flow, last, error and the `as` names) to their values. It
// keeps a VM for reuse and the running evaluation's size account
// (budget.go), so one Env serves one evaluation at a time.
type Env struct {
	Names  map[string]any
	vm     vm.VM
	budget evalBudget
}

// NewEnv is an environment of names. It adds the budget's own entry to
// names, under a key no flow can bind ($budget).
func NewEnv(names map[string]any) *Env {
	e := &Env{Names: names}
	names[budgetKey] = &e.budget
	return e
}

// Env makes an *Env a Scope.
func (e *Env) Env() *Env { return e }

// Expr is one compiled expression with what it refers to, as found at load.
type Expr struct {
	Src string
	// Pos is where it is, file:line:col (of its YAML value), for errors
	// the budget raises at run time.
	Pos  string
	prog *vm.Program
	// tree is the expression as written and type-checked, before the
	// budget's patch (guardOptions): what explain and reads walk.
	tree ast.Node
	// refs are the top-level identifiers it reads (vars, page, last, ...).
	refs []string
	// envNames are the environment variables read as env.NAME.
	envNames []string
	// dynamic is true when its value depends on step results, so a dry run
	// cannot evaluate it.
	dynamic bool
}

// Compiled reports whether e compiled; a failed compile leaves a
// placeholder with only Src, which Eval refuses.
func (e *Expr) Compiled() bool { return e != nil && e.prog != nil }

// Refs are the top-level identifiers e reads (vars, page, last, ...), in
// the order they first appear.
func (e *Expr) Refs() []string { return e.refs }

// EnvNames are the environment variables e reads as env.NAME.
func (e *Expr) EnvNames() []string { return e.envNames }

// Dynamic reports whether e's value depends on step results (anything
// but vars, env and flow, or a helper), so a dry run cannot evaluate it.
func (e *Expr) Dynamic() bool { return e.dynamic }

// Program is e's compiled tree, as it runs (with the budget's guards).
func (e *Expr) Program() ast.Node { return e.prog.Node() }

// Eval runs e against sc's environment.
func (e *Expr) Eval(sc Scope) (any, error) {
	if e.prog == nil { // placeholder left by a failed compile; never run
		return nil, fmt.Errorf("expression %q did not compile", e.Src)
	}
	env := sc.Env()
	env.budget = evalBudget{}
	out, err := env.vm.Run(e.prog, env.Names)
	if err != nil {
		// Keep a helper's *protocol.Error (uid miss) visible to the policy,
		// with expr's position dropped from its message.
		var be *protocol.Error
		if errors.As(err, &be) {
			return nil, be
		}
		var over *BudgetError
		if errors.As(err, &over) {
			return nil, fmt.Errorf("expression %q at %s: %w", e.Src, e.Pos, over)
		}
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("expression %q: %s", e.Src, fe.Message)
		}
		return nil, fmt.Errorf("expression %q: %v", e.Src, err)
	}
	return out, nil
}

// EvalBool runs e and requires a bool (nil counts as false).
func (e *Expr) EvalBool(sc Scope) (bool, error) {
	v, err := e.Eval(sc)
	if err != nil {
		return false, err
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("expression %q: want a bool, got %T %v", e.Src, v, v)
}

// Stringify formats an expression value for interpolation: strings as is,
// nil as "", numbers and bools in Go syntax, objects and arrays as JSON;
// the text protocol.ActionFrom gives the same value as a param
// (protocol.ParamString).
func Stringify(v any) string { return protocol.ParamString(v) }

// ToInt converts an expression or JSON number (or numeric string) to int,
// as protocol.ActionFrom reads an integer param (protocol.ParamInt).
func ToInt(v any) (int, bool) { return protocol.ParamInt(v) }
