package runner

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/protocol"
)

// paramSpec describes one action param: its JSON kind and the placeholder
// that stands for an expression during load-time validation.
type paramSpec struct {
	kind        string // string, int, bool, target
	placeholder any
}

var paramSpecs = map[string]paramSpec{
	"url":        {"string", "http://placeholder.invalid/"},
	"selector":   {"string", "placeholder"},
	"uid":        {"string", "e0"},
	"target":     {"target", "placeholder"},
	"text":       {"string", "placeholder"},
	"key":        {"string", "a"},
	"direction":  {"string", "down"},
	"amount":     {"int", 1},
	"fullPage":   {"bool", true},
	"expression": {"string", "placeholder"},
	"timeoutMs":  {"int", 1},
	"focus":      {"bool", true},
	"tabId":      {"int", 0},
}

// actionShape lists each action's params and its scalar shorthand's param
// ("" when it has none: type and screenshot take a mapping only).
var actionShape = map[protocol.ActionType]struct {
	main   string
	params []string
}{
	protocol.ActionNavigate:   {"url", []string{"url", "tabId"}},
	protocol.ActionClick:      {"target", []string{"target", "uid", "selector", "tabId"}},
	protocol.ActionType_:      {"", []string{"target", "uid", "selector", "text", "tabId"}},
	protocol.ActionHover:      {"target", []string{"target", "uid", "selector", "tabId"}},
	protocol.ActionPressKey:   {"key", []string{"key", "tabId"}},
	protocol.ActionScroll:     {"direction", []string{"direction", "amount", "tabId"}},
	protocol.ActionScreenshot: {"", []string{"fullPage", "tabId"}},
	protocol.ActionExtract:    {"selector", []string{"selector", "tabId"}},
	protocol.ActionEvaluate:   {"expression", []string{"expression", "tabId"}},
	protocol.ActionWaitFor:    {"target", []string{"target", "uid", "selector", "timeoutMs", "tabId"}},
	protocol.ActionGetTabs:    {"", nil},
	protocol.ActionOpenTab:    {"url", []string{"url", "focus"}},
	protocol.ActionCloseTab:   {"tabId", []string{"tabId"}},
}

func (fs *fileScope) actionStep(meta StepMeta, typ protocol.ActionType, k, v *yaml.Node, obst [2]*yaml.Node) Step {
	shape := actionShape[typ]
	st := &ActionStep{StepMeta: meta, Type: typ}
	nodes := map[string]*yaml.Node{}
	bad := false
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		// `get_tabs:` with nothing: no params.
	case v.Kind == yaml.ScalarNode:
		if shape.main == "" {
			fs.errf(v, "%s takes a mapping of params (expected e.g. %s), not a scalar", typ, mappingExample(typ))
			return nil
		}
		st.Params = append(st.Params, Param{Name: shape.main, Value: fs.template(v, string(typ))})
		nodes[shape.main] = v
	case v.Kind == yaml.MappingNode:
		for _, kv := range fs.pairs(v) {
			name := kv[0].Value
			if !contains(shape.params, name) {
				fs.errf(kv[0], "%s has no param %q (expected %s)", typ, name, paramList(shape.params))
				bad = true
				continue
			}
			st.Params = append(st.Params, Param{Name: name, Value: fs.template(kv[1], string(typ)+"."+name)})
			nodes[name] = kv[1]
		}
	default:
		fs.errf(v, "%s: expected a scalar or a mapping of params, got %s", typ, kindName(v))
		return nil
	}
	if obst[1] != nil {
		p := fs.obstacles(obst[1], ObstaclePolicy{})
		st.Obstacles = &p
	}
	if bad {
		return st
	}
	if contains(shape.params, "target") {
		n := 0
		for _, f := range []string{"target", "uid", "selector"} {
			if nodes[f] != nil {
				n++
			}
		}
		if n != 1 {
			fs.errf(v, "%s needs exactly one target: uid, selector or target (a uid like e12 or a CSS selector), got %d", typ, n)
			return st
		}
	}
	// Validate the shape against the protocol schema, with a placeholder of
	// the right type standing in for each expression.
	raw := map[string]any{"type": string(typ)}
	for _, p := range st.Params {
		var val any
		if p.Value.IsLiteral() {
			val = p.Value.Lit
		} else {
			val = paramSpecs[p.Name].placeholder
		}
		if p.Name == "target" {
			s, ok := val.(string)
			if !ok {
				fs.errf(nodes["target"], "%s: target is a uid (e12) or a CSS selector string, got %v", typ, val)
				return st
			}
			t := protocol.ParseTarget(s)
			if t.UID != "" {
				raw["uid"] = t.UID
			} else {
				raw["selector"] = t.Selector
			}
			continue
		}
		raw[p.Name] = val
	}
	data, _ := json.Marshal(raw)
	if err := protocol.ValidateAction(data); err != nil {
		at, msg := k, err.Message
		if se := err.Schema; se != nil {
			// The validator names fields from the action (Path
			// "action.url"); a flow author wrote them as the step's params.
			field := strings.TrimPrefix(strings.TrimPrefix(se.Path, "action"), ".")
			if n, ok := nodes[field]; ok {
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
	return st
}

func paramList(params []string) string {
	if len(params) == 0 {
		return "no params: write {}"
	}
	return strings.Join(params, ", ")
}

func mappingExample(typ protocol.ActionType) string {
	if typ == protocol.ActionType_ {
		return `{ uid: "${{ uid(page, 'textbox', 'Email') }}", text: "..." }`
	}
	return "{} or { fullPage: true }"
}
