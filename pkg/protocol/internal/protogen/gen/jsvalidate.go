package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ValidatorsJS renders the schema's validators as an ES module: a function
// per entry over a value as JSON.parse returns it, answering null or
// {path, reason, missing}. It is the same code as ValidatorsGo's, node for
// node, with the same reasons.
func ValidatorsJS(doc []byte, entries []Entry) ([]byte, error) {
	vs, err := readValidators(doc, entries)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := &jsWriter{b: &b, res: map[string]string{}}
	w.p("// %s\n", Header)
	w.p("// The schema's validators, as code: MV3 forbids eval and new Function,\n")
	w.p("// so no compiling validator can run in the worker. Go's are written from\n")
	w.p("// the same reading of the schema, with the same reasons.\n\n")
	for i, e := range entries {
		base := "null"
		if e.Base != "" {
			base = fmt.Sprintf("{ u: null, k: %s }", jsString(e.Base))
		}
		w.p("/** %s %s It answers null, or {path, reason, missing}. */\n", e.Name, e.Doc)
		w.p("export function %s(v) {\n  return %s(v, %s, false);\n}\n\n", e.Name, call(vs.entries[i]), base)
	}
	for i, re := range vs.regexps {
		name := "RE" + strconv.Itoa(i)
		w.res[re] = name
		w.p("const %s = new RegExp(%s, \"u\");\n", name, jsString(re))
	}
	w.p("\n")
	for _, n := range vs.nodes {
		if n.own() {
			w.node(n)
		}
	}
	b.WriteString(jsRuntime)
	return b.Bytes(), nil
}

type jsWriter struct {
	b     *bytes.Buffer
	res   map[string]string
	enums int
	after []string // what follows the function being written: its enums' sets
}

func (w *jsWriter) p(format string, args ...any) { fmt.Fprintf(w.b, format, args...) }

// fail writes the return of a failure: ret is a call of one of the fail
// functions, which return QUIET to a quiet probe.
func (w *jsWriter) fail(indent, ret string) { w.p("%sreturn %s;\n", indent, ret) }

// jfq is the failure with a reason known here.
func jfq(reason string) string { return "fail(p, q, " + jsString(reason) + ")" }

// jsString is a JavaScript string literal with the value of s.
func jsString(s string) string {
	b, _ := json.Marshal(s) // JSON strings are JS strings
	return string(b)
}

// jsScalar is a scalar as a JavaScript literal, === to JSON.parse's value.
func jsScalar(v any) string {
	switch v := v.(type) {
	case string:
		return jsString(v)
	case json.Number:
		f, _ := v.Float64()
		return numText(f)
	case bool:
		return strconv.FormatBool(v)
	}
	return "null"
}

// node writes the function that validates n (and, with an x-message,
// the wrapper that replaces its reason), goWriter.node's twin.
func (w *jsWriter) node(n *vnode) {
	check := n.fn
	if n.message != "" {
		check = n.fn + "Check"
		w.p("// %s: its x-message replaces any reason.\n", n.pointer)
		w.p("function %s(v, p, q) {\n  if (%s(v, p, true) === null) return null;\n", n.fn, check)
		w.p("  return fail(p, q, %s);\n}\n\n", jsString(n.message))
	}
	w.p("// %s\nfunction %s(v, p, q) {\n", n.pointer, check)
	if n.boolean != nil {
		w.p("  return fail(p, q, \"not allowed\");\n}\n\n")
		return
	}
	// The body goes to a buffer of its own, so that "let e" is written
	// only where it is used.
	outer := w.b
	w.b = &bytes.Buffer{}
	defer func() {
		body := w.b.Bytes()
		w.b = outer
		if bytes.Contains(body, []byte("(e = ")) {
			w.p("  let e;\n")
		}
		w.b.Write(body)
		w.p("  return null;\n}\n\n")
		for _, a := range w.after {
			w.b.WriteString(a)
		}
		w.after = nil
	}()
	w.valueChecks(n)
	w.stringChecks(n)
	w.numberChecks(n)
	w.arrayChecks(n)
	w.objectChecks(n)
	w.combinedChecks(n)
	w.conditionChecks(n)
}

