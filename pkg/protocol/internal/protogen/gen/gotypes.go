package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The wire types of package protocol, generated from the schema's object
// nodes as rod's lib/proto is from the DevTools protocol. The schema says
// the fields, their JSON names, types, which are required and what they
// mean; what it cannot say is written in goStructs and goEnums
// (gotypes_table.go): the Go names of types (OKResult is one Go type for
// four result defs), the few fields whose Go type is not the one the rules
// below give, and the Go names of enum values that camel case would
// garble.
//
// The rules, for a field of a struct:
//   - a property the struct's first node requires is a value (the other
//     nodes of a merged struct add optional parts);
//   - an optional object is a pointer to its struct, an optional array a
//     slice (nil: absent);
//   - an optional boolean is a value when the schema gives it "default":
//     false or a const (absent reads as false), else a pointer, since
//     false and absent differ (visible: false hides an element);
//   - an optional integer is a pointer when it is a $ref to a def (tabId,
//     nth: identifiers where 0 is one), or in a struct with PointerInts
//     (Action: a caller may mean any value it sets), else a value;
//   - an optional string is a value ("" reads as absent), unless goStruct
//     lists it in Pointers;
//   - the field is omitted from JSON when absent: omitempty, or omitzero
//     for lists in a struct with ListsOmitZero (an empty list is a value).

// initialisms are written in capitals in Go names.
var initialisms = map[string]string{"id": "ID", "url": "URL", "uid": "UID", "sha256": "SHA256", "mime": "MIME", "ok": "OK"}

// goName turns a JSON name such as tabId, dataUrl or sha256 into TabID,
// DataURL, SHA256.
func goName(s string) string {
	var words []string
	start := 0
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			words = append(words, s[start:i])
			start = i
		}
	}
	words = append(words, s[start:])
	var b strings.Builder
	for _, w := range words {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// typesWriter writes the wire types.
type typesWriter struct {
	root    *object
	b       bytes.Buffer
	structs map[*object]string // node -> its struct's name
	enums   map[*object]*goEnum
	err     error
}

func (w *typesWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
	}
}

