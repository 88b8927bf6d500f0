package protocol

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestToolSchemaFlat: the shape Claude's and OpenAI's tool APIs accept
// (a top-level object, no top-level oneOf, anyOf or allOf), a required
// action whose enum is every action in schema order, and a property for
// every param an action offers the agent, of the param's kind.
func TestToolSchemaFlat(t *testing.T) {
	var s struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		OneOf      any                        `json:"oneOf"`
		AnyOf      any                        `json:"anyOf"`
		AllOf      any                        `json:"allOf"`
	}
	if err := json.Unmarshal(ToolSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || s.OneOf != nil || s.AnyOf != nil || s.AllOf != nil {
		t.Fatalf("top level: type %q, oneOf %v, anyOf %v, allOf %v: want a plain object", s.Type, s.OneOf, s.AnyOf, s.AllOf)
	}
	if !slices.Equal(s.Required, []string{"action"}) {
		t.Errorf("required = %v, want [action]", s.Required)
	}
	var action struct {
		Enum []ActionType `json:"enum"`
	}
	if err := json.Unmarshal(s.Properties["action"], &action); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(action.Enum, AgentActions()) {
		t.Errorf("action enum = %v, want every action an agent may take %v", action.Enum, AgentActions())
	}
	kinds := map[ParamKind]string{KindString: "string", KindInteger: "integer", KindBoolean: "boolean", KindList: "array"}
	for _, typ := range AgentActions() {
		for _, p := range ActionSpecs[typ].Params {
			raw, ok := s.Properties[p.Name]
			if !ok {
				if typ == ActionHandoff || typ == ActionOpenTab && p.Name == "window" { // the server's to set (x-agent: false)
					continue
				}
				t.Errorf("%s.%s is not a property of the tool", typ, p.Name)
				continue
			}
			var prop struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(raw, &prop)
			if prop.Type != kinds[p.Kind] {
				t.Errorf("%s.%s: the tool says %q, the schema %s", typ, p.Name, prop.Type, p.Kind)
			}
		}
	}
}
