package gen

import (
	"fmt"
	"go/format"
	"strings"
)

// goTypeFiles renders types_gen.go (GoTypes) and actionfields_gen.go
// (ActionFieldsGo), both from the wire types.
func goTypeFiles(doc []byte) (types, fields []byte, err error) {
	if types, err = GoTypes(doc); err != nil {
		return nil, nil, err
	}
	fields, err = ActionFieldsGo(doc)
	return types, fields, err
}

// ActionFieldsGo renders actionfields_gen.go: Action's field method, a
// pointer to the field of each param by its JSON name, through which
// protocol.ActionFrom sets an action's params from loose input without a
// JSON round trip. It reads the fields as GoTypes writes them (the action
// union flattened, goStructs' names), so the two cannot part ways.
func ActionFieldsGo(doc []byte) ([]byte, error) {
	root, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	w := &typesWriter{root: root.(*object), structs: map[*object]string{}, enums: map[*object]*goEnum{}}
	var s goStruct
	for _, g := range goStructs {
		if g.Union == "action" {
			s = g
		}
	}
	if s.Name == "" {
		return nil, fmt.Errorf("goStructs has no struct for the action union")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n\npackage protocol\n\n", Header)
	b.WriteString("// field is a pointer to the field of a that holds the param named\n")
	b.WriteString("// name (its JSON name), or nil when no action has that param; type is\n")
	b.WriteString("// no param. ActionFrom sets params through it.\n")
	fmt.Fprintf(&b, "func (a *%s) field(name string) any {\n\tswitch name {\n", s.Name)
	for _, f := range w.fields(s) {
		if f.json == "type" {
			continue
		}
		name := goName(f.json)
		if n, ok := s.Names[f.json]; ok {
			name = n
		}
		fmt.Fprintf(&b, "\tcase %q:\n\t\treturn &a.%s\n", f.json, name)
	}
	b.WriteString("\t}\n\treturn nil\n}\n")
	if w.err != nil {
		return nil, w.err
	}
	return format.Source([]byte(b.String()))
}
