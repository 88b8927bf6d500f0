package flow

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/roletarget"
)

// stepParams lists the params a step of spec's action may set, from the
// schema (protocol.ActionSpecs): "target" (a uid or a CSS selector, read by
// protocol.ParseTarget) first for actions that take uid-or-selector.
func stepParams(spec *protocol.ActionSpec) []string {
	var out []string
	if spec.Target {
		out = append(out, "target")
	}
	for _, p := range spec.Params {
		out = append(out, p.Name)
	}
	return out
}

// placeholder stands for an expression param during load-time validation:
// the schema's example of the param, so only the step's shape is checked.
func placeholder(spec *protocol.ActionSpec, name string) any {
	if name == "target" {
		name = "selector"
	}
	p, _ := spec.Param(name)
	return p.Example
}

// actionStep reads a step of action typ (key k, value v): its params as
// templates, its obstacles override (extract), then, unless a param was
// wrong already, its target and its shape against the protocol schema.
func (fs *fileScope) actionStep(meta StepMeta, typ protocol.ActionType, k, v *yaml.Node, obst [2]*yaml.Node) Step {
	spec := protocol.ActionSpecs[typ]
	st := &ActionStep{StepMeta: meta, Type: typ}
	nodes := map[string]*yaml.Node{}
	bad, ok := fs.actionParams(st, spec, v, nodes)
	if !ok {
		return nil
	}
	if obst[1] != nil {
		p := fs.obstacles(obst[1], ObstaclePolicy{})
		st.Obstacles = &p
	}
	if bad || !fs.checkTarget(st, spec, v, nodes) {
		return st
	}
	fs.validateAction(st, spec, k, nodes)
	return st
}

// actionParams reads v, a step's value, into st.Params: nothing, the
// action's shorthand param, or a mapping of params; nodes gets each
// param's node. bad says a param was reported; ok false, that the value
// is no step at all.
func (fs *fileScope) actionParams(st *ActionStep, spec *protocol.ActionSpec, v *yaml.Node, nodes map[string]*yaml.Node) (bad, ok bool) {
	typ := st.Type
	params := stepParams(spec)
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		// `get_tabs:` with nothing: no params.
	case v.Kind == yaml.ScalarNode:
		if spec.Shorthand == "" {
			fs.errf(v, "%s takes a mapping of params (expected e.g. %s), not a scalar", typ, MappingExample(spec))
			return false, false
		}
		st.Params = append(st.Params, Param{Name: spec.Shorthand, Value: fs.template(v, string(typ))})
		nodes[spec.Shorthand] = v
	case v.Kind == yaml.MappingNode:
		for _, kv := range fs.pairs(v) {
			name := kv[0].Value
			if !slices.Contains(params, name) {
				fs.errf(kv[0], "%s has no param %q (expected %s)", typ, name, paramList(params))
				bad = true
				continue
			}
			before := len(fs.l.diags)
			st.Params = append(st.Params, Param{Name: name, Value: fs.paramValue(spec, name, kv[1], string(typ)+"."+name)})
			bad = bad || len(fs.l.diags) > before // said already: no schema echo of it
			nodes[name] = kv[1]
		}
	default:
		fs.errf(v, "%s: expected a scalar or a mapping of params, got %s", typ, kindName(v))
		return false, false
	}
	return bad, true
}

// checkTarget reports a step of an action that takes a target without
// exactly one (uid, selector, role or target), and a wrong role target.
func (fs *fileScope) checkTarget(st *ActionStep, spec *protocol.ActionSpec, v *yaml.Node, nodes map[string]*yaml.Node) bool {
	if !spec.Target {
		return true
	}
	n := 0
	for _, f := range []string{"target", "uid", "selector", "role"} {
		if nodes[f] != nil {
			n++
		}
	}
	switch {
	case n == 0 && spec.TargetOptional:
		// wait_for with text or url only: the schema check below
		// says when none of them is there.
	case n != 1:
		fs.errf(v, "%s needs exactly one target: uid, selector, role (with name and nth) or target (a uid like e12 or a CSS selector), got %d", st.Type, n)
		return false
	case !fs.checkRoleTarget(st.Type, st.Params, nodes):
		return false
	}
	return true
}

// validateAction validates the step's shape against the protocol schema,
// with a placeholder of the right type standing in for each expression,
// and reports the first problem at the param it is about (else at k).
func (fs *fileScope) validateAction(st *ActionStep, spec *protocol.ActionSpec, k *yaml.Node, nodes map[string]*yaml.Node) {
	typ := st.Type
	raw := map[string]any{"type": string(typ)}
	for _, p := range st.Params {
		var val any
		if p.Value.IsLiteral() {
			val = p.Value.Lit
		} else {
			val = placeholder(spec, p.Name)
		}
		if p.Name == "target" {
			s, ok := val.(string)
			if !ok {
				fs.errf(nodes["target"], "%s: target is a uid (e12) or a CSS selector string, got %v", typ, val)
				return
			}
			t := protocol.ParseTarget(s)
			if t.UID != "" {
				raw["uid"] = t.UID
			} else {
				raw["selector"] = t.Selector
			}
			continue
		}
		if ps, _ := spec.Param(p.Name); ps.Kind == protocol.KindList {
			val = AsList(val)
			if typ == protocol.ActionUpload && p.Name == "files" {
				val = ResolvePaths(fs.file, val.([]any))
			}
		}
		raw[p.Name] = val
	}
	data, _ := json.Marshal(raw)
	if err := protocol.ValidateAction(data); err != nil {
		fs.schemaError(typ, k, nodes, err)
	}
}

