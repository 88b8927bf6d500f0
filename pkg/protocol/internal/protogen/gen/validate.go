package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The validators: the schema compiled into code, one function per schema
// node, written twice from one reading of the schema, in Go (package
// protocol) and in JavaScript (the extension's worker, where MV3 forbids
// eval and new Function, so no compiling validator can run). Both report a
// failure as a path and a reason whose text the generator computes once,
// so the daemon and the extension refuse a message for the same reason in
// the same words; testdata/protocol/messages.json holds both to it.
//
// The subset of draft 2020-12 they implement is what the protocol schema
// uses: type, enum, const, required, properties, items, minimum, maximum,
// minLength, maxLength (in code points), minItems, maxItems, pattern,
// allOf, anyOf, oneOf, not, if/then/else and local $ref, plus x-message,
// which replaces a failing node's reason. Any other keyword is an error
// here, so a schema edit can never be silently ignored on one side.
//
// The order of the checks is the contract the messages rest on: $ref,
// type, const, enum, then the string, number, array and object keywords
// (required in the schema's order, properties sorted by name), allOf,
// anyOf (a failure reports the last branch's), oneOf, not, if. The first
// failure wins.

// vnode is one schema node, read for the validators.
type vnode struct {
	fn      string // the function that validates it
	pointer string // its JSON pointer in the schema, for comments
	boolean *bool  // a true/false schema
	message string // x-message

	ref                  *vnode
	types                []string
	constant             any
	hasConst             bool
	enum                 []any
	required             []string
	props                []vprop // sorted by name
	items                *vnode
	minimum, maximum     *float64
	minLength, maxLength *int
	minItems, maxItems   *int
	pattern              string
	allOf, anyOf, oneOf  []*vnode
	not, ifS, thenS, els *vnode
}

type vprop struct {
	name string
	node *vnode
}

// Entry is one function the validators offer: Name checks the node at
// Def (a $defs name, or "" for the schema's root), and its failures' paths
// start at Base ("" reads "message": the whole value). Doc completes its
// comment.
type Entry struct{ Name, Def, Base, Doc string }

// ProtocolEntries are package protocol's and the extension's validators.
var ProtocolEntries = []Entry{
	{"validateMessageValue", "", "", "checks a whole message (the schema's root)."},
	{"validateActionValue", "action", "action", `checks one action ($defs/action); paths start at "action".`},
}

// validators is the schema read for the validators: its nodes in the
// order their functions are written, and the entries' nodes.
type validators struct {
	nodes   []*vnode
	entries []*vnode // one per Entry, in order
	regexps []string
}

var vAnnotations = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "default": true,
	"examples": true, "$comment": true, "$defs": true,
}

// readValidators reads the schema document's nodes. Every $defs entry gets
// a function named after it; inline nodes are numbered.
func readValidators(doc []byte, entries []Entry) (*validators, error) {
	tree, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	root := tree.(*object)
	vs := &validators{}
	r := &vreader{vs: vs, defs: map[string]*vnode{}}
	defs, _ := root.get("$defs").(*object)
	if defs == nil {
		defs = &object{}
	}
	// Every def's node exists before any is read, so a $ref resolves to
	// the node whatever the order.
	seen := map[string]string{}
	for _, name := range defs.keys {
		fn := "vDef" + camel(strings.ReplaceAll(name, ".", "_"))
		if other, dup := seen[fn]; dup {
			return nil, fmt.Errorf("$defs/%s and $defs/%s both name the function %s", other, name, fn)
		}
		seen[fn] = name
		r.defs[name] = &vnode{fn: fn, pointer: "#/$defs/" + name}
	}
	rootNode := &vnode{fn: "vRoot", pointer: "#"}
	r.fill(rootNode, root)
	for _, name := range defs.keys {
		n := r.defs[name]
		r.fill(n, defs.get(name))
	}
	if r.err != nil {
		return nil, r.err
	}
	for _, e := range entries {
		n := rootNode
		if e.Def != "" {
			if n = r.defs[e.Def]; n == nil {
				return nil, fmt.Errorf("no $defs/%s for %s", e.Def, e.Name)
			}
		}
		vs.entries = append(vs.entries, n)
	}
	// Only what an entry reaches is written: the protocol's result defs
	// document results, which nobody validates.
	vs.written(reachable(vs.entries))
	return vs, nil
}

// reachable is every node the entries reach, through references,
// subschemas and properties.
func reachable(entries []*vnode) map[*vnode]bool {
	reached := map[*vnode]bool{}
	var reach func(n *vnode)
	reach = func(n *vnode) {
		if n == nil || reached[n] {
			return
		}
		reached[n] = true
		reach(n.ref)
		reach(n.items)
		reach(n.not)
		reach(n.ifS)
		reach(n.thenS)
		reach(n.els)
		for _, list := range [][]*vnode{n.allOf, n.anyOf, n.oneOf} {
			for _, c := range list {
				reach(c)
			}
		}
		for _, pr := range n.props {
			reach(pr.node)
		}
	}
	for _, n := range entries {
		reach(n)
	}
	return reached
}

