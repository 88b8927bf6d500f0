// Package gen reads the protocol schema into a Model and writes it out as
// Go constants (package protocol) and as the extension's ES module. It is
// split from the command so pkg/protocol's tests can regenerate in memory
// and compare with the files on disk.
package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Model is what the generated files hold, read from the schema.
type Model struct {
	Version        int
	ReplyMarginMs  int
	SettleMarginMs int
	// x-replay: the replay cache's bounds (docs/cancellation.md#reconnect).
	ReplayMaxEntries, ReplayMaxAgeMs, ReplayMaxAnswerBytes int
	CloseCodes                                             []Named // x-closeCodes, by value
	MessageTypes                                           []string
	Features                                               []Feature // hello caps.features x-features, in schema order
	Reasons                                                []Feature // error.reason x-reasons: named reasons, in schema order
	Actions                                                []Action
	Codes                                                  []Code
	EndReasons                                             []string
	Events                                                 []string
	NamedKeys                                              []string
	Modifiers                                              []string
	Roles                                                  []string // $defs/role enum: the roles a role target may name
	WaitDefaultMs                                          int      // action.wait_for timeoutMs default
	WaitMaxMs                                              int      // action.wait_for timeoutMs maximum
}

// Feature is one caps.features entry the schema knows, with what it means.
type Feature struct {
	Name        string
	Description string
}

// Named is a name with an integer value.
type Named struct {
	Name  string
	Value int
}

// Action is one action variant: its $defs/action.NAME node.
type Action struct {
	Name        string
	Description string
	Scope       string // x-scope: tab or browser
	BudgetMs    int    // x-budgetMs
	Shorthand   string // x-shorthand: the param a flow's scalar form sets
	Feature     string // x-feature: the caps.features entry an extension must list to be sent it
	NoFlowStep  bool   // x-flow: false: flows reach the action another way, never as a step
	Target      bool   // $ref target or optionalTarget: takes uid, selector or role
	// TargetOptional is $ref optionalTarget: at most one of uid, selector or role.
	TargetOptional bool
	// OneOf are the params of the action's own oneOf, each branch
	// {required: [X]}: the action takes exactly one of them.
	OneOf  []string
	Params []Param
	// Reads is x-reads: the action only reads the page or the browser, so
	// an agent tool limited to reading (bua mcp --read-only) offers it.
	Reads bool
	// Agent is x-agent: the agent tool's one-line summary of the action,
	// when the description's first sentence does not make a good one.
	Agent string
	// NoAgent is x-agent: false: the agent tool does not offer the action
	// (a person's, not an agent's: the record_* actions).
	NoAgent bool
}

// Param is one property of an action.
type Param struct {
	Name string
	Kind string // string, integer, boolean or list
	// Item is a list param's item kind (string or integer): the schema's
	// type "array", or ["string", "array"] for one item or a list.
	Item        string
	Required    bool
	Description string
	Example     any // a valid value: examples[0], enum[0], minimum, true
	// Feature is the property's x-feature: the caps.features entry an
	// extension must list before the daemon sends an action that sets it.
	Feature string
	// Enum is the property's enum of strings, when it has one.
	Enum []string
	// Agent is the property's x-agent: the agent tool's short description
	// (a string), or false to leave the param out of the tool (the tool's
	// server sets it: handoff's state).
	Agent     string
	AgentSkip bool
}

// Code is one error code and its contract row.
type Code struct {
	Name  string
	Retry string // never, re-extract or if-transient
	Next  string
}

