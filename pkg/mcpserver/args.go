package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// call is one tool call decoded: the protocol action it sends.
type call struct {
	action protocol.Action
	// field names the argument a refused call got wrong, for the
	// structured error.
	field string
	// defaulted are the params the tool set because the agent left them
	// out (agentDefaults).
	defaulted []string
}

// agentDefault is a param the tool sets when an agent leaves it out, where
// what an agent expects differs from the protocol's default, and the words
// the tool's schema says it with.
type agentDefault struct {
	action protocol.ActionType
	param  string
	value  json.RawMessage
	// does replaces what the action's line in action's description says
	// it does; says replaces the param's description.
	does, says string
}

// agentDefaults: an agent that types into a field means its value to be
// what it typed. Playwright MCP's browser_type replaces the value (it
// fills) unless asked to type key by key, and an agent that repeats a type
// after an answer it did not trust must not get "AdaAda". So
// the tool's type clears the field first unless told clear: false. The
// CLI's and flows' type keep the protocol's default (append), and --record
// writes the clear: true the agent's type was sent with, so a replay
// replaces too.
var agentDefaults = []agentDefault{{
	action: protocol.ActionType_, param: "clear", value: json.RawMessage("true"),
	does: "Focus the target and replace its value with text.",
	says: "default true here: text replaces the field's value (as Playwright MCP's browser_type); false types it after what is there",
}}

// toolParams are, for each action, the params the tool offers it: the
// action's schema params that the tool's schema has (x-agent: false
// leaves some to the server).
var toolParams = sync.OnceValue(func() map[protocol.ActionType][]string {
	var tool struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(protocol.ToolSchema, &tool); err != nil {
		panic(fmt.Sprintf("tool.json: %v", err)) // embedded: a build bug
	}
	out := map[protocol.ActionType][]string{}
	for _, a := range protocol.Actions {
		out[a] = []string{}
		for _, p := range protocol.ActionSpecs[a].Params {
			if _, ok := tool.Properties[p.Name]; ok {
				out[a] = append(out[a], p.Name)
			}
		}
	}
	return out
})

// decode turns a call's arguments into the protocol's action: action
// names it, every other argument is one of its params, and
// protocol.ActionFrom builds it and checks it against the action's own
// schema branch, the one check it gets (the server's Requester sends it
// as checked). Any mistake is invalid_action (reason refused: nothing was
// sent) whose message names the argument.
func (s *Server) decode(args json.RawMessage) (*call, *protocol.Error) {
	fields := map[string]json.RawMessage{}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &fields); err != nil {
			return refuse("", "the arguments must be an object with action and its params: %v", err)
		}
	}
	typ, c, perr := s.actionOf(fields)
	if perr != nil {
		return c, perr
	}
	params := map[string]any{}
	for k, v := range fields {
		if k == "action" {
			continue
		}
		if offered := toolParams()[typ]; !slices.Contains(offered, k) {
			if len(offered) == 0 {
				return refuse(k, "%s takes no params, got %s", typ, k)
			}
			return refuse(k, "%s takes no param %s: its params are %s", typ, k, strings.Join(offered, ", "))
		}
		if string(v) == "null" {
			continue // a client that sends every property, unset ones as null
		}
		params[k] = v
	}
	var defaulted []string
	for _, d := range agentDefaults {
		if _, set := params[d.param]; d.action == typ && !set {
			params[d.param] = d.value
			defaulted = append(defaulted, d.param)
		}
	}
	if typ == protocol.ActionHandoff {
		// The tool's handoff is the whole of it: hand over, wait, take
		// back (handoff.Wait); its first message is a request.
		params["state"] = json.RawMessage(`"requested"`)
	}
	if typ == protocol.ActionUpload {
		given, _ := params["files"].(json.RawMessage)
		files, perr := s.uploadFiles(given)
		if perr != nil {
			return &call{field: "files"}, perr
		}
		if files != nil {
			params["files"] = files
		}
	}
	a, perr := protocol.ActionFrom(string(typ), params)
	if perr != nil && perr.Schema != nil {
		field, msg := schemaField(perr)
		return refuse(field, "bad arguments for %s: %s", typ, msg)
	}
	if perr != nil {
		return refuse("", "the arguments do not fit %s: %s", typ, perr.Message)
	}
	return &call{action: a, defaulted: defaulted}, nil
}

// refuse is decode's failure: invalid_action, reason refused (nothing was
// sent), naming the argument field for the structured error.
func refuse(field, format string, a ...any) (*call, *protocol.Error) {
	e := protocol.Errorf(protocol.CodeInvalidAction, format, a...)
	e.Reason = protocol.ReasonRefused
	return &call{field: field}, e
}

// actionOf reads the call's action argument: one of the actions this
// server offers.
func (s *Server) actionOf(fields map[string]json.RawMessage) (protocol.ActionType, *call, *protocol.Error) {
	rawType, ok := fields["action"]
	if !ok {
		c, e := refuse("action", "action is required: one of %s", s.actionList())
		return "", c, e
	}
	var typ protocol.ActionType
	if err := json.Unmarshal(rawType, &typ); err != nil {
		c, e := refuse("action", "action must be a string: one of %s", s.actionList())
		return "", c, e
	}
	if !slices.Contains(s.actions, typ) {
		if _, known := protocol.ActionSpecs[typ]; known && s.o.ReadOnly {
			c, e := refuse("action", "%s is not available: this server only reads (bua mcp --read-only); it offers %s", typ, s.actionList())
			return "", c, e
		}
		c, e := refuse("action", "action %q is not an action: one of %s", typ, s.actionList())
		return "", c, e
	}
	return typ, nil, nil
}

// schemaField names the argument a schema failure is about, and the
// failure in the tool's words: the schema's path is the protocol's
// (action.url; action.type for the action itself).
func schemaField(e *protocol.Error) (field, msg string) {
	if e.Schema == nil {
		return "", e.Message
	}
	field = strings.TrimPrefix(strings.TrimPrefix(e.Schema.Path, "action"), ".")
	switch {
	case field == "type":
		field = "action"
	case field == "" && e.Schema.Missing != "":
		return e.Schema.Missing, fmt.Sprintf("%s is required", e.Schema.Missing)
	}
	if field == "" {
		return "", e.Schema.Reason
	}
	return field, field + ": " + e.Schema.Reason
}

// actionList is the actions this server offers, comma-separated.
func (s *Server) actionList() string {
	names := make([]string, len(s.actions))
	for i, a := range s.actions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
