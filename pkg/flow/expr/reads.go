package expr

import "github.com/expr-lang/expr/ast"

// Reads are the names e reads (reads), each compiled on its own, for the
// evidence of a failing step: what each was when it failed.
func (e *Expr) Reads() []*Expr {
	var out []*Expr
	for _, n := range e.reads() {
		out = append(out, e.sub(n))
	}
	return out
}

// reads lists the identifiers and member chains e reads, outermost chain
// only (page.title, not page as well), in the order they appear, without
// duplicates. Helpers' names, let variables and the closure pointer (#,
// .field inside filter) are not variables and are left out.
func (e *Expr) reads() []ast.Node {
	if e == nil || e.prog == nil {
		return nil
	}
	node := e.tree
	// The walk visits a let's body before its declarator: name the lets
	// first.
	lets := letNames{}
	ast.Walk(&node, lets)
	c := &readCollector{inner: map[ast.Node]bool{}, callees: map[ast.Node]bool{}, lets: lets}
	ast.Walk(&node, c)
	var out []ast.Node
	seen := map[string]bool{}
	for _, n := range c.found {
		if c.inner[n] || c.callees[n] { // a callee is visited before its call
			continue
		}
		if src := n.String(); !seen[src] {
			seen[src] = true
			out = append(out, n)
		}
	}
	return out
}

// readCollector gathers candidate reads in the walk's post order: a chain's
// base is visited before the chain, so inner marks the bases to drop.
type readCollector struct {
	found   []ast.Node
	inner   map[ast.Node]bool
	callees map[ast.Node]bool
	lets    map[string]bool
}

// letNames collects the names `let` declares in an expression.
type letNames map[string]bool

func (l letNames) Visit(n *ast.Node) {
	if d, ok := (*n).(*ast.VariableDeclaratorNode); ok {
		l[d.Name] = true
	}
}

func (c *readCollector) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.CallNode:
		c.callees[x.Callee] = true
	case *ast.IdentifierNode:
		if !c.lets[x.Value] && !helperNames[x.Value] {
			c.found = append(c.found, x)
		}
	case *ast.MemberNode:
		if pureChain(x, c.lets) {
			c.inner[x.Node] = true
			c.found = append(c.found, x)
		}
	case *ast.ChainNode:
		// a?.b is a ChainNode around the member node: keep the chain whole.
		if m, ok := x.Node.(*ast.MemberNode); ok && pureChain(m, c.lets) {
			c.inner[m] = true
			c.found = append(c.found, x)
		}
	}
}

// pureChain reports whether m is a chain of constant property reads
// (page.title, page.elements[0].name) on a variable, which can be
// evaluated on its own.
func pureChain(m *ast.MemberNode, lets map[string]bool) bool {
	switch m.Property.(type) {
	case *ast.StringNode, *ast.IntegerNode:
	default:
		return false
	}
	switch b := m.Node.(type) {
	case *ast.IdentifierNode:
		return !lets[b.Value] && !helperNames[b.Value]
	case *ast.MemberNode:
		return pureChain(b, lets)
	case *ast.ChainNode:
		if bm, ok := b.Node.(*ast.MemberNode); ok {
			return pureChain(bm, lets)
		}
	}
	return false
}