// schemaError reports the schema's verdict on a step's action at the
// param it names, in the step's words.
func (fs *fileScope) schemaError(typ protocol.ActionType, k *yaml.Node, nodes map[string]*yaml.Node, err *protocol.Error) {
	at, msg := k, err.Message
	if se := err.Schema; se != nil {
		// The validator names fields from the action (Path
		// "action.url"); a flow author wrote them as the step's params.
		field := strings.TrimPrefix(strings.TrimPrefix(se.Path, "action"), ".")
		param, _, _ := strings.Cut(field, ".") // "index.1": the list's node
		if n, ok := nodes[param]; ok {
			at = n
		} else if (field == "uid" || field == "selector") && nodes["target"] != nil {
			at = nodes["target"]
		}
		switch {
		case se.Missing != "":
			msg = "missing param " + se.Missing
		case field == "":
			msg = se.Reason
		default:
			msg = field + ": " + se.Reason
		}
	}
	fs.errf(at, "%s: invalid params: %s", typ, msg)
}

// paramValue reads a param's YAML value: a list param (protocol.KindList)
// may be a YAML list, whose items are templates each; anything else, and a
// list param's single item, is one template.
func (fs *fileScope) paramValue(spec *protocol.ActionSpec, name string, n *yaml.Node, what string) *expr.Template {
	p, _ := spec.Param(name)
	if p.Kind != protocol.KindList || n.Kind != yaml.SequenceNode {
		return fs.template(n, what)
	}
	t := &expr.Template{Items: []*expr.Template{}}
	lits := []any{}
	for i, item := range n.Content {
		it := fs.template(item, fmt.Sprintf("%s[%d]", what, i))
		t.Items = append(t.Items, it)
		if it.IsLiteral() {
			lits = append(lits, it.Lit)
		}
	}
	if len(lits) == len(t.Items) {
		t.Lit = lits
	}
	return t
}

// AsList is v as a list: one item stands for a list of one, as
// protocol.ActionFrom reads a list param (protocol.ParamList).
func AsList(v any) []any { return protocol.ParamList(v) }

// ResolvePaths makes upload's relative paths absolute against the
// directory of the flow file that names them (the working directory for a
// flow with no file), as a person reading the flow would expect.
// "Absolute" is the OS's (filepath.IsAbs, filepath.Abs): C:\x and
// \\server\share\x on Windows, /x elsewhere. A Windows path that is
// neither, but names a drive (C:x) or the root (\x, /x), is the current
// drive's, as the shell reads it, not a place in the flow's folder.
func ResolvePaths(flowFile string, paths []any) []any {
	base := "."
	if flowFile != "" && !strings.HasPrefix(flowFile, "<") {
		base = filepath.Dir(flowFile)
	}
	out := make([]any, len(paths))
	for i, p := range paths {
		s, ok := p.(string)
		if !ok || s == "" || filepath.IsAbs(s) {
			out[i] = p
			continue
		}
		path := filepath.Join(base, s)
		if filepath.VolumeName(s) != "" || os.IsPathSeparator(s[0]) {
			path = s // only on Windows: elsewhere a rooted path is absolute
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = s // left for the schema to refuse as relative
		}
		out[i] = abs
	}
	return out
}

// checkRoleTarget checks a role target's literal role and name
// (roletarget.CheckRole, roletarget.CheckName) before the schema does, so a
// flow author reads "roles are lowercase; write \"button\"" rather than
// the schema's list. It reports whether both passed.
func (fs *fileScope) checkRoleTarget(typ protocol.ActionType, params []Param, nodes map[string]*yaml.Node) bool {
	ok := true
	for _, p := range params {
		if !p.Value.IsLiteral() {
			continue
		}
		s, isString := p.Value.Lit.(string)
		if !isString {
			continue // the schema names the type
		}
		var err error
		switch p.Name {
		case "role":
			err = roletarget.CheckRole(s)
		case "name":
			err = roletarget.CheckName(s)
		}
		if err != nil {
			fs.errf(nodes[p.Name], "%s: %v", typ, err)
			ok = false
		}
	}
	return ok
}

func paramList(params []string) string {
	if len(params) == 0 {
		return "no params: write {}"
	}
	return strings.Join(params, ", ")
}

// MappingExample is a mapping (YAML flow style) a step of spec's action could take: its
// required params (or exactly one target) with the schema's examples.
func MappingExample(spec *protocol.ActionSpec) string {
	var parts []string
	if spec.Target {
		parts = append(parts, fmt.Sprintf("uid: %q", placeholder(spec, "uid")))
	}
	for _, p := range spec.Params {
		if p.Required || (len(spec.OneOf) > 0 && spec.OneOf[0] == p.Name) {
			parts = append(parts, fmt.Sprintf("%s: %s", p.Name, yamlScalar(p.Example)))
		}
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func yamlScalar(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		items := make([]string, len(x))
		for i, it := range x {
			items[i] = yamlScalar(it)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprint(v)
}