// valueChecks writes n's checks of the whole value: $ref, type,
// const, enum (whose Set goes after the function).
func (w *jsWriter) valueChecks(n *vnode) {
	if n.ref != nil && !n.ref.trivial() {
		w.p("  if ((e = %s(v, p, q))) return e;\n", call(n.ref))
	}
	if n.types != nil {
		tests := make([]string, len(n.types))
		for i, t := range n.types {
			tests[i] = fmt.Sprintf("hasType(v, %q)", t)
		}
		w.p("  if (!(%s)) {\n", strings.Join(tests, " || "))
		w.fail("    ", "failType(p, q, "+jsString(typeReason(n.types))+", v)")
		w.p("  }\n")
	}
	if n.hasConst {
		w.p("  if (v !== %s) {\n", jsScalar(n.constant))
		w.fail("    ", jfq(constReason(n.constant)))
		w.p("  }\n")
	}
	if n.enum != nil {
		lits := make([]string, len(n.enum))
		for i, e := range n.enum {
			lits[i] = jsScalar(e)
		}
		w.enums++
		set := "ENUM" + strconv.Itoa(w.enums)
		w.p("  if (!%s.has(v)) {\n", set)
		w.fail("    ", "failEnum(p, q, "+jsString(enumReason(n.enum))+", v)")
		w.p("  }\n")
		w.after = append(w.after, fmt.Sprintf("const %s = new Set([%s]);\n\n", set, strings.Join(lits, ", ")))
	}
}

// stringChecks writes n's checks of a string: its length in code
// points, its pattern.
func (w *jsWriter) stringChecks(n *vnode) {
	if n.minLength != nil || n.maxLength != nil || n.pattern != "" {
		w.p("  if (typeof v === \"string\") {\n")
		if n.minLength != nil || n.maxLength != nil {
			w.p("    const n = codePoints(v);\n")
			if n.minLength != nil {
				w.p("    if (n < %d) {\n", *n.minLength)
				w.fail("      ", jfq(fmt.Sprintf("must be at least %d characters", *n.minLength)))
				w.p("    }\n")
			}
			if n.maxLength != nil {
				w.p("    if (n > %d) {\n", *n.maxLength)
				w.fail("      ", jfq(fmt.Sprintf("must be at most %d characters", *n.maxLength)))
				w.p("    }\n")
			}
		}
		if n.pattern != "" {
			w.p("    if (!%s.test(v)) {\n", w.res[n.pattern])
			w.fail("      ", "failPattern(p, q, v, "+jsString(" does not match "+n.pattern)+")")
			w.p("    }\n")
		}
		w.p("  }\n")
	}
}

// numberChecks writes n's bounds of a number.
func (w *jsWriter) numberChecks(n *vnode) {
	if n.minimum != nil || n.maximum != nil {
		w.p("  if (typeof v === \"number\") {\n")
		if n.minimum != nil {
			w.p("    if (v < %s) {\n", numText(*n.minimum))
			w.fail("      ", jfq("must be >= "+numText(*n.minimum)))
			w.p("    }\n")
		}
		if n.maximum != nil {
			w.p("    if (v > %s) {\n", numText(*n.maximum))
			w.fail("      ", jfq("must be <= "+numText(*n.maximum)))
			w.p("    }\n")
		}
		w.p("  }\n")
	}
}

// arrayChecks writes n's checks of an array: its length, its items.
func (w *jsWriter) arrayChecks(n *vnode) {
	if n.minItems != nil || n.maxItems != nil || (n.items != nil && !n.items.trivial()) {
		w.p("  if (Array.isArray(v)) {\n")
		if n.minItems != nil {
			w.p("    if (v.length < %d) {\n", *n.minItems)
			w.fail("      ", jfq(fmt.Sprintf("must have at least %d items", *n.minItems)))
			w.p("    }\n")
		}
		if n.maxItems != nil {
			w.p("    if (v.length > %d) {\n", *n.maxItems)
			w.fail("      ", jfq(fmt.Sprintf("must have at most %d items", *n.maxItems)))
			w.p("    }\n")
		}
		if n.items != nil && !n.items.trivial() {
			w.p("    for (let i = 0; i < v.length; i++) if ((e = %s(v[i], child(p, q, String(i)), q))) return e;\n", call(n.items))
		}
		w.p("  }\n")
	}
}

// objectChecks writes n's checks of an object: required (in the
// schema's order), then properties (by name).
func (w *jsWriter) objectChecks(n *vnode) {
	props := 0
	for _, pr := range n.props {
		if !pr.node.trivial() {
			props++
		}
	}
	if n.required != nil || props > 0 {
		w.p("  if (isObject(v)) {\n")
		for _, k := range n.required {
			w.p("    if (!Object.hasOwn(v, %s)) return missing(p, q, %s, %s);\n", jsString(k), jsString(k), jsString(missingReason(k)))
		}
		for _, pr := range n.props {
			if pr.node.trivial() {
				continue
			}
			k := jsString(pr.name)
			w.p("    if (Object.hasOwn(v, %s) && (e = %s(v[%s], child(p, q, %s), q))) return e;\n", k, call(pr.node), k, k)
		}
		w.p("  }\n")
	}
}

