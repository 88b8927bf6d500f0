package runner

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// The size budget of what expressions compute (docs/flows.md#size-budget). A
// flow is a file anyone may hand to bua, so `repeat(repeat('a', 100000),
// 100000)` or a var doubled forty times must be an error naming the
// expression, not a 10 GB allocation that takes the machine down.
const (
	// MaxValueBytes bounds one value an expression, a `${{ }}` template or
	// a set builds: a string's bytes, a list's 16 per item. Step results
	// (a full-page screenshot, a long extract) are not built by an
	// expression and are exempt; building on them (+, toJSON) is not.
	MaxValueBytes = 10 << 20
	// maxEvalBytes bounds what one evaluation builds in all, so a loop
	// inside it (`reduce(1..99999, #acc + 'x')`, `map(1..99999,
	// upper(vars.big))`) cannot add up what no single value may hold.
	maxEvalBytes = 4 * MaxValueBytes
)

// BudgetError is a value over its budget, found before it is built where
// the size is known from the arguments (string +, repeat, replace, join,
// split, upper, lower, toBase64, a template's interpolation) and just after
// otherwise (toJSON, string, fromJSON, fromBase64, keys, ...). Expr.Eval
// and Template.Eval wrap it with the expression and its file:line:col.
type BudgetError struct {
	// Op is what builds the value: "+", a builtin's name, "interpolation".
	Op string
	// Bytes is the size the value would have, or with Total what the
	// evaluation would have built in all.
	Bytes int64
	Total bool
}

func (e *BudgetError) Error() string {
	if e.Total {
		next := "build less in one expression, or across steps"
		if e.Op == "+" {
			next = "build a list and join() it instead of adding to a string in a loop"
		}
		return fmt.Sprintf("%s takes what this expression builds in all past its %s budget (the flow's to fix: %s)", e.Op, fmtBytes(maxEvalBytes), next)
	}
	return fmt.Sprintf("%s would build %s, over the %s budget of a computed value (the flow's to fix: build less; step results such as a screenshot are exempt)", e.Op, fmtBytes(e.Bytes), fmtBytes(MaxValueBytes))
}

