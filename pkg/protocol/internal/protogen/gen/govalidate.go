package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"strconv"
	"strings"
)

// ValidatorsGo renders the schema's validators as Go in package pkg: a
// function per entry over a value as encoding/json decodes it into any,
// answering nil or a *SchemaError.
func ValidatorsGo(doc []byte, pkg string, entries []Entry) ([]byte, error) {
	vs, err := readValidators(doc, entries)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := &goWriter{b: &b, res: map[string]string{}}
	w.p("// %s\n\npackage %s\n\n", Header, pkg)
	w.p("import (\n\t\"bytes\"\n\t\"encoding/json\"\n\t\"math\"\n\t\"strconv\"\n\t\"strings\"\n\t\"unicode/utf8\"\n")
	if len(vs.regexps) > 0 {
		w.p("\t\"regexp\"\n\t\"sync\"\n")
	}
	w.p(")\n\n")
	for i, e := range entries {
		base := "nil"
		if e.Base != "" {
			base = fmt.Sprintf("&vloc{key: %q}", e.Base)
		}
		w.p("// %s %s\nfunc %s(v any) *SchemaError { return %s(v, %s, false) }\n\n", e.Name, e.Doc, e.Name, call(vs.entries[i]), base)
	}
	if len(vs.regexps) > 0 {
		w.p("// The schema's patterns, compiled on first use: a process that validates\n// nothing never pays for them.\nvar (\n")
		for i, re := range vs.regexps {
			name := "vRe" + strconv.Itoa(i)
			w.res[re] = name
			w.p("\t%s = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(%s) })\n", name, strconv.Quote(re))
		}
		w.p(")\n\n")
	}
	for _, n := range vs.nodes {
		if n.own() {
			w.node(n)
		}
	}
	b.WriteString(goRuntime)
	return format.Source(b.Bytes())
}

type goWriter struct {
	b   *bytes.Buffer
	res map[string]string // pattern -> its sync.OnceValue
}

func (w *goWriter) p(format string, args ...any) { fmt.Fprintf(w.b, format, args...) }

// fail writes the return of a failure: ret is a call of one of vloc's
// fail methods, which return vQuiet to a quiet probe.
func (w *goWriter) fail(ret string) { w.p("\t\treturn %s\n", ret) }

// node writes the function that validates n (and, with an x-message,
// the wrapper that replaces its reason), its checks in the order
// validate.go states.
func (w *goWriter) node(n *vnode) {
	check := n.fn
	if n.message != "" {
		check = n.fn + "Check"
		w.p("// %s validates %s; its x-message replaces any reason.\n", n.fn, n.pointer)
		w.p("func %s(v any, p *vloc, q bool) *SchemaError {\n\tif %s(v, p, true) == nil {\n\t\treturn nil\n\t}\n", n.fn, check)
		w.p("\treturn p.fail(q, %s)\n}\n\n", strconv.Quote(n.message))
	}
	w.p("// %s checks %s.\nfunc %s(v any, p *vloc, q bool) *SchemaError {\n", check, n.pointer, check)
	if n.boolean != nil { // false: true never gets a function
		w.p("\treturn p.fail(q, \"not allowed\")\n}\n\n")
		return
	}
	w.valueChecks(n)
	w.stringChecks(n)
	w.numberChecks(n)
	w.arrayChecks(n)
	w.objectChecks(n)
	w.combinedChecks(n)
	w.conditionChecks(n)
	w.p("\treturn nil\n}\n\n")
}

