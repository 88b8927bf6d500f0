package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Built-in names of the expression environment. An `as` name may not shadow
// any of them, nor a helper.
var builtinNames = map[string]bool{"vars": true, "env": true, "last": true, "error": true, "flow": true}

// isExprBuiltin reports whether name is one of expr's builtin functions,
// which an `as` name would collide with.
func isExprBuiltin(name string) bool {
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

// Eval runs e against s's environment.
func (e *Expr) Eval(s *State) (any, error) {
	if e.prog == nil { // placeholder left by a failed compile; never run
		return nil, fmt.Errorf("expression %q did not compile", e.Src)
	}
	s.budget = evalBudget{}
	out, err := s.vm.Run(e.prog, s.env)
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

// explain says why a false condition is false: for a comparison (a == b,
// a < b, a in b, a matches b, ...), or the first false conjunct of an &&
// chain that is one, the value of each operand that is not a literal, as
// "SRC is VALUE". It returns nil when there is nothing more to show.
func (e *Expr) explain(s *State) []string {
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
			if v, err := e.sub(b.Left).Eval(s); err == nil && v != true {
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
			v, err := sub.Eval(s)
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

// EvalBool runs e and requires a bool (nil counts as false).
func (e *Expr) EvalBool(s *State) (bool, error) {
	v, err := e.Eval(s)
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

// Template is a YAML value that may interpolate `${{ expr }}`. Lit holds a
// value without any; Whole a value that is exactly one `${{ }}` and keeps
// its type; otherwise Parts concatenate to a string. Items, for a list
// param written as a YAML list, holds one Template per item (Lit is then
// the list of their values when none has an expression).
type Template struct {
	Raw   string
	Lit   any
	Whole *Expr
	Parts []tplPart
	Items []*Template
	// Pos is where a template with Parts is (file:line:col), for the
	// budget's error when the interpolated string would pass it.
	Pos string
}

type tplPart struct {
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
		if e.dynamic {
			return true
		}
	}
	return false
}

// Eval returns t's value: the literal, the whole expression's typed value,
// or the interpolated string.
func (t *Template) Eval(s *State) (any, error) {
	switch {
	case t.Whole != nil:
		return t.Whole.Eval(s)
	case t.Items != nil:
		out := make([]any, len(t.Items))
		for i, it := range t.Items {
			v, err := it.Eval(s)
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
			v, err := p.Expr.Eval(s)
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
func (t *Template) EvalString(s *State) (string, error) {
	v, err := t.Eval(s)
	if err != nil {
		return "", err
	}
	return Stringify(v), nil
}

// Stringify formats an expression value for interpolation: strings as is,
// nil as "", numbers and bools in Go syntax, objects and arrays as JSON.
func Stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// splitTemplate cuts s at `${{ ... }}` markers. ok is false with a message
// when a marker is not closed.
func splitTemplate(s string) (parts []tplPart, offsets []int, msg string) {
	rest, off := s, 0
	for {
		i := strings.Index(rest, "${{")
		if i < 0 {
			if rest != "" {
				parts = append(parts, tplPart{Text: rest})
				offsets = append(offsets, off)
			}
			return parts, offsets, ""
		}
		if i > 0 {
			parts = append(parts, tplPart{Text: rest[:i]})
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
		parts = append(parts, tplPart{Text: src, Expr: &Expr{Src: src}})
		offsets = append(offsets, off+i)
		off += i + 3 + j + 2
		rest = rest[i+3+j+2:]
	}
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

// exprError is a compile problem with expr's caret snippet.
type exprError struct {
	msg     string
	snippet string
}

// compileExpr compiles src for a scope where known reports the names
// defined so far (built-ins, and the `as` names of earlier steps). later
// names `as` names defined further down, for a precise message.
//
// It compiles src twice: as written, for the type checks, the name checks
// and their messages, then with the budget's guards, for running (a
// guard's twin takes any, so it would check nothing itself).
func compileExpr(src string, known func(string) bool, later func(string) (int, bool)) (*Expr, *exprError) {
	checked, err := expr.Compile(src, exprOptions()...)
	var prog *vm.Program
	if err == nil {
		prog, err = expr.Compile(src, guardedOptions...)
	}
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, &exprError{msg: fe.Message, snippet: fe.Snippet}
		}
		return nil, &exprError{msg: err.Error()}
	}
	c := &nameCheck{known: known, lets: map[string]bool{}}
	node := checked.Node()
	ast.Walk(&node, c)
	for _, id := range c.calls {
		if !helperNames[id.Value] && !known(id.Value) {
			return nil, snippetError(src, id, fmt.Sprintf("unknown function %s (expected a helper: uid, has, element, checked, or an expr builtin)", id.Value))
		}
	}
	if len(c.badRegex) > 0 {
		br := c.badRegex[0]
		return nil, snippetError(src, br.node, fmt.Sprintf("name pattern %q is not a valid RE2 regex: %v", br.node.Value, br.err))
	}
	for _, id := range c.unknown {
		if contains(callNames(c.calls), id.Value) {
			continue
		}
		if line, ok := later(id.Value); ok {
			return nil, snippetError(src, id, fmt.Sprintf("%s is used before the step that defines it (as: %s at line %d)", id.Value, id.Value, line))
		}
		return nil, snippetError(src, id, fmt.Sprintf("unknown name %s (expected vars, env, last, error, flow or an earlier step's `as` name)", id.Value))
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

func snippetError(src string, n ast.Node, msg string) *exprError {
	fe := &file.Error{Location: n.Location(), Message: msg}
	fe = fe.Bind(file.NewSource(src))
	return &exprError{msg: msg, snippet: fe.Snippet}
}

// The helpers, usable from Go too. Each takes an extract result as decoded
// from JSON (map[string]any with "elements": [{uid, role, name, visible}])
// or a protocol.ExtractResult.

var regexCache sync.Map // pattern -> *regexp.Regexp or error

func compileRegex(pattern string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(pattern); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		regexCache.Store(pattern, err)
		return nil, err
	}
	regexCache.Store(pattern, re)
	return re, nil
}

// findElement returns the first element with role exactly role and a name
// matching the unanchored RE2 nameRegex, preferring visible elements (those
// without "visible": false) over hidden ones.
func findElement(result any, role, nameRegex string) (map[string]any, int, error) {
	re, err := compileRegex(nameRegex)
	if err != nil {
		return nil, 0, protocol.Errorf(protocol.CodeInvalidAction, "name pattern %q is not a valid RE2 regex: %v", nameRegex, err)
	}
	var elements []any
	switch r := result.(type) {
	case map[string]any:
		elements, _ = r["elements"].([]any)
	case protocol.ExtractResult:
		result = toMap(r)
		return findElement(result, role, nameRegex)
	case *protocol.ExtractResult:
		return findElement(*r, role, nameRegex)
	case nil:
		return nil, 0, nil
	default:
		return nil, 0, protocol.Errorf(protocol.CodeInvalidAction, "uid/has/element want an extract result, got %T", result)
	}
	var hidden map[string]any
	for _, e := range elements {
		m, ok := e.(map[string]any)
		if !ok || m["role"] != role {
			continue
		}
		name, _ := m["name"].(string)
		if !re.MatchString(name) {
			continue
		}
		if v, ok := m["visible"].(bool); ok && !v {
			if hidden == nil {
				hidden = m
			}
			continue
		}
		return m, len(elements), nil
	}
	return hidden, len(elements), nil
}

// elementsTotal is an extract result's elementsTotal (0 when absent).
func elementsTotal(result any) int {
	switch r := result.(type) {
	case map[string]any:
		if f, ok := r["elementsTotal"].(float64); ok {
			return int(f)
		}
		if i, ok := r["elementsTotal"].(int); ok {
			return i
		}
	case protocol.ExtractResult:
		return r.ElementsTotal
	case *protocol.ExtractResult:
		if r != nil {
			return r.ElementsTotal
		}
	}
	return 0
}

// cutNote is what a miss adds when the searched extract listed fewer
// elements than the page has (elementsTotal, a v4 addition): the element
// may be past the cut.
func cutNote(result any, n int) string {
	if total := elementsTotal(result); total > n {
		return fmt.Sprintf(" (this extract lists %d of %d elements: pass maxElements or a selector)", n, total)
	}
	return ""
}

func toMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// UID returns the uid of the first element of an extract result whose role
// is role and whose name matches nameRegex (unanchored RE2), preferring
// visible elements. A miss is an element_not_found *protocol.Error naming the
// role and pattern, so the flow's re-extract recovery applies to it.
func UID(result any, role, nameRegex string) (string, error) {
	el, n, err := findElement(result, role, nameRegex)
	if err != nil {
		return "", err
	}
	if el == nil {
		if result == nil {
			return "", protocol.Errorf(protocol.CodeElementNotFound, "no %s named /%s/: there is no extract result to search (extract first, with `as`)", role, nameRegex)
		}
		return "", protocol.Errorf(protocol.CodeElementNotFound, "no %s named /%s/ among the %d elements of the extract%s%s", role, nameRegex, n, missDetail(result, role, nameRegex), cutNote(result, n))
	}
	uid, _ := el["uid"].(string)
	return uid, nil
}

// Has reports whether an extract result has an element with role and a name
// matching nameRegex.
func Has(result any, role, nameRegex string) (bool, error) {
	el, _, err := findElement(result, role, nameRegex)
	return el != nil, err
}

// Element returns the matching element as a map ({uid, role, name, value,
// visible}), or nil when there is none.
func Element(result any, role, nameRegex string) (map[string]any, error) {
	el, _, err := findElement(result, role, nameRegex)
	return el, err
}

// Checked reports whether the first element of an extract result whose
// role is role and whose name matches nameRegex (as UID finds it) is
// checked: true only for the schema's checked true, false for false and
// for "mixed" (indeterminate). A miss is element_not_found, as UID's; an
// element that reports no checked state (not a checkbox, radio, switch or
// checkable menu item) is invalid_action.
func Checked(result any, role, nameRegex string) (bool, error) {
	if _, err := UID(result, role, nameRegex); err != nil {
		return false, err
	}
	el, _, _ := findElement(result, role, nameRegex)
	switch v := el["checked"].(type) {
	case bool:
		return v, nil
	case string:
		if v == string(protocol.Mixed) {
			return false, nil
		}
	}
	return false, protocol.Errorf(protocol.CodeInvalidAction, "the %s named /%s/ reports no checked state: checked() reads checkboxes, radios, switches and checkable menu items", role, nameRegex)
}
