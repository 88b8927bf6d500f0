package expr

import (
	"encoding/json"
	"fmt"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// Explain says why a false condition is false: for a comparison (a == b,
// a < b, a in b, a matches b, ...), or the first false conjunct of an &&
// chain that is one, the value of each operand that is not a literal, as
// "SRC is VALUE". It returns nil when there is nothing more to show.
func (e *Expr) Explain(sc Scope) []string {
	if e.prog == nil {
		return nil
	}
	node := e.tree
	for {
		b, ok := node.(*ast.BinaryNode)
		if !ok {
			return nil
		}
		if b.Operator == "&&" || b.Operator == "and" {
			if v, err := e.sub(b.Left).Eval(sc); err == nil && v != true {
				node = b.Left
			} else {
				node = b.Right
			}
			continue
		}
		if !comparisons[b.Operator] {
			return nil
		}
		var out []string
		for _, operand := range []ast.Node{b.Left, b.Right} {
			if isLiteral(operand) {
				continue
			}
			sub := e.sub(operand)
			v, err := sub.Eval(sc)
			if err != nil {
				out = append(out, fmt.Sprintf("%s fails: %v", sub.Src, err))
				continue
			}
			out = append(out, sub.Src+" is "+showValue(v))
		}
		return out
	}
}

var comparisons = map[string]bool{
	"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"in": true, "not in": true, "matches": true, "contains": true, "startsWith": true, "endsWith": true,
}

func isLiteral(n ast.Node) bool {
	switch n.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NilNode:
		return true
	}
	return false
}

// sub compiles an operand of e on its own; e already passed the name
// checks, so the operand's names are known. A failure gives an Expr whose
// Eval reports it.
func (e *Expr) sub(n ast.Node) *Expr {
	src := n.String()
	prog, err := expr.Compile(src, guardedOptions...)
	if err != nil {
		return &Expr{Src: src, Pos: e.Pos}
	}
	return &Expr{Src: src, Pos: e.Pos, prog: prog, tree: n}
}

// showValue prints v as JSON, cut to 120 characters.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(b), 120)
}
