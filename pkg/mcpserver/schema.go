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
// left out of the properties. All of protocol.AgentActions gives the
// generated schema as it is.
func ToolSchema(actions []protocol.ActionType) (json.RawMessage, error) {
	if slices.Equal(actions, protocol.AgentActions()) {
		return protocol.ToolSchema, nil
	}
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
		if slices.Contains(actions, protocol.ActionType(name)) {
			lines = append(lines, line)
		}
	}
	action.Description = strings.Join(lines, "\n")
	props := map[string]any{}
	for name, p := range tool.Properties {
		if keep[name] {
			props[name] = p
		}
	}
	props["action"] = action
	return json.Marshal(map[string]any{"type": tool.Type, "required": tool.Required, "properties": props})
}
