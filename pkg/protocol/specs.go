package protocol

import "time"

// Scope says where an action runs (schema x-scope on $defs/action.*).
type Scope string

// Scopes.
const (
	// ScopeTab actions run on one tab through chrome.debugger, one at a
	// time per tab, after the blocklist and session checks.
	ScopeTab Scope = "tab"
	// ScopeBrowser actions use the tabs API and need no session.
	ScopeBrowser Scope = "browser"
)

// ParamKind is a param's JSON type.
type ParamKind string

// Param kinds.
const (
	KindString  ParamKind = "string"
	KindInteger ParamKind = "integer"
	KindBoolean ParamKind = "boolean"
	// KindList is a list of Item: the schema's type "array", or [Item,
	// "array"] where one item stands for a list of one. The flow loader
	// and the CLI always send a list.
	KindList ParamKind = "list"
)

// ParamSpec is one param of an action, from its schema property.
type ParamSpec struct {
	Name string
	Kind ParamKind
	// Item is a KindList param's item kind (KindString or KindInteger).
	Item     ParamKind
	Required bool
	// Example is a value the schema accepts for the param (its examples[0],
	// first enum value or minimum): the flow loader validates a step whose
	// param is an expression with it standing in.
	Example any
	// Feature is the hello caps.features entry (Feature*) an extension must
	// list before the daemon sends it an action that sets this param
	// (schema x-feature on the property), or "" when every v4 extension
	// reads it. An older extension would ignore the field and act wrongly
	// (click in the main frame, wait for visible), so the daemon refuses
	// the action with invalid_action, reason refused, instead.
	Feature     string
	Description string
}

// ActionSpec describes one action, from $defs/action.NAME in the schema.
type ActionSpec struct {
	Type        ActionType
	Description string
	Scope       Scope
	// Budget is the pool's default deadline when the caller sets none
	// (x-budgetMs); DefaultTimeout adds timeoutMs for actions that wait.
	Budget time.Duration
	// Shorthand is the param a flow step's scalar form sets ("target" for
	// uid-or-selector), or "" when the action takes a mapping only.
	Shorthand string
	// Target is true when the action takes exactly one of uid, selector or
	// role (with name and nth): schema $defs/target.
	Target bool
	// OneOf names params of which the action takes exactly one (the
	// action's own schema oneOf), as select_option takes one of value,
	// label or index; nil for most actions.
	OneOf []string
	// TargetOptional is true when that target may also be left out (schema
	// $ref optionalTarget): wait_for, which can wait for text or a URL
	// instead.
	TargetOptional bool
	// Feature is the hello caps.features entry (Feature*) an extension must
	// list before the daemon sends it this action (schema x-feature), or ""
	// when every v4 extension takes it. The daemon refuses the action with
	// invalid_action, reason refused, otherwise.
	Feature string
	// NoFlowStep is true when a flow never takes the action as a step
	// (schema x-flow: false): flows reach it another way, as the obstacle
	// policy reaches handoff.
	NoFlowStep bool
	// Reads is true when the action only reads the page or the browser
	// (schema x-reads): an agent tool limited to reading (bua mcp
	// --read-only) offers only these.
	Reads bool
	// NoAgent is true when the agent tool never offers the action (schema
	// x-agent: false): a person's, as bua record's record_start.
	NoAgent bool
	// Params in schema order.
	Params []ParamSpec
}

// Param returns the spec of the named param.
func (s *ActionSpec) Param(name string) (ParamSpec, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return ParamSpec{}, false
}

// AgentActions lists, in schema order, the actions the agent tool offers:
// every action but a person's (NoAgent).
func AgentActions() []ActionType {
	var out []ActionType
	for _, a := range Actions {
		if !ActionSpecs[a].NoAgent {
			out = append(out, a)
		}
	}
	return out
}
