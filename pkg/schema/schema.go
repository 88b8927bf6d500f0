// Package schema interprets the subset of JSON Schema (draft 2020-12) that
// bua's protocol schema uses: type, enum, const, required, properties,
// items, minimum/maximum, minLength/maxLength, minItems/maxItems, pattern,
// allOf/anyOf/oneOf/not, if/then/else and local $ref.
//
// It is the Go twin of extension/src/validator.js, line for line: the same
// keywords, the same first-error-wins order and the same messages, so the
// daemon and the extension refuse a message for the same reason in the same
// words. Compile refuses any keyword outside the subset, so a schema edit
// can never be silently ignored on one side. Compiling takes well under a
// millisecond, which keeps every bua command's start-up cheap.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// annotations are keywords that do not constrain values.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "default": true,
	"$defs": true, "examples": true, "$comment": true,
}

var supported = map[string]bool{
	"type": true, "enum": true, "const": true, "required": true, "properties": true, "items": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "minItems": true,
	"maxItems": true, "pattern": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true, "$ref": true,
}

// node is one compiled schema. Properties are checked in sorted name order
// on both sides (JavaScript sorts too), so when several fail, both report
// the same one first.
type node struct {
	boolean *bool  // a true/false schema
	message string // x-message: replaces generic wording when this node fails

	ref                  string
	types                []string
	constant             any
	hasConst             bool
	enum                 []any
	required             []string
	propNames            []string
	props                map[string]*node
	items                *node
	minimum, maximum     *float64
	minLength, maxLength *int
	minItems, maxItems   *int
	pattern              string
	re                   *regexp.Regexp
	allOf, anyOf, oneOf  []*node
	not, ifS, thenS, els *node
	defs                 map[string]*node
}

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	root *node
	at   *node // the node Validate starts from (the root, or a $ref target)
	base *loc  // the name of what Validate checks; nil reads "message"
}

// Compile parses a schema document. It fails on malformed JSON, a keyword
// outside the subset, a bad pattern or an unresolvable $ref.
func Compile(doc []byte) (*Schema, error) {
	var tree any
	if err := json.Unmarshal(doc, &tree); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	root, err := parse(tree)
	if err != nil {
		return nil, err
	}
	s := &Schema{root: root, at: root}
	if err := s.checkRefs(root, map[*node]bool{}); err != nil {
		return nil, err
	}
	return s, nil
}

// Sub returns the schema at a local reference such as "#/$defs/action",
// sharing this one's definitions. Its messages name the checked value
// name ("action: ...", "action.url: ..."), as they would read inside a
// whole message.
func (s *Schema) Sub(ref, name string) (*Schema, error) {
	n, err := s.resolve(ref)
	if err != nil {
		return nil, err
	}
	return &Schema{root: s.root, at: n, base: &loc{key: name}}, nil
}

