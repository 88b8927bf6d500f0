package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// ToolSchema is the tool's inputSchema offering only actions: the
// generated protocol.ToolSchema, with the other actions left out of the
// action enum and its description, and the params none of actions takes
// left out of the properties. Where the tool gives a param a default of
// its own (agentDefaults), the action's line and the param's description
// say so.
func ToolSchema(actions []protocol.ActionType) (json.RawMessage, error) {
	var tool struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(protocol.ToolSchema, &tool); err != nil {
		return nil, fmt.Errorf("tool.json: %v", err)
	}
	var action struct {
		Type        string   `json:"type"`
		Enum        []string `json:"enum"`
		Description string   `json:"description"`
	}
	if err := json.Unmarshal(tool.Properties["action"], &action); err != nil {
		return nil, fmt.Errorf("tool.json action: %v", err)
	}
	keep := map[string]bool{"action": true}
	action.Enum = action.Enum[:0]
	for _, a := range actions {
		action.Enum = append(action.Enum, string(a))
		for _, p := range toolParams()[a] {
			keep[p] = true
		}
	}
	var lines []string
	for _, line := range strings.Split(action.Description, "\n") {
		name, _, _ := strings.Cut(line, "(")
		if !slices.Contains(actions, protocol.ActionType(name)) {
			continue
		}
		for _, d := range agentDefaults {
			if string(d.action) == name {
				// The line is name(params): what it does.
				if sig, _, ok := strings.Cut(line, "): "); ok {
					line = sig + "): " + d.does
				}
			}
		}
		lines = append(lines, line)
	}
	action.Description = strings.Join(lines, "\n")
	props := map[string]any{}
	for name, p := range tool.Properties {
		if keep[name] {
			props[name] = p
		}
	}
	for _, d := range agentDefaults {
		if !keep[d.param] || !slices.Contains(actions, d.action) {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal(tool.Properties[d.param], &p); err != nil {
			return nil, fmt.Errorf("tool.json %s: %v", d.param, err)
		}
		p["description"] = d.says
		props[d.param] = p
	}
	props["action"] = action
	return json.Marshal(map[string]any{"type": tool.Type, "required": tool.Required, "properties": props})
}