// written keeps of vs's nodes those in reached, numbering the inline
// ones among them, and lists their patterns, sorted.
func (vs *validators) written(reached map[*vnode]bool) {
	all := vs.nodes
	vs.nodes = nil
	patterns := map[string]bool{}
	inline := 0
	for _, n := range all {
		if reached[n] {
			// Inline nodes are numbered among what is written, so an edit
			// to a def nothing validates renames no function.
			if strings.HasPrefix(n.fn, "v") && !strings.HasPrefix(n.fn, "vDef") && n.fn != "vRoot" {
				inline++
				n.fn = "v" + strconv.Itoa(inline)
			}
			vs.nodes = append(vs.nodes, n)
			if n.pattern != "" {
				patterns[n.pattern] = true
			}
		}
	}
	for re := range patterns {
		vs.regexps = append(vs.regexps, re)
	}
	sort.Strings(vs.regexps)
}

type vreader struct {
	vs   *validators
	defs map[string]*vnode
	n    int
	err  error
}

func (r *vreader) fail(where, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
}

// child reads an inline node.
func (r *vreader) child(v any, pointer string) *vnode {
	r.n++
	n := &vnode{fn: "v" + strconv.Itoa(r.n), pointer: pointer}
	r.fill(n, v)
	return n
}

func (r *vreader) list(v any, pointer string) []*vnode {
	arr, ok := v.([]any)
	if !ok {
		r.fail(pointer, "must be an array")
		return nil
	}
	out := make([]*vnode, len(arr))
	for i, x := range arr {
		out[i] = r.child(x, pointer+"/"+strconv.Itoa(i))
	}
	return out
}

func (r *vreader) count(v any, pointer string) *int {
	num, ok := v.(json.Number)
	i, err := num.Int64()
	if !ok || err != nil || i < 0 {
		r.fail(pointer, "must be a non-negative integer")
		return nil
	}
	n := int(i)
	return &n
}

func (r *vreader) number(v any, pointer string) *float64 {
	num, ok := v.(json.Number)
	f, err := num.Float64()
	if !ok || err != nil || math.IsInf(f, 0) {
		r.fail(pointer, "must be a number")
		return nil
	}
	return &f
}

// fill reads the schema v into n, its inline subschemas into nodes of
// their own; the first error stays in r.err.
func (r *vreader) fill(n *vnode, v any) {
	n.vs(r.vs)
	if b, ok := v.(bool); ok {
		n.boolean = &b
		return
	}
	o, ok := v.(*object)
	if !ok {
		r.fail(n.pointer, "a schema must be an object or a boolean")
		return
	}
	for _, k := range o.keys {
		val := o.get(k)
		at := n.pointer + "/" + k
		switch {
		case k == "x-message":
			if n.message, ok = val.(string); !ok || n.message == "" {
				r.fail(at, "must be a non-empty string")
			}
		case strings.HasPrefix(k, "x-") || vAnnotations[k]:
		case r.subschema(n, k, val, at), r.constraint(n, k, val, at):
		default:
			r.fail(at, "unsupported keyword %s", k)
		}
	}
}