// combinedChecks writes n's allOf, anyOf (a failure reports the last
// branch's reason) and oneOf.
func (w *jsWriter) combinedChecks(n *vnode) {
	for _, s := range n.allOf {
		if !s.trivial() {
			w.p("  if ((e = %s(v, p, q))) return e;\n", call(s))
		}
	}
	if n.anyOf != nil && !anyTrivial(n.anyOf) {
		probes := make([]string, len(n.anyOf))
		for i, s := range n.anyOf {
			probes[i] = call(s) + "(v, p, true) !== null"
		}
		w.p("  if (%s) {\n", strings.Join(probes, " && "))
		w.p("    return %s(v, p, q); // the last branch's reason\n  }\n", call(n.anyOf[len(n.anyOf)-1]))
	}
	if n.oneOf != nil {
		probes := make([]string, len(n.oneOf))
		for i, s := range n.oneOf {
			if s.trivial() {
				probes[i] = "1"
			} else {
				probes[i] = "pass(" + call(s) + "(v, p, true))"
			}
		}
		w.p("  const passed = %s;\n  if (passed !== 1) {\n    if (q) return QUIET;\n", strings.Join(probes, " + "))
		if fields := oneOfFields(n.oneOf); fields != nil {
			req := make([]string, len(n.oneOf))
			for i, s := range n.oneOf {
				b, _ := json.Marshal(s.required)
				req[i] = string(b)
			}
			w.p("    return failOneOf(p, %s, v, [%s]);\n  }\n", jsString(oneOfReason(fields)), strings.Join(req, ", "))
		} else {
			w.p("    if (passed > 1) return fail(p, false, \"matches more than one alternative\");\n")
			w.p("    return %s(v, p, false);\n  }\n", call(n.oneOf[0]))
		}
	}
}

// conditionChecks writes n's not and if/then/else.
func (w *jsWriter) conditionChecks(n *vnode) {
	if n.not != nil {
		if n.not.trivial() {
			w.p("  {\n")
		} else {
			w.p("  if (%s(v, p, true) === null) {\n", call(n.not))
		}
		w.fail("    ", jfq(notReason(n.not)))
		w.p("  }\n")
	}
	if n.ifS != nil && !(branchTrivial(n.thenS) && branchTrivial(n.els)) {
		cond := "true"
		if !n.ifS.trivial() {
			cond = call(n.ifS) + "(v, p, true) === null"
		}
		w.p("  if (%s) {\n", cond)
		if !branchTrivial(n.thenS) {
			w.p("    if ((e = %s(v, p, q))) return e;\n", call(n.thenS))
		}
		if !branchTrivial(n.els) {
			w.p("  } else if ((e = %s(v, p, q))) {\n    return e;\n", call(n.els))
		}
		w.p("  }\n")
	}
}

// jsRuntime is goRuntime's twin: what every node's function shares.
const jsRuntime = `// A location is null (a whole message) or {u: parent, k: key}, built as
// the walk descends but turned into text only when something fails.
function child(p, q, k) {
  return q ? p : { u: p, k };
}

function where(p) {
  if (p === null) return "message";
  const parts = [];
  for (; p !== null; p = p.u) parts.unshift(p.k);
  return parts.join(".");
}

// What a quiet probe gets from a fail function: its caller needs only pass
// or fail, so no reason is built.
const QUIET = Object.freeze({ path: "", reason: "failed", missing: "" });

function fail(p, q, reason) {
  return q ? QUIET : { path: where(p), reason, missing: "" };
}

function missing(p, q, field, reason) {
  return q ? QUIET : { path: where(p), reason, missing: field };
}

const failType = (p, q, want, v) => (q ? QUIET : fail(p, q, want + typeOf(v)));

const failEnum = (p, q, want, v) => (q ? QUIET : fail(p, q, want + JSON.stringify(v)));

// The string that failed a pattern, cut to 80 UTF-16 units.
const failPattern = (p, q, s, suffix) => (q ? QUIET : fail(p, q, JSON.stringify(s.length > 80 ? s.slice(0, 80) + "…" : s) + suffix));

const pass = (e) => (e === null ? 1 : 0);

function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v; // object, string, number, boolean
}

const isObject = (v) => typeOf(v) === "object";

function hasType(v, t) {
  switch (t) {
    case "integer": return typeof v === "number" && Number.isInteger(v);
    case "number": return typeof v === "number" && Number.isFinite(v);
    default: return typeOf(v) === t;
  }
}

// JSON Schema counts string length in code points, as Go does; JS .length
// counts UTF-16 units.
function codePoints(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// How many of a oneOf's fields v has, when not one.
function failOneOf(p, want, v, branches) {
  const present = isObject(v) ? branches.filter((fields) => fields.every((k) => Object.hasOwn(v, k))).length : 0;
  const two = branches.length === 2;
  let got = "";
  if (present > 1) got = two ? " (got both)" : ` + "` (got ${present})`" + `;
  else if (present === 0) got = two ? " (got neither)" : " (got none)";
  return fail(p, false, want + got);
}
`