func (w *typesWriter) p(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// node finds a node by its path: "def", then properties/NAME and items.
func (w *typesWriter) node(path string) *object {
	parts := strings.Split(path, "/")
	defs, _ := w.root.get("$defs").(*object)
	n, _ := defs.get(parts[0]).(*object)
	for _, p := range parts[1:] {
		if n == nil {
			break
		}
		n, _ = n.get(p).(*object)
	}
	if n == nil {
		w.fail("no schema node %s", path)
		return &object{m: map[string]any{}}
	}
	return n
}

func (w *typesWriter) resolve(n *object) (*object, string) {
	if ref, ok := n.get("$ref").(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return w.node(name), name
	}
	return n, ""
}

// GoTypes renders package protocol's wire types (types_gen.go).
func GoTypes(doc []byte) ([]byte, error) {
	root, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	w := &typesWriter{root: root.(*object), structs: map[*object]string{}, enums: map[*object]*goEnum{}}
	for _, s := range goStructs {
		for _, n := range s.Nodes {
			w.structs[w.node(n)] = s.Name
		}
		if s.Union != "" {
			w.structs[w.node(s.Union)] = s.Name
		}
	}
	for i := range goEnums {
		w.enums[w.node(goEnums[i].Node)] = &goEnums[i]
	}
	for _, s := range goStructs {
		w.writeStruct(s)
	}
	for i := range goEnums {
		w.writeEnum(&goEnums[i])
	}
	if w.err != nil {
		return nil, w.err
	}
	body := w.b.String()
	var imports []string
	for _, pkg := range []string{"encoding/json", "fmt"} {
		if strings.Contains(body, pkg[strings.LastIndex(pkg, "/")+1:]+".") {
			imports = append(imports, strconv.Quote(pkg))
		}
	}
	head := fmt.Sprintf("// %s\n\npackage protocol\n\nimport (\n%s\n)\n\n", Header, strings.Join(imports, "\n"))
	return format.Source([]byte(head + body))
}

// field is one property of a struct, merged from its nodes.
type field struct {
	json string
	prop *object
	ref  string // the def it $refs, if any
	// required: the struct's first node requires it (the struct's main
	// shape; the others add optional parts).
	required bool
	descs    []string
	from     [][]string // the actions (Union) each of descs came from
	in       []string   // the actions (Union) that have it
}

func (w *typesWriter) fields(s goStruct) []*field {
	var nodes []*object
	var names []string // a node's action name, for a union
	for _, n := range s.Nodes {
		nodes = append(nodes, w.node(n))
		names = append(names, "")
	}
	if s.Union != "" {
		union := w.node(s.Union)
		nodes = append(nodes, union)
		names = append(names, "")
		branches, _ := union.get("allOf").([]any)
		for _, b := range branches {
			bo, _ := b.(*object)
			ref, _ := bo.path("then", "$ref").(string)
			def := strings.TrimPrefix(ref, "#/$defs/")
			nodes = append(nodes, w.node(def))
			names = append(names, strings.TrimPrefix(def, s.Union+"."))
		}
	}
	var out []*field
	by := map[string]*field{}
	for i, n := range nodes {
		req := map[string]bool{}
		if r, ok := n.get("required").([]any); ok {
			for _, x := range r {
				s, _ := x.(string)
				req[s] = true
			}
		}
		props, _ := n.get("properties").(*object)
		if props == nil {
			continue
		}
		for _, k := range props.keys {
			prop, _ := props.get(k).(*object)
			f := by[k]
			if f == nil {
				f = &field{json: k, prop: prop}
				_, f.ref = w.resolve(prop)
				by[k] = f
				out = append(out, f)
			}
			if i == 0 && req[k] {
				f.required = true
			}
			if names[i] != "" {
				f.in = append(f.in, names[i])
			}
			desc, _ := prop.get("description").(string)
			if desc == "" {
				if def, _ := w.resolve(prop); def != prop {
					desc, _ = def.get("description").(string)
				}
			}
			if desc == "" {
				continue
			}
			if j := slices.Index(f.descs, desc); j >= 0 {
				f.from[j] = append(f.from[j], names[i])
			} else {
				f.descs = append(f.descs, desc)
				f.from = append(f.from, []string{names[i]})
			}
		}
	}
	// A union's tabId comes first after type, as a caller reads it.
	if s.Union != "" {
		for i, f := range out {
			if f.json == "tabId" && i > 1 {
				out = append(out[:i], out[i+1:]...)
				out = slices.Insert(out, 1, f)
				break
			}
		}
	}
	return out
}

func (w *typesWriter) writeStruct(s goStruct) {
	w.p("%s\ntype %s struct {\n", comment(s.Name+" "+s.Doc, ""), s.Name)
	for _, f := range w.fields(s) {
		name := goName(f.json)
		if n, ok := s.Names[f.json]; ok {
			name = n
		}
		optional := !f.required
		typ := w.goType(s, f, optional)
		tag := f.json
		if optional {
			if s.ListsOmitZero && (strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "OneOrMany")) {
				tag += ",omitzero"
			} else {
				tag += ",omitempty"
			}
		}
		if doc := w.fieldDoc(s, f); doc != "" {
			w.p("%s\n", comment(doc, "\t"))
		}
		w.p("\t%s %s `json:%q`\n", name, typ, tag)
	}
	w.p("}\n\n")
}

func (w *typesWriter) fieldDoc(s goStruct, f *field) string {
	if len(f.descs) == 0 {
		return ""
	}
	if s.Union == "" || len(f.descs) == 1 && len(f.from[0]) == len(f.in) {
		return f.descs[0]
	}
	parts := make([]string, len(f.descs))
	for i, d := range f.descs {
		parts[i] = strings.Join(f.from[i], ", ") + ": " + d
	}
	return strings.Join(parts, " ")
}

// goType is a field's Go type by the rules at the top of this file.
func (w *typesWriter) goType(s goStruct, f *field, optional bool) string {
	if t, ok := s.Types[f.json]; ok {
		return t
	}
	def, ref := w.resolve(f.prop)
	var base string
	switch {
	case w.structs[def] != "":
		base = w.structs[def]
		if optional {
			return "*" + base
		}
		return base
	case handTypes[ref] != "":
		base = handTypes[ref]
	default:
		base = w.valueType(def)
	}
	if !optional || strings.HasPrefix(base, "*") {
		return base
	}
	switch base {
	case "bool":
		if def.get("const") != nil || def.get("default") == false {
			return base
		}
		return "*bool"
	case "int":
		if ref != "" || s.PointerInts {
			return "*int"
		}
	case "string":
		if slices.Contains(s.Pointers, f.json) {
			return "*string"
		}
	}
	return base
}