func (s *Schema) resolve(ref string) (*node, error) {
	if ref == "#" {
		return s.root, nil
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || strings.Contains(name, "/") {
		return nil, fmt.Errorf("schema: only #/$defs/NAME references are supported, got %s", ref)
	}
	name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
	n := s.root.defs[name]
	if n == nil {
		return nil, fmt.Errorf("schema: unresolvable $ref %s", ref)
	}
	return n, nil
}

func (s *Schema) checkRefs(n *node, seen map[*node]bool) error {
	if n == nil || seen[n] {
		return nil
	}
	seen[n] = true
	if n.ref != "" {
		if _, err := s.resolve(n.ref); err != nil {
			return err
		}
	}
	kids := []*node{n.items, n.not, n.ifS, n.thenS, n.els}
	kids = append(kids, n.allOf...)
	kids = append(kids, n.anyOf...)
	kids = append(kids, n.oneOf...)
	for _, k := range n.propNames {
		kids = append(kids, n.props[k])
	}
	for _, d := range n.defs {
		kids = append(kids, d)
	}
	for _, k := range kids {
		if err := s.checkRefs(k, seen); err != nil {
			return err
		}
	}
	return nil
}

func parse(v any) (*node, error) {
	if b, ok := v.(bool); ok {
		return &node{boolean: &b}, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: a schema must be an object or a boolean, got %T", v)
	}
	n := &node{}
	list := func(k string, v any) ([]*node, error) {
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("schema: %s must be an array", k)
		}
		out := make([]*node, len(items))
		for i, it := range items {
			var err error
			if out[i], err = parse(it); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	intOf := func(k string, v any) (*int, error) {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Errorf("schema: %s must be an integer", k)
		}
		i := int(f)
		return &i, nil
	}
	for _, k := range sortedKeys(o) {
		v := o[k]
		var err error
		switch {
		case k == "x-message":
			var ok bool
			if n.message, ok = v.(string); !ok {
				err = fmt.Errorf("schema: x-message must be a string")
			}
		case strings.HasPrefix(k, "x-") || (annotations[k] && k != "$defs"):
		case k != "$defs" && !supported[k]:
			err = fmt.Errorf("schema: unsupported keyword %s", k)
		case k == "$ref":
			n.ref, _ = v.(string)
		case k == "type":
			switch t := v.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, e := range t {
					s, _ := e.(string)
					n.types = append(n.types, s)
				}
			}
		case k == "const":
			n.hasConst, n.constant = true, v
		case k == "enum":
			n.enum, _ = v.([]any)
		case k == "required":
			for _, e := range v.([]any) {
				s, _ := e.(string)
				n.required = append(n.required, s)
			}
		case k == "properties" || k == "$defs":
			po, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schema: %s must be an object", k)
			}
			names := sortedKeys(po)
			m := make(map[string]*node, len(names))
			for _, name := range names {
				if m[name], err = parse(po[name]); err != nil {
					return nil, err
				}
			}
			if k == "properties" {
				n.propNames, n.props = names, m
			} else {
				n.defs = m
			}
		case k == "items":
			n.items, err = parse(v)
		case k == "not":
			n.not, err = parse(v)
		case k == "if":
			n.ifS, err = parse(v)
		case k == "then":
			n.thenS, err = parse(v)
		case k == "else":
			n.els, err = parse(v)
		case k == "allOf":
			n.allOf, err = list(k, v)
		case k == "anyOf":
			n.anyOf, err = list(k, v)
		case k == "oneOf":
			n.oneOf, err = list(k, v)
		case k == "minimum" || k == "maximum":
			f, ok := v.(float64)
			if !ok {
				err = fmt.Errorf("schema: %s must be a number", k)
			} else if k == "minimum" {
				n.minimum = &f
			} else {
				n.maximum = &f
			}
		case k == "minLength":
			n.minLength, err = intOf(k, v)
		case k == "maxLength":
			n.maxLength, err = intOf(k, v)
		case k == "minItems":
			n.minItems, err = intOf(k, v)
		case k == "maxItems":
			n.maxItems, err = intOf(k, v)
		case k == "pattern":
			n.pattern, _ = v.(string)
			if n.re, err = regexp.Compile(n.pattern); err != nil {
				err = fmt.Errorf("schema: pattern %q: %v", n.pattern, err)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Validate checks a decoded JSON value (as encoding/json decodes into any:
// map[string]any, []any, float64, string, bool, nil) and returns nil or a
// *Error naming the first failure; its text is "path: reason".
func (s *Schema) Validate(v any) error {
	if e := s.validate(s.at, v, s.base, false); e != nil {
		return e
	}
	return nil
}

// ValidateJSON decodes data and validates it, returning the decoded value
// so callers need not parse it again. Malformed JSON is an *Error too.
func (s *Schema) ValidateJSON(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, &Error{Reason: "message is not JSON: " + err.Error()}
	}
	return v, s.Validate(v)
}

// Error is a validation failure. Its text, "Path: Reason", is the same text
// the extension's validator produces for the same value (the shared vectors
// in testdata/protocol/messages.json pin it).
type Error struct {
	// Path is the dotted location of the failing value: "message" for the
	// whole value a root schema checks, or the name given to Sub ("action"),
	// then property names and array indices ("action.url", "list.1"). It is
	// empty only when the input was not JSON at all.
	Path string
	// Reason is what is wrong there, such as "must be string, got number"
	// or `missing required field "url"`.
	Reason string
	// Missing is the absent property's name when Reason is a missing
	// required field, else "".
	Missing string
}

// Error returns "Path: Reason", or Reason alone when Path is empty.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

func typeOf(v any) string {
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
	return fmt.Sprintf("%T", v)
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "number":
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return typeOf(v) == t
}

func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// loc is where a value sits, built as the walk descends but turned into
// text only when something fails, so a valid message costs no strings.
type loc struct {
	parent *loc
	key    string
}

// childIf descends to key k, or stays put when no message will be built.
func (l *loc) childIf(build bool, k string) *loc {
	if !build {
		return l
	}
	return &loc{l, k}
}

func where(l *loc) string {
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

// stringify is JSON.stringify: no HTML escaping.
func stringify(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func (s *Schema) validate(n *node, v any, path *loc, quiet bool) *Error {
	if n.message != "" {
		if s.check(n, v, path, true) != nil {
			if quiet {
				return failed
			}
			return &Error{Path: where(path), Reason: n.message}
		}
		return nil
	}
	return s.check(n, v, path, quiet)
}

// failed is what a quiet probe returns: the caller needs only pass/fail.
var failed = &Error{Reason: "failed"}

func (s *Schema) check(n *node, v any, path *loc, quiet bool) *Error {
	// fail reports one failure; a quiet probe only needs to know it failed,
	// so the message is built only when it will be read.
	fail := func(msg func() string) *Error {
		if quiet {
			return failed
		}
		return &Error{Path: where(path), Reason: msg()}
	}
	if n.boolean != nil {
		if *n.boolean {
			return nil
		}
		return fail(func() string { return "not allowed" })
	}
	if n.ref != "" {
		target, _ := s.resolve(n.ref) // checked at Compile
		if e := s.validate(target, v, path, quiet); e != nil {
			return e
		}
	}
	if n.types != nil {
		ok := false
		for _, t := range n.types {
			ok = ok || hasType(v, t)
		}
		if !ok {
			return fail(func() string { return fmt.Sprintf("must be %s, got %s", strings.Join(n.types, " or "), typeOf(v)) })
		}
	}
	if n.hasConst && !deepEqual(v, n.constant) {
		return fail(func() string { return fmt.Sprintf("must be %s", stringify(n.constant)) })
	}
	if n.enum != nil {
		ok := false
		for _, e := range n.enum {
			ok = ok || deepEqual(v, e)
		}
		if !ok {
			return fail(func() string {
				quoted := make([]string, len(n.enum))
				for i, e := range n.enum {
					quoted[i] = stringify(e)
				}
				return fmt.Sprintf("must be one of %s, got %s", strings.Join(quoted, ", "), stringify(v))
			})
		}
	}
	switch x := v.(type) {
	case string:
		if n.minLength != nil || n.maxLength != nil {
			count := utf8.RuneCountInString(x) // code points, as JSON Schema counts
			if n.minLength != nil && count < *n.minLength {
				return fail(func() string { return fmt.Sprintf("must be at least %d characters", *n.minLength) })
			}
			if n.maxLength != nil && count > *n.maxLength {
				return fail(func() string { return fmt.Sprintf("must be at most %d characters", *n.maxLength) })
			}
		}
		if n.re != nil && !n.re.MatchString(x) {
			return fail(func() string {
				shown := x
				if utf8.RuneCountInString(x) > 80 {
					shown = string([]rune(x)[:80]) + "…"
				}
				return fmt.Sprintf("%s does not match %s", stringify(shown), n.pattern)
			})
		}
	case float64:
		if n.minimum != nil && x < *n.minimum {
			return fail(func() string { return fmt.Sprintf("must be >= %s", num(*n.minimum)) })
		}
		if n.maximum != nil && x > *n.maximum {
			return fail(func() string { return fmt.Sprintf("must be <= %s", num(*n.maximum)) })
		}
	case []any:
		if n.minItems != nil && len(x) < *n.minItems {
			return fail(func() string { return fmt.Sprintf("must have at least %d items", *n.minItems) })
		}
		if n.maxItems != nil && len(x) > *n.maxItems {
			return fail(func() string { return fmt.Sprintf("must have at most %d items", *n.maxItems) })
		}
		if n.items != nil {
			for i, item := range x {
				if e := s.validate(n.items, item, path.childIf(!quiet, strconv.Itoa(i)), quiet); e != nil {
					return e
				}
			}
		}
	case map[string]any:
		for _, k := range n.required {
			if _, ok := x[k]; !ok {
				e := fail(func() string { return fmt.Sprintf("missing required field %s", stringify(k)) })
				if !quiet {
					e.Missing = k
				}
				return e
			}
		}
		for _, k := range n.propNames {
			if pv, ok := x[k]; ok {
				if e := s.validate(n.props[k], pv, path.childIf(!quiet, k), quiet); e != nil {
					return e
				}
			}
		}
	}
	for _, sub := range n.allOf {
		if e := s.validate(sub, v, path, quiet); e != nil {
			return e
		}
	}
	if n.anyOf != nil {
		ok := false
		for _, sub := range n.anyOf {
			ok = ok || s.validate(sub, v, path, true) == nil
		}
		if !ok {
			if quiet {
				return failed
			}
			return s.validate(n.anyOf[len(n.anyOf)-1], v, path, false) // JS reports the last branch's error
		}
	}
	if n.oneOf != nil {
		passed := 0
		for _, sub := range n.oneOf {
			if s.validate(sub, v, path, true) == nil {
				passed++
			}
		}
		if passed != 1 {
			if quiet {
				return failed
			}
			return s.oneOfMessage(n.oneOf, v, path, passed)
		}
	}
	if n.not != nil && s.validate(n.not, v, path, true) == nil {
		return fail(func() string { return fmt.Sprintf("must not match %s", describeNot(n.not)) })
	}
	if n.ifS != nil {
		branch := n.thenS
		if s.validate(n.ifS, v, path, true) != nil {
			branch = n.els
		}
		if branch != nil {
			if e := s.validate(branch, v, path, quiet); e != nil {
				return e
			}
		}
	}
	return nil
}

func describeNot(n *node) string {
	if len(n.required) > 0 {
		return "having " + strings.Join(n.required, ", ")
	}
	return "the excluded shape"
}

// oneOfMessage: oneOf in the protocol always means "exactly one of these
// fields", so it says that rather than listing each branch's failure.
func (s *Schema) oneOfMessage(branches []*node, v any, path *loc, passed int) *Error {
	fields := make([]string, len(branches))
	all := true
	for i, b := range branches {
		if len(b.required) == 0 {
			all = false
			break
		}
		fields[i] = strings.Join(b.required, "+")
	}
	if all {
		present := 0
		if obj, ok := v.(map[string]any); ok {
			for _, b := range branches {
				has := true
				for _, k := range b.required {
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
			got = fmt.Sprintf(" (got %d)", present)
		case present == 0 && len(branches) == 2:
			got = " (got neither)"
		case present == 0:
			got = " (got none)"
		}
		list := strings.Join(fields[:len(fields)-1], ", ") + " or " + fields[len(fields)-1]
		return &Error{Path: where(path), Reason: fmt.Sprintf("needs exactly one of %s%s", list, got)}
	}
	if passed > 1 {
		return &Error{Path: where(path), Reason: "matches more than one alternative"}
	}
	return s.validate(branches[0], v, path, false)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