// valueChecks writes n's checks of the whole value: $ref, type,
// const, enum.
func (w *goWriter) valueChecks(n *vnode) {
	if n.ref != nil && !n.ref.trivial() {
		w.p("\tif e := %s(v, p, q); e != nil {\n\t\treturn e\n\t}\n", call(n.ref))
	}
	if n.types != nil {
		tests := make([]string, len(n.types))
		for i, t := range n.types {
			tests[i] = fmt.Sprintf("vHasType(v, %q)", t)
		}
		w.p("\tif !(%s) {\n", strings.Join(tests, " || "))
		w.fail(fmt.Sprintf("p.failType(q, %s, v)", strconv.Quote(typeReason(n.types))))
		w.p("\t}\n")
	}
	if n.hasConst {
		w.p("\tif v != %s {\n", goScalar(n.constant))
		w.fail(fq(constReason(n.constant)))
		w.p("\t}\n")
	}
	if n.enum != nil {
		lits := make([]string, len(n.enum))
		for i, e := range n.enum {
			lits[i] = goScalar(e)
		}
		w.p("\tswitch v {\n\tcase %s:\n\tdefault:\n", strings.Join(lits, ", "))
		w.fail(fmt.Sprintf("p.failEnum(q, %s, v)", strconv.Quote(enumReason(n.enum))))
		w.p("\t}\n")
	}
}

// stringChecks writes n's checks of a string: its length in code
// points, its pattern.
func (w *goWriter) stringChecks(n *vnode) {
	if n.minLength != nil || n.maxLength != nil || n.pattern != "" {
		w.p("\tif s, ok := v.(string); ok {\n")
		if n.minLength != nil || n.maxLength != nil {
			w.p("\t\tn := utf8.RuneCountInString(s) // code points, as JSON Schema counts\n")
			if n.minLength != nil {
				w.p("\t\tif n < %d {\n", *n.minLength)
				w.fail(fq(fmt.Sprintf("must be at least %d characters", *n.minLength)))
				w.p("\t\t}\n")
			}
			if n.maxLength != nil {
				w.p("\t\tif n > %d {\n", *n.maxLength)
				w.fail(fq(fmt.Sprintf("must be at most %d characters", *n.maxLength)))
				w.p("\t\t}\n")
			}
		}
		if n.pattern != "" {
			w.p("\t\tif !%s().MatchString(s) {\n", w.res[n.pattern])
			w.fail(fmt.Sprintf("p.failPattern(q, s, %s)", strconv.Quote(" does not match "+n.pattern)))
			w.p("\t\t}\n")
		}
		w.p("\t}\n")
	}
}

// numberChecks writes n's bounds of a number.
func (w *goWriter) numberChecks(n *vnode) {
	if n.minimum != nil || n.maximum != nil {
		w.p("\tif f, ok := v.(float64); ok {\n")
		if n.minimum != nil {
			w.p("\t\tif f < %s {\n", goFloat(*n.minimum))
			w.fail(fq("must be >= " + numText(*n.minimum)))
			w.p("\t\t}\n")
		}
		if n.maximum != nil {
			w.p("\t\tif f > %s {\n", goFloat(*n.maximum))
			w.fail(fq("must be <= " + numText(*n.maximum)))
			w.p("\t\t}\n")
		}
		w.p("\t}\n")
	}
}

// arrayChecks writes n's checks of an array: its length, its items.
func (w *goWriter) arrayChecks(n *vnode) {
	if n.minItems != nil || n.maxItems != nil || (n.items != nil && !n.items.trivial()) {
		w.p("\tif a, ok := v.([]any); ok {\n")
		if n.minItems != nil {
			w.p("\t\tif len(a) < %d {\n", *n.minItems)
			w.fail(fq(fmt.Sprintf("must have at least %d items", *n.minItems)))
			w.p("\t\t}\n")
		}
		if n.maxItems != nil {
			w.p("\t\tif len(a) > %d {\n", *n.maxItems)
			w.fail(fq(fmt.Sprintf("must have at most %d items", *n.maxItems)))
			w.p("\t\t}\n")
		}
		if n.items != nil && !n.items.trivial() {
			w.p("\t\tfor i, x := range a {\n\t\t\tif e := %s(x, p.index(q, i), q); e != nil {\n\t\t\t\treturn e\n\t\t\t}\n\t\t}\n", call(n.items))
		}
		w.p("\t}\n")
	}
}