// Read builds the Model from the schema document. Anything the generated
// code relies on and the schema lacks is an error naming the node.
func Read(doc []byte) (*Model, error) {
	root, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	r := &reader{root: root.(*object)}
	m := r.model()
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

type reader struct {
	root *object
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) def(name string) *object {
	defs, _ := r.root.get("$defs").(*object)
	if defs == nil {
		r.fail("no $defs")
		return &object{}
	}
	d, _ := defs.get(name).(*object)
	if d == nil {
		r.fail("no $defs/%s", name)
		return &object{}
	}
	return d
}

// resolve follows a node's $ref, once, to its $defs entry.
func (r *reader) resolve(n *object) *object {
	if ref, ok := n.get("$ref").(string); ok {
		return r.def(strings.TrimPrefix(ref, "#/$defs/"))
	}
	return n
}

func (r *reader) int(n *object, key, where string) int {
	f, ok := n.get(key).(json.Number)
	if !ok {
		r.fail("%s: %s must be a number", where, key)
		return 0
	}
	i, err := f.Int64()
	if err != nil {
		r.fail("%s: %s must be an integer", where, key)
	}
	return int(i)
}

func (r *reader) strings(v any, where string) []string {
	arr, ok := v.([]any)
	if !ok {
		r.fail("%s must be an array of strings", where)
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			r.fail("%s must be an array of strings", where)
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) model() *Model {
	m := &Model{}
	m.Version = r.int(r.root, "x-protocolVersion", "schema")
	ladder, _ := r.root.get("x-ladder").(*object)
	if ladder == nil {
		r.fail("schema: no x-ladder")
		return m
	}
	m.ReplyMarginMs = r.int(ladder, "replyMarginMs", "x-ladder")
	m.SettleMarginMs = r.int(ladder, "settleMarginMs", "x-ladder")
	if replay, ok := r.root.get("x-replay").(*object); ok {
		m.ReplayMaxEntries = r.int(replay, "maxEntries", "x-replay")
		m.ReplayMaxAgeMs = r.int(replay, "maxAgeMs", "x-replay")
		m.ReplayMaxAnswerBytes = r.int(replay, "maxAnswerBytes", "x-replay")
	} else {
		r.fail("schema: no x-replay")
	}
	if cc, ok := r.root.get("x-closeCodes").(*object); ok {
		for _, k := range cc.keys {
			if k == "description" {
				continue
			}
			m.CloseCodes = append(m.CloseCodes, Named{k, r.int(cc, k, "x-closeCodes")})
		}
		sort.SliceStable(m.CloseCodes, func(i, j int) bool { return m.CloseCodes[i].Value < m.CloseCodes[j].Value })
	} else {
		r.fail("schema: no x-closeCodes")
	}
	m.MessageTypes = r.strings(r.def("message").path("properties", "type", "enum"), "$defs/message type enum")
	m.Features = r.features()
	m.Reasons = r.described(r.def("error").path("properties", "reason", "x-reasons"), "$defs/error reason x-reasons")
	m.Actions = r.actions()
	m.Codes = r.codes()
	m.EndReasons = r.strings(r.def("sessionEndReason").get("enum"), "$defs/sessionEndReason enum")
	m.Events = r.dispatch(r.def("event"), "event")
	key := r.def("key")
	m.NamedKeys = r.strings(key.get("x-namedKeys"), "$defs/key x-namedKeys")
	m.Modifiers = r.strings(key.get("x-modifiers"), "$defs/key x-modifiers")
	m.Roles = r.strings(r.def("role").get("enum"), "$defs/role enum")
	if wait, ok := r.def("action.wait_for").path("properties", "timeoutMs").(*object); ok {
		m.WaitDefaultMs = r.int(wait, "default", "action.wait_for timeoutMs")
		m.WaitMaxMs = r.int(wait, "maximum", "action.wait_for timeoutMs")
	} else {
		r.fail("action.wait_for has no timeoutMs")
	}
	return m
}

// features reads hello's caps.features x-features: feature -> description.
func (r *reader) features() []Feature {
	return r.described(r.def("hello").path("properties", "caps", "properties", "features", "x-features"), "$defs/hello caps.features x-features")
}

// described reads an object of name -> description, each description
// required; where names it in failures.
func (r *reader) described(v any, where string) []Feature {
	xf, ok := v.(*object)
	if !ok {
		r.fail("%s: missing", where)
		return nil
	}
	var out []Feature
	for _, k := range xf.keys {
		desc, _ := xf.get(k).(string)
		if desc == "" {
			r.fail("%s: %s needs a description", where, k)
		}
		out = append(out, Feature{k, desc})
	}
	return out
}

// dispatch lists the type consts of a union's allOf if/then branches, each
// of which must point at $defs/<prefix>.<type>.
func (r *reader) dispatch(union *object, prefix string) []string {
	branches, _ := union.get("allOf").([]any)
	var out []string
	for _, b := range branches {
		bo, _ := b.(*object)
		c, _ := bo.path("if", "properties", "type", "const").(string)
		ref, _ := bo.path("then", "$ref").(string)
		if c == "" || ref != "#/$defs/"+prefix+"."+c {
			r.fail("$defs/%s allOf: each branch must be if type const X then $ref #/$defs/%s.X", prefix, prefix)
			return out
		}
		out = append(out, c)
	}
	return out
}

// actions reads the action union: each of its types, in the type enum's
// order, which its allOf branches must follow.
func (r *reader) actions() []Action {
	union := r.def("action")
	names := r.strings(union.path("properties", "type", "enum"), "$defs/action type enum")
	if got := r.dispatch(union, "action"); strings.Join(got, ",") != strings.Join(names, ",") {
		r.fail("$defs/action: the allOf branches (%s) must list the type enum (%s) in the same order", strings.Join(got, ", "), strings.Join(names, ", "))
	}
	var out []Action
	for _, name := range names {
		out = append(out, r.action(name))
	}
	return out
}

// action reads $defs/action.NAME: its description and x- keywords, its
// target, and its params.
func (r *reader) action(name string) Action {
	where := "$defs/action." + name
	d := r.def("action." + name)
	a := Action{Name: name}
	a.Description, _ = d.get("description").(string)
	if a.Description == "" {
		r.fail("%s: needs a description", where)
	}
	a.Scope, _ = d.get("x-scope").(string)
	if a.Scope != "tab" && a.Scope != "browser" {
		r.fail("%s: x-scope must be tab or browser", where)
	}
	a.BudgetMs = r.int(d, "x-budgetMs", where)
	a.Shorthand, _ = d.get("x-shorthand").(string)
	a.Feature, _ = d.get("x-feature").(string)
	if a.Feature != "" && !slices.ContainsFunc(r.features(), func(f Feature) bool { return f.Name == a.Feature }) {
		r.fail("%s: x-feature %q is not one of hello's x-features", where, a.Feature)
	}
	r.actionFlags(&a, d, where)
	a.TargetOptional = d.get("$ref") == "#/$defs/optionalTarget"
	a.Target = d.get("$ref") == "#/$defs/target" || a.TargetOptional
	if branches, ok := d.get("oneOf").([]any); ok {
		for _, b := range branches {
			req, _ := b.(*object).get("required").([]any)
			if len(req) != 1 || len(b.(*object).keys) != 1 {
				r.fail("%s: each oneOf branch must be {required: [one param]}", where)
				break
			}
			a.OneOf = append(a.OneOf, r.strings(req, where+" oneOf")...)
		}
	}
	required := map[string]bool{}
	if req, ok := d.get("required").([]any); ok {
		for _, x := range r.strings(req, where+" required") {
			required[x] = true
		}
	}
	if props, ok := d.get("properties").(*object); ok {
		for _, pn := range props.keys {
			pn0, _ := props.get(pn).(*object)
			a.Params = append(a.Params, r.param(pn, pn0, required[pn], where))
		}
	}
	if a.Shorthand != "" && a.Shorthand != "target" && !a.hasParam(a.Shorthand) {
		r.fail("%s: x-shorthand %q is not one of its properties", where, a.Shorthand)
	}
	if a.Shorthand == "target" && !a.Target {
		r.fail("%s: x-shorthand target needs $ref #/$defs/target or #/$defs/optionalTarget", where)
	}
	return a
}

// actionFlags reads an action's boolean-or-string keywords into a:
// x-flow, x-reads and x-agent.
func (r *reader) actionFlags(a *Action, d *object, where string) {
	switch f := d.get("x-flow").(type) {
	case nil:
	case bool:
		a.NoFlowStep = !f
	default:
		r.fail("%s: x-flow must be a boolean", where)
	}
	switch f := d.get("x-reads").(type) {
	case nil:
	case bool:
		a.Reads = f
	default:
		r.fail("%s: x-reads must be a boolean", where)
	}
	switch ag := d.get("x-agent").(type) {
	case nil:
	case bool:
		if ag {
			r.fail("%s: x-agent must be a non-empty string, or false", where)
		}
		a.NoAgent = true
	case string:
		if a.Agent = ag; a.Agent == "" {
			r.fail("%s: x-agent must be a non-empty string, or false", where)
		}
	default:
		r.fail("%s: x-agent must be a non-empty string, or false", where)
	}
}

func (r *reader) codes() []Code {
	ec := r.def("errorCode")
	names := r.strings(ec.get("enum"), "$defs/errorCode enum")
	contract, _ := ec.get("x-contract").(*object)
	if contract == nil {
		r.fail("$defs/errorCode: no x-contract")
		return nil
	}
	if strings.Join(contract.keys, ",") != strings.Join(names, ",") {
		r.fail("$defs/errorCode: x-contract must list the enum's codes in the same order")
	}
	var out []Code
	for _, n := range names {
		row, _ := contract.get(n).(*object)
		if row == nil {
			r.fail("$defs/errorCode x-contract: no row for %s", n)
			continue
		}
		c := Code{Name: n}
		c.Retry, _ = row.get("retry").(string)
		c.Next, _ = row.get("next").(string)
		switch c.Retry {
		case "never", "re-extract", "if-transient":
		default:
			r.fail("$defs/errorCode x-contract.%s: retry must be never, re-extract or if-transient", n)
		}
		if c.Next == "" {
			r.fail("$defs/errorCode x-contract.%s: needs next", n)
		}
		out = append(out, c)
	}
	return out
}
