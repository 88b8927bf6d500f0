package gen

import (
	"encoding/json"
	"slices"
)

func (a Action) hasParam(name string) bool {
	for _, p := range a.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (r *reader) param(name string, prop *object, required bool, where string) Param {
	if prop == nil {
		r.fail("%s: property %s must be an object", where, name)
		return Param{Name: name}
	}
	def := r.resolve(prop)
	p := Param{Name: name, Required: required}
	p.Feature, _ = prop.get("x-feature").(string)
	if p.Feature != "" && !slices.ContainsFunc(r.features(), func(f Feature) bool { return f.Name == p.Feature }) {
		r.fail("%s: property %s: x-feature %q is not one of hello's x-features", where, name, p.Feature)
	}
	p.Description, _ = prop.get("description").(string)
	if p.Description == "" {
		p.Description, _ = def.get("description").(string)
	}
	p.Kind, p.Item = r.kind(def, where, name)
	ag := prop.get("x-agent")
	if ag == nil {
		ag = def.get("x-agent")
	}
	switch ag := ag.(type) {
	case nil:
	case string:
		p.Agent = ag
	case bool:
		p.AgentSkip = !ag
	default:
		r.fail("%s: property %s: x-agent must be a string or false", where, name)
	}
	enum, _ := def.get("enum").([]any)
	for _, e := range enum {
		if es, ok := e.(string); ok {
			p.Enum = append(p.Enum, es)
		}
	}
	if p.Kind == "" && len(enum) > 0 {
		if _, ok := enum[0].(string); ok {
			p.Kind = "string"
		}
	}
	switch p.Kind {
	case "string", "integer", "boolean", "list":
	default:
		r.fail("%s: property %s must be a string, integer, boolean or a list of strings or integers, got %q", where, name, p.Kind)
	}
	for _, n := range []*object{prop, def} {
		if ex, ok := n.get("examples").([]any); ok && len(ex) > 0 {
			p.Example = ex[0]
			break
		}
	}
	switch {
	case p.Example != nil:
	case len(enum) > 0:
		p.Example = enum[0]
	case p.Kind == "integer":
		p.Example = json.Number("0")
		if min, ok := def.get("minimum").(json.Number); ok {
			p.Example = min
		}
	case p.Kind == "boolean":
		p.Example = true
	default:
		r.fail("%s: property %s needs examples", where, name)
	}
	return p
}

// kind reads a property's type: a scalar kind as is; "array" of strings or
// integers, or [X, "array"] (one X or a list of them), is a list of X.
func (r *reader) kind(def *object, where, name string) (kind, item string) {
	switch t := def.get("type").(type) {
	case string:
		if t != "array" {
			return t, ""
		}
	case []any:
		if len(t) != 2 || t[1] != "array" {
			r.fail("%s: property %s: a type list must be [X, \"array\"] (one X or a list of them)", where, name)
			return "", ""
		}
		item, _ = t[0].(string)
	default:
		return "", ""
	}
	items, _ := def.get("items").(*object)
	it, _ := items.get("type").(string)
	if item == "" {
		item = it
	}
	if (item != "string" && item != "integer") || it != item {
		r.fail("%s: property %s: a list's items must all be strings or all integers, of the same type as a single item", where, name)
	}
	return "list", item
}