// subschema reads keyword k of n (its pointer at) when it holds subschemas ($ref
// included), and reports whether it did.
func (r *vreader) subschema(n *vnode, k string, val any, at string) bool {
	switch k {
	case "$ref":
		ref, _ := val.(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok || r.defs[name] == nil {
			r.fail(at, "%q: only #/$defs/NAME references to an existing def are supported", ref)
			return true
		}
		n.ref = r.defs[name]
	case "properties":
		po, ok := val.(*object)
		if !ok {
			r.fail(at, "must be an object")
			return true
		}
		names := append([]string(nil), po.keys...)
		sort.Strings(names) // checked in sorted order, on both sides
		for _, name := range names {
			n.props = append(n.props, vprop{name, r.child(po.get(name), at+"/"+name)})
		}
	case "items":
		n.items = r.child(val, at)
	case "not":
		n.not = r.child(val, at)
	case "if":
		n.ifS = r.child(val, at)
	case "then":
		n.thenS = r.child(val, at)
	case "else":
		n.els = r.child(val, at)
	case "allOf":
		n.allOf = r.list(val, at)
	case "anyOf":
		n.anyOf = r.list(val, at)
	case "oneOf":
		n.oneOf = r.list(val, at)
	default:
		return false
	}
	return true
}

// constraint reads keyword k of n (its pointer at) when it constrains the value
// itself (type, const, enum, required, the bounds, pattern), and reports
// whether it did.
func (r *vreader) constraint(n *vnode, k string, val any, at string) bool {
	switch k {
	case "type":
		switch t := val.(type) {
		case string:
			n.types = []string{t}
		case []any:
			for _, e := range t {
				s, _ := e.(string)
				n.types = append(n.types, s)
			}
		}
		for _, t := range n.types {
			if !slicesContains([]string{"null", "boolean", "object", "array", "number", "integer", "string"}, t) {
				r.fail(at, "unknown type %q", t)
			}
		}
	case "const":
		n.hasConst, n.constant = true, val
		if !scalar(val) {
			r.fail(at, "only a string, number, boolean or null const is supported")
		}
	case "enum":
		arr, _ := val.([]any)
		if len(arr) == 0 {
			r.fail(at, "must be a non-empty array")
		}
		for _, e := range arr {
			if !scalar(e) {
				r.fail(at, "only strings, numbers, booleans and null are supported in an enum")
			}
		}
		n.enum = arr
	case "required":
		arr, _ := val.([]any)
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				r.fail(at, "must list strings")
			}
			n.required = append(n.required, s)
		}
	case "minimum":
		n.minimum = r.number(val, at)
	case "maximum":
		n.maximum = r.number(val, at)
	case "minLength":
		n.minLength = r.count(val, at)
	case "maxLength":
		n.maxLength = r.count(val, at)
	case "minItems":
		n.minItems = r.count(val, at)
	case "maxItems":
		n.maxItems = r.count(val, at)
	case "pattern":
		n.pattern, _ = val.(string)
		if _, err := regexp.Compile(n.pattern); err != nil {
			r.fail(at, "%v", err)
		}
	default:
		return false
	}
	return true
}

// vs registers n as a node with a function of its own.
func (n *vnode) vs(vs *validators) { vs.nodes = append(vs.nodes, n) }

func scalar(v any) bool {
	switch v.(type) {
	case string, json.Number, bool, nil:
		return true
	}
	return false
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// trivial reports whether n accepts every value: {} or true.
func (n *vnode) trivial() bool {
	if n.boolean != nil {
		return *n.boolean
	}
	return n.message == "" && n.ref == nil && n.types == nil && !n.hasConst && n.enum == nil &&
		n.required == nil && n.props == nil && n.items == nil && n.minimum == nil && n.maximum == nil &&
		n.minLength == nil && n.maxLength == nil && n.minItems == nil && n.maxItems == nil &&
		n.pattern == "" && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil && n.ifS == nil
}

// alias is the node whose function validates n when n is only a $ref.
func (n *vnode) alias() *vnode {
	for n.ref != nil && n.boolean == nil && n.message == "" && n.types == nil && !n.hasConst && n.enum == nil &&
		n.required == nil && n.props == nil && n.items == nil && n.minimum == nil && n.maximum == nil &&
		n.minLength == nil && n.maxLength == nil && n.minItems == nil && n.maxItems == nil &&
		n.pattern == "" && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil && n.ifS == nil {
		n = n.ref
	}
	return n
}

// call is the function to call for n.
func call(n *vnode) string { return n.alias().fn }

// own reports whether n needs a function of its own.
func (n *vnode) own() bool { return !n.trivial() && n.alias() == n }

// stringify is JSON.stringify of a scalar: no HTML escaping.
func stringify(v any) string {
	if num, ok := v.(json.Number); ok {
		f, _ := num.Float64()
		return numText(f)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func numText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// The reasons, computed here once for both languages.

func typeReason(types []string) string { return "must be " + strings.Join(types, " or ") + ", got " }

func constReason(c any) string { return "must be " + stringify(c) }

func enumReason(enum []any) string {
	quoted := make([]string, len(enum))
	for i, e := range enum {
		quoted[i] = stringify(e)
	}
	return "must be one of " + strings.Join(quoted, ", ") + ", got "
}

func missingReason(k string) string { return "missing required field " + stringify(k) }

func notReason(n *vnode) string {
	if len(n.required) > 0 {
		return "must not match having " + strings.Join(n.required, ", ")
	}
	return "must not match the excluded shape"
}

// oneOfFields is the "exactly one of these fields" reading of a oneOf
// whose every branch is {required: [...]}, or nil.
func oneOfFields(branches []*vnode) []string {
	fields := make([]string, len(branches))
	for i, b := range branches {
		if len(b.required) == 0 {
			return nil
		}
		fields[i] = strings.Join(b.required, "+")
	}
	return fields
}

func oneOfReason(fields []string) string {
	return "needs exactly one of " + strings.Join(fields[:len(fields)-1], ", ") + " or " + fields[len(fields)-1]
}