// objectChecks writes n's checks of an object: required (in the
// schema's order), then properties (by name).
func (w *goWriter) objectChecks(n *vnode) {
	props := 0
	for _, pr := range n.props {
		if !pr.node.trivial() {
			props++
		}
	}
	if n.required != nil || props > 0 {
		w.p("\tif o, ok := v.(map[string]any); ok {\n")
		for _, k := range n.required {
			w.p("\t\tif _, ok := o[%q]; !ok {\n", k)
			w.p("\t\t\treturn p.missing(q, %q, %s)\n\t\t}\n", k, strconv.Quote(missingReason(k)))
		}
		for _, pr := range n.props {
			if pr.node.trivial() {
				continue
			}
			w.p("\t\tif x, ok := o[%q]; ok {\n\t\t\tif e := %s(x, p.child(q, %q), q); e != nil {\n\t\t\t\treturn e\n\t\t\t}\n\t\t}\n", pr.name, call(pr.node), pr.name)
		}
		w.p("\t}\n")
	}
}

// combinedChecks writes n's allOf, anyOf (a failure reports the last
// branch's reason) and oneOf.
func (w *goWriter) combinedChecks(n *vnode) {
	for _, s := range n.allOf {
		if !s.trivial() {
			w.p("\tif e := %s(v, p, q); e != nil {\n\t\treturn e\n\t}\n", call(s))
		}
	}
	if n.anyOf != nil && !anyTrivial(n.anyOf) {
		probes := make([]string, len(n.anyOf))
		for i, s := range n.anyOf {
			probes[i] = call(s) + "(v, p, true) != nil"
		}
		w.p("\tif %s {\n", strings.Join(probes, " && "))
		w.p("\t\treturn %s(v, p, q) // the last branch's reason\n\t}\n", call(n.anyOf[len(n.anyOf)-1]))
	}
	if n.oneOf != nil {
		probes := make([]string, len(n.oneOf))
		for i, s := range n.oneOf {
			if s.trivial() {
				probes[i] = "1"
			} else {
				probes[i] = "vPass(" + call(s) + "(v, p, true))"
			}
		}
		w.p("\tif passed := %s; passed != 1 {\n\t\tif q {\n\t\t\treturn vQuiet\n\t\t}\n", strings.Join(probes, " + "))
		if fields := oneOfFields(n.oneOf); fields != nil {
			req := make([]string, len(n.oneOf))
			for i, s := range n.oneOf {
				req[i] = fmt.Sprintf("%#v", s.required)
			}
			w.p("\t\treturn p.failOneOf(%s, v, [][]string{%s})\n\t}\n", strconv.Quote(oneOfReason(fields)), strings.Join(req, ", "))
		} else {
			w.p("\t\tif passed > 1 {\n\t\t\treturn p.fail(false, \"matches more than one alternative\")\n\t\t}\n")
			w.p("\t\treturn %s(v, p, false)\n\t}\n", call(n.oneOf[0]))
		}
	}
}

// conditionChecks writes n's not and if/then/else.
func (w *goWriter) conditionChecks(n *vnode) {
	if n.not != nil {
		if n.not.trivial() {
			w.p("\tif true {\n")
		} else {
			w.p("\tif %s(v, p, true) == nil {\n", call(n.not))
		}
		w.fail(fq(notReason(n.not)))
		w.p("\t}\n")
	}
	if n.ifS != nil && !(branchTrivial(n.thenS) && branchTrivial(n.els)) {
		cond := "true"
		if !n.ifS.trivial() {
			cond = call(n.ifS) + "(v, p, true) == nil"
		}
		w.p("\tif %s {\n", cond)
		if !branchTrivial(n.thenS) {
			w.p("\t\tif e := %s(v, p, q); e != nil {\n\t\t\treturn e\n\t\t}\n", call(n.thenS))
		}
		if !branchTrivial(n.els) {
			w.p("\t} else if e := %s(v, p, q); e != nil {\n\t\treturn e\n", call(n.els))
		}
		w.p("\t}\n")
	}
}

// fq is the failure with a reason known here.
func fq(reason string) string { return "p.fail(q, " + strconv.Quote(reason) + ")" }

func anyTrivial(ns []*vnode) bool {
	for _, n := range ns {
		if n.trivial() {
			return true
		}
	}
	return false
}

func branchTrivial(n *vnode) bool { return n == nil || n.trivial() }