// valueType is a node's Go type, pointer rules aside.
func (w *typesWriter) valueType(n *object) string {
	if e := w.enums[n]; e != nil && e.Type != "" {
		return e.Type
	}
	if name := w.structs[n]; name != "" {
		return name
	}
	if def, ref := w.resolve(n); ref != "" {
		if t, ok := handTypes[ref]; ok {
			return t
		}
		return w.valueType(def)
	}
	switch t := n.get("type").(type) {
	case string:
		switch t {
		case "string":
			return "string"
		case "integer":
			return "int"
		case "number":
			return "float64"
		case "boolean":
			return "bool"
		case "array":
			items, _ := n.get("items").(*object)
			if items == nil {
				w.fail("an array with no items schema")
				return "[]any"
			}
			return "[]" + w.valueType(items)
		case "object":
			w.fail("an object property with no Go struct: name it in goStructs")
			return "map[string]any"
		}
	case []any:
		if len(t) == 2 && t[1] == "array" {
			items, _ := n.get("items").(*object)
			return "OneOrMany[" + w.valueType(items) + "]"
		}
	}
	if c, ok := n.get("const").(bool); ok && c {
		return "bool"
	}
	if _, ok := n.get("const").(string); ok {
		return "string"
	}
	if enum, ok := n.get("enum").([]any); ok && len(enum) > 0 {
		for _, e := range enum {
			if _, ok := e.(string); !ok {
				w.fail("an enum of more than strings needs a goEnums entry with a Type")
			}
		}
		return "string"
	}
	if len(n.keys) == 0 || onlyAnnotations(n) {
		return "any"
	}
	w.fail("cannot type schema node %v", n.keys)
	return "any"
}

func onlyAnnotations(n *object) bool {
	for _, k := range n.keys {
		if k != "description" && !strings.HasPrefix(k, "x-") {
			return false
		}
	}
	return true
}

func (w *typesWriter) writeEnum(e *goEnum) {
	n := w.node(e.Node)
	values, _ := n.get("enum").([]any)
	if len(values) == 0 {
		w.fail("%s: no enum", e.Node)
		return
	}
	typ := e.Type
	if typ != "" {
		w.p("%s\ntype %s string\n\n", comment(typ+" "+e.Doc, ""), typ)
		w.p("// The values of %s.\n", typ)
	} else {
		w.p("%s\n", comment(e.Doc, ""))
	}
	names := make([]string, len(values))
	mixed := false
	for i, v := range values {
		text := fmt.Sprint(v)
		if _, ok := v.(string); !ok {
			mixed = true
		}
		names[i] = e.Prefix + goName(strings.ReplaceAll(camel(text), " ", ""))
		if n, ok := e.Names[text]; ok {
			names[i] = n
		}
	}
	w.p("const (\n")
	for i, v := range values {
		if typ != "" {
			w.p("\t%s %s = %q\n", names[i], typ, fmt.Sprint(v))
		} else {
			w.p("\t%s = %q\n", names[i], fmt.Sprint(v))
		}
	}
	w.p(")\n\n")
	if e.List != "" {
		w.p("// %s are the values in the schema's order.\nvar %s = []string{%s}\n\n", e.List, e.List, strings.Join(names, ", "))
	}
	if mixed {
		parts := strings.Split(e.Node, "/")
		w.mixedJSON(typ, parts[len(parts)-1], values, names)
	}
}

// mixedJSON writes the JSON methods of an enum whose values are not all
// strings: each constant holds its value's JSON text, written back raw.
func (w *typesWriter) mixedJSON(typ, prop string, values []any, names []string) {
	quoted := make([]string, len(values))
	for i, val := range values {
		quoted[i] = stringify(val)
	}
	list := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	w.p("// MarshalJSON writes %s.\nfunc (v %s) MarshalJSON() ([]byte, error) {\n\tswitch v {\n", list, typ)
	for i := range values {
		w.p("\tcase %s:\n\t\treturn []byte(%s), nil\n", names[i], strconv.Quote(quoted[i]))
	}
	w.p("\t}\n\treturn nil, fmt.Errorf(\"%s %%q is not %s\", string(v))\n}\n\n", typ, strings.ReplaceAll(list, `"`, `\"`))
	w.p("// UnmarshalJSON reads %s; anything else is an error.\nfunc (v *%s) UnmarshalJSON(b []byte) error {\n\tvar x any\n\tif err := json.Unmarshal(b, &x); err != nil {\n\t\treturn err\n\t}\n\tswitch x {\n", list, typ)
	for i, val := range values {
		w.p("\tcase %s:\n\t\t*v = %s\n", goScalar(val), names[i])
	}
	w.p("\tdefault:\n\t\treturn fmt.Errorf(\"%s must be %s, got %%s\", b)\n\t}\n\treturn nil\n}\n\n", prop, strings.ReplaceAll(list, `"`, `\"`))
}

// comment wraps text as a // comment at about 76 columns.
func comment(text, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(indent)+3+len(line)+1+len(word) > 78 {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	for i, l := range lines {
		lines[i] = indent + "// " + l
	}
	return strings.Join(lines, "\n")
}