// fmtBytes prints n in B, KiB, MiB or GiB, with one decimal unless whole.
func fmtBytes(n int64) string {
	unit, div := "B", int64(1)
	switch {
	case n >= 1<<30:
		unit, div = "GiB", 1<<30
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	if n%div == 0 {
		return fmt.Sprintf("%d %s", n/div, unit)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(div), unit)
}

// evalBudget is one evaluation's account of what it built. Expr.Eval
// resets it; the guarded operations charge it.
type evalBudget struct{ built int64 }

// charge books a value of n bytes that op is about to build (or built).
func (b *evalBudget) charge(op string, n int64) error {
	if n > MaxValueBytes {
		return &BudgetError{Op: op, Bytes: n}
	}
	b.built += n
	if b.built > maxEvalBytes {
		return &BudgetError{Op: op, Bytes: b.built, Total: true}
	}
	return nil
}

// budgetKey is where a State's evalBudget sits in its expression
// environment: no name a flow binds (vars, as) can start with `$`.
const budgetKey = "$budget"

// budgetOf finds the evaluation's budget in the environment the guarded
// operation was given as its first argument ($env). An environment without
// one (an expression run outside a State) gets a budget of its own, so each
// value is still checked.
func budgetOf(env any) *evalBudget {
	if m, ok := env.(map[string]any); ok {
		if b, ok := m[budgetKey].(*evalBudget); ok {
			return b
		}
	}
	return &evalBudget{}
}

// mul is a*b saturated at MaxInt64 (sizes from a flow's numbers may not
// fit).
func mul(a, b int64) int64 {
	if a > 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// sliceBytes is what a new list of n items costs: an interface each.
func sliceBytes(n int) int64 { return 16 * int64(n) }

// pieces is how many parts splitting s at sep gives, as strings.Split
// counts them (sep "" splits into characters); n > 0 caps it as SplitN.
func pieces(s, sep string, n int) int {
	c := strings.Count(s, sep) + 1
	if sep == "" {
		c = utf8.RuneCountInString(s)
	}
	if n > 0 {
		c = min(c, n)
	}
	return c
}

// guard is one builtin whose result the budget must see: pre sizes it
// from the arguments before it runs (nil: size the result after), run
// replaces the builtin's own implementation when set.
type guard struct {
	pre func(args []any) (int64, bool)
	run func(args []any) (any, error)
}

// guards are the builtins that build new strings or lists of a size their
// source text does not bound. Builtins expr already charges to its own
// memory budget (concat, flatten, reverse, sort, ranges, map, filter) are
// not here.
var guards = map[string]guard{
	"repeat": {
		pre: func(a []any) (int64, bool) {
			s, ok := a[0].(string)
			n, nok := toInt(a[1])
			return mul(int64(len(s)), int64(max(n, 0))), ok && nok
		},
		// expr's own repeat refuses n > 1e6 and otherwise allocates first
		// and checks after: the budget above decides instead.
		run: func(a []any) (any, error) {
			n := runtime.ToInt(a[1])
			if n < 0 {
				return nil, fmt.Errorf("invalid argument for repeat (expected positive integer, got %d)", n)
			}
			return strings.Repeat(a[0].(string), n), nil
		},
	},
	"replace": {pre: func(a []any) (int64, bool) {
		s, ok1 := a[0].(string)
		old, ok2 := a[1].(string)
		nw, ok3 := a[2].(string)
		if !ok1 || !ok2 || !ok3 {
			return 0, false
		}
		n := int64(strings.Count(s, old))
		if len(a) == 4 {
			if lim, ok := toInt(a[3]); ok && lim >= 0 {
				n = min(n, int64(lim))
			}
		}
		return int64(len(s)) + mul(n, int64(max(len(nw)-len(old), 0))), true
	}},
	"join": {pre: func(a []any) (int64, bool) {
		glue := ""
		if len(a) == 2 {
			glue, _ = a[1].(string)
		}
		var n int64
		var items int
		switch x := a[0].(type) {
		case []string:
			for _, s := range x {
				n += int64(len(s))
			}
			items = len(x)
		case []any:
			for _, s := range x {
				if s, ok := s.(string); ok {
					n += int64(len(s))
				}
			}
			items = len(x)
		default:
			return 0, false
		}
		return n + mul(int64(max(items-1, 0)), int64(len(glue))), true
	}},
	"split":      {pre: splitSize},
	"splitAfter": {pre: splitSize},
	"upper":      {pre: stringSize},
	"lower":      {pre: stringSize},
	"toBase64": {pre: func(a []any) (int64, bool) {
		s, ok := a[0].(string)
		return int64((len(s) + 2) / 3 * 4), ok
	}},
	"toJSON":     {},
	"string":     {},
	"fromJSON":   {},
	"fromBase64": {},
	"keys":       {},
	"values":     {},
	"toPairs":    {},
	"fromPairs":  {},
	"uniq":       {},
	"take":       {},
}

func stringSize(a []any) (int64, bool) {
	s, ok := a[0].(string)
	return int64(len(s)), ok
}

func splitSize(a []any) (int64, bool) {
	s, ok1 := a[0].(string)
	sep, ok2 := a[1].(string)
	n := -1
	if len(a) == 3 {
		n, _ = toInt(a[2])
		if n == 0 {
			return 0, ok1 && ok2
		}
	}
	return sliceBytes(pieces(s, sep, n)), ok1 && ok2
}

// builtBytes is what a guarded builtin's result cost, when it could not be
// told before: a string's bytes, a list's or map's items, and for the
// nested values fromJSON decodes, all of them (counting stops past the
// budget).
func builtBytes(v any) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		if n > MaxValueBytes {
			return
		}
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case []string:
			n += sliceBytes(len(x))
		case []any:
			n += sliceBytes(len(x))
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			n += 3 * sliceBytes(len(x)) // key, value and the map's own slot
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// guardName is the name a guarded builtin is compiled under: a space keeps
// it apart from anything a flow can call.
func guardName(name string) string { return "budget " + name }

// guardOptions declare the guarded twins: each takes the environment
// ($env, for the evaluation's budget) then the builtin's own arguments,
// charges the budget, and runs the builtin. They take and return any: the
// expression was type-checked as written before it was patched
// (compileExpr).
func guardOptions() []expr.Option {
	opts := []expr.Option{expr.Function(guardName("+"), concat, new(func(...any) any))}
	for name, g := range guards {
		orig := builtin.Builtins[builtin.Index[name]]
		fn := func(params ...any) (any, error) {
			b, args := budgetOf(params[0]), params[1:]
			if g.pre != nil {
				if n, ok := g.pre(args); ok {
					if err := b.charge(name, n); err != nil {
						return nil, err
					}
				}
			}
			out, err := callBuiltin(orig, g.run, args)
			if err != nil || g.pre != nil {
				return out, err
			}
			return out, b.charge(name, builtBytes(out))
		}
		opts = append(opts, expr.Function(guardName(name), fn, new(func(...any) any)))
	}
	return append(opts, expr.Patch(budgetPatch{}))
}

// callBuiltin runs builtin f on args, or run instead when set.
func callBuiltin(f *builtin.Function, run func([]any) (any, error), args []any) (any, error) {
	switch {
	case run != nil:
		return run(args)
	case f.Fast != nil && len(args) == 1:
		return f.Fast(args[0]), nil
	case f.Func != nil:
		return f.Func(args...)
	}
	out, _, err := f.Safe(args...)
	return out, err
}

// concat is the guarded `+`: two strings are charged before they are
// joined; anything else is expr's own addition.
func concat(params ...any) (any, error) {
	a, b := params[1], params[2]
	as, ok1 := a.(string)
	bs, ok2 := b.(string)
	if !ok1 || !ok2 {
		return runtime.Add(a, b), nil
	}
	if err := budgetOf(params[0]).charge("+", int64(len(as))+int64(len(bs))); err != nil {
		return nil, err
	}
	return as + bs, nil
}

// budgetPatch rewrites, before an expression is compiled, each `+` that
// may join strings and each guarded builtin into a call of its twin with
// $env first, so the twin can charge the evaluation's budget before the
// value is built.
type budgetPatch struct{}

// Visit patches one node; the walk is post-order, so a node's operands are
// patched before it.
func (budgetPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator == "+" && maybeString(n.Left) && maybeString(n.Right) {
			patchCall(node, guardName("+"), n.Left, n.Right)
		}
	case *ast.BuiltinNode:
		if _, ok := guards[n.Name]; ok {
			patchCall(node, guardName(n.Name), n.Arguments...)
		}
	}
}

// maybeString reports whether n may be a string at run time: typed string,
// or of a type the checker cannot know (vars, step results).
func maybeString(n ast.Node) bool {
	k := n.Type().Kind()
	return k == reflect.String || k == reflect.Interface
}

func patchCall(node *ast.Node, fn string, args ...ast.Node) {
	ast.Patch(node, &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: fn},
		Arguments: append([]ast.Node{&ast.IdentifierNode{Value: "$env"}}, args...),
	})
}