// goScalar is a scalar as a Go constant that compares equal to the value
// encoding/json decodes into any.
func goScalar(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case json.Number:
		f, _ := v.Float64()
		return "float64(" + goFloat(f) + ")"
	case bool:
		return strconv.FormatBool(v)
	}
	return "nil"
}

func goFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// goRuntime is what every node's function shares: the location of a value,
// failures, and the JSON Schema readings of a decoded value. Its JS twin is
// jsRuntime, beside it in jsvalidate.go.
const goRuntime = `// SchemaError is a value's failure against the schema. Its text, "Path:
// Reason", is the text the extension's validator gives for the same value:
// both are generated from one reading of the schema.
type SchemaError struct {
	// Path is the dotted location of the failing value: "message" for a
	// whole message, or an entry's base such as "action", then property
	// names and array indices ("action.url", "action.files.1"). It is
	// empty only when the input was not JSON at all.
	Path string
	// Reason is what is wrong there, such as "must be string, got number"
	// or ` + "`missing required field \"url\"`" + `.
	Reason string
	// Missing is the absent property's name when Reason is a missing
	// required field, else "".
	Missing string
}

// Error returns "Path: Reason", or Reason alone when Path is empty.
func (e *SchemaError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// vloc is where a value sits, built as the walk descends but turned into
// text only when something fails, so a valid message costs no strings.
type vloc struct {
	parent *vloc
	key    string
}

// child descends to key k, or stays put in a quiet probe.
func (l *vloc) child(q bool, k string) *vloc {
	if q {
		return l
	}
	return &vloc{l, k}
}

// index descends to item i, or stays put in a quiet probe.
func (l *vloc) index(q bool, i int) *vloc {
	if q {
		return l
	}
	return &vloc{l, strconv.Itoa(i)}
}

// String is the dotted path: "message" for a whole message.
func (l *vloc) String() string {
	if l == nil {
		return "message"
	}
	var parts []string
	for ; l != nil; l = l.parent {
		parts = append(parts, l.key)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

// vQuiet is what a quiet probe gets from a fail method: its caller needs
// only pass or fail, so no reason is built.
var vQuiet = &SchemaError{Reason: "failed"}

func (l *vloc) fail(q bool, reason string) *SchemaError {
	if q {
		return vQuiet
	}
	return &SchemaError{Path: l.String(), Reason: reason}
}

func (l *vloc) missing(q bool, field, reason string) *SchemaError {
	if q {
		return vQuiet
	}
	return &SchemaError{Path: l.String(), Reason: reason, Missing: field}
}

func (l *vloc) failType(q bool, want string, v any) *SchemaError {
	if q {
		return vQuiet
	}
	return l.fail(q, want+vTypeOf(v))
}

func (l *vloc) failEnum(q bool, want string, v any) *SchemaError {
	if q {
		return vQuiet
	}
	return l.fail(q, want+vStringify(v))
}

// failPattern shows the string that failed a pattern, cut to 80 code
// points.
func (l *vloc) failPattern(q bool, s, suffix string) *SchemaError {
	if q {
		return vQuiet
	}
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:80]) + "…"
	}
	return l.fail(q, vStringify(s)+suffix)
}

func vPass(e *SchemaError) int {
	if e == nil {
		return 1
	}
	return 0
}

func vTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "unknown"
}

func vHasType(v any, t string) bool {
	switch t {
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "number":
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return vTypeOf(v) == t
}

// vStringify is JSON.stringify: no HTML escaping.
func vStringify(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// failOneOf says how many of a oneOf's fields v has, when not one.
func (l *vloc) failOneOf(want string, v any, branches [][]string) *SchemaError {
	present := 0
	if obj, ok := v.(map[string]any); ok {
		for _, fields := range branches {
			has := true
			for _, k := range fields {
				_, in := obj[k]
				has = has && in
			}
			if has {
				present++
			}
		}
	}
	got := ""
	switch {
	case present > 1 && len(branches) == 2:
		got = " (got both)"
	case present > 1:
		got = " (got " + strconv.Itoa(present) + ")"
	case present == 0 && len(branches) == 2:
		got = " (got neither)"
	case present == 0:
		got = " (got none)"
	}
	return l.fail(false, want+got)
}
`
