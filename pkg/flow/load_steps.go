package flow

import (
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
)

func (fs *fileScope) steps(n *yaml.Node, what string) []Step {
	if n.Kind != yaml.SequenceNode {
		fs.errf(n, "%s: expected a list of steps, got %s", what, kindName(n))
		return nil
	}
	var out []Step
	for _, c := range n.Content {
		if s := fs.step(c); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// stepKinds are the keys that select what a step does; the rest are
// modifiers any step may carry.
var controlKinds = []string{"assert", "set", "run", "repeat", "sleep", "log", "fail"}

var modifierKeys = map[string]bool{"name": true, "as": true, "if": true, "timeout": true, "retry": true, "continue_on_error": true}

// stepActions are the actions a flow takes as steps: every action but
// those the schema marks x-flow: false (handoff, which the obstacle policy
// sends).
var stepActions = func() []string {
	var out []string
	for _, a := range protocol.Actions {
		if !protocol.ActionSpecs[a].NoFlowStep {
			out = append(out, string(a))
		}
	}
	return out
}()

// kindKeys lists every step kind for messages.
func kindKeys() string {
	return strings.Join(append(slices.Clone(stepActions), controlKinds...), ", ")
}

func isAction(k string) bool { return slices.Contains(stepActions, k) }

// stepNode is one step's mapping sorted by what each key does: its kind
// (an action or a control step), the modifiers (name, timeout, retry,
// continue_on_error and the kind-specific then, else, message, with,
// obstacles), if and as.
type stepNode struct {
	n              *yaml.Node
	meta           StepMeta
	kindK, kindV   *yaml.Node
	extra          map[string][2]*yaml.Node
	ifNode, asNode *yaml.Node
	// unknown says a key was neither: already reported.
	unknown bool
}

// stepDecoder builds one kind of control step from its value, once the
// kind-specific keys it takes (extras) are checked.
type stepDecoder struct {
	extras []string
	decode func(fs *fileScope, sn *stepNode) Step
}

// stepDecoders are the control steps by kind; any other kind is an
// action (actionStep). Filled by init: a run step's decoder loads a
// sub-flow, whose steps are read with this table.
var stepDecoders map[string]stepDecoder

func init() {
	stepDecoders = map[string]stepDecoder{
		"assert": {[]string{"message"}, func(fs *fileScope, sn *stepNode) Step {
			st := &AssertStep{StepMeta: sn.meta, Cond: fs.expr(sn.kindV, "assert")}
			if kv, ok := sn.extra["message"]; ok {
				st.Message = fs.template(kv[1], "message")
			}
			return st
		}},
		"set": {nil, func(fs *fileScope, sn *stepNode) Step { return fs.setStep(sn.meta, sn.kindV) }},
		"run": {[]string{"with"}, func(fs *fileScope, sn *stepNode) Step {
			return fs.runStep(sn.meta, sn.kindV, sn.extra["with"])
		}},
		"repeat": {nil, func(fs *fileScope, sn *stepNode) Step { return fs.repeatStep(sn.meta, sn.kindV) }},
		"sleep": {nil, func(fs *fileScope, sn *stepNode) Step {
			return &SleepStep{StepMeta: sn.meta, D: fs.duration(sn.kindV, "sleep")}
		}},
		"log": {nil, func(fs *fileScope, sn *stepNode) Step {
			return &LogStep{StepMeta: sn.meta, Msg: fs.template(sn.kindV, "log")}
		}},
		"fail": {nil, func(fs *fileScope, sn *stepNode) Step {
			return &FailStep{StepMeta: sn.meta, Msg: fs.template(sn.kindV, "fail")}
		}},
	}
}

// kindExtras are the step keys that only some kinds take.
var kindExtras = []string{"then", "else", "message", "with", "obstacles"}

// step reads one step: its keys, its modifiers, then its kind's own
// value (an if with then/else, a control step by stepDecoders, else an
// action), and its as name.
func (fs *fileScope) step(n *yaml.Node) Step {
	if n.Kind != yaml.MappingNode {
		fs.errf(n, "a step is a mapping with one kind (expected one of %s), got %s", kindKeys(), kindName(n))
		return nil
	}
	sn := fs.stepKeys(n)
	fs.modifiers(sn)
	var step Step
	switch {
	case sn.kindK == nil && sn.ifNode != nil:
		step = fs.ifStep(sn)
	case sn.kindK == nil:
		if !sn.unknown {
			fs.errf(n, "step has no kind (expected one of %s)", kindKeys())
		}
		return nil
	default:
		step = fs.kindStep(sn)
	}
	if step == nil {
		return nil
	}
	if _, ok := sn.extra["retry"]; ok {
		if _, isAction := step.(*ActionStep); !isAction {
			fs.errf(sn.extra["retry"][0], "retry applies to action steps only (this is a %s step)", sn.meta.Kind)
		}
	}
	if sn.asNode != nil {
		fs.bindAs(step, sn.asNode)
	}
	return step
}

// stepKeys sorts a step's keys by what they do, reporting unknown keys
// and a second kind.
func (fs *fileScope) stepKeys(n *yaml.Node) *stepNode {
	sn := &stepNode{n: n, meta: StepMeta{File: fs.file, Line: n.Line, Col: n.Column}, extra: map[string][2]*yaml.Node{}}
	for _, kv := range fs.pairs(n) {
		k, v := kv[0], kv[1]
		switch {
		case isAction(k.Value) || slices.Contains(controlKinds, k.Value):
			if sn.kindK != nil {
				fs.errf(k, "step has two kinds, %s and %s (expected exactly one per step)", sn.kindK.Value, k.Value)
				continue
			}
			sn.kindK, sn.kindV = k, v
		case k.Value == "if":
			sn.ifNode = v
		case k.Value == "as":
			sn.asNode = v
		case modifierKeys[k.Value] || slices.Contains(kindExtras, k.Value):
			sn.extra[k.Value] = kv
		default:
			sn.unknown = true
			fs.unknownStepKey(k)
		}
	}
	return sn
}

// unknownStepKey reports k, which no step takes.
func (fs *fileScope) unknownStepKey(k *yaml.Node) {
	if spec := protocol.ActionSpecs[protocol.ActionType(k.Value)]; spec != nil && spec.NoFlowStep {
		fs.errf(k, "%s is not a flow step: flows hand a page to a person through the obstacle policy, obstacles: { high: handoff }", k.Value)
	} else if sug := suggest(k.Value, stepKeyNames()); sug != "" {
		fs.errf(k, "unknown step key %q (did you mean %s?)", k.Value, sug)
	} else {
		fs.errf(k, "unknown step key %q (expected a step kind: %s; or name, as, if, timeout, retry, continue_on_error)", k.Value, kindKeys())
	}
}

// modifiers reads the modifiers every step may carry into sn.meta.
func (fs *fileScope) modifiers(sn *stepNode) {
	if kv, ok := sn.extra["name"]; ok {
		sn.meta.Name = fs.str(kv[1], "name")
	}
	if kv, ok := sn.extra["timeout"]; ok {
		sn.meta.Timeout = fs.duration(kv[1], "timeout")
	}
	if kv, ok := sn.extra["continue_on_error"]; ok {
		if kv[1].Tag != "!!bool" {
			fs.errf(kv[1], "continue_on_error: expected true or false, got %s", kindName(kv[1]))
		} else {
			sn.meta.ContinueOnError = scalarValue(kv[1]).(bool)
		}
	}
	if kv, ok := sn.extra["retry"]; ok {
		sn.meta.Retry = fs.retry(kv[1])
	}
	if sn.ifNode != nil {
		sn.meta.If = fs.expr(sn.ifNode, "if")
	}
}

// allowOnly reports the kind-specific keys of sn that a kind step does
// not take (keys are those it does).
func (fs *fileScope) allowOnly(sn *stepNode, kind string, keys ...string) {
	for _, k := range kindExtras {
		if kv, ok := sn.extra[k]; ok && !slices.Contains(keys, k) {
			fs.errf(kv[0], "%q does not apply to a %s step", k, kind)
		}
	}
}

// ifStep is a step whose kind is if: its condition is the if modifier.
func (fs *fileScope) ifStep(sn *stepNode) Step {
	sn.meta.Kind = "if"
	fs.allowOnly(sn, "if", "then", "else")
	thenKV, ok := sn.extra["then"]
	if !ok {
		fs.errf(sn.ifNode, "if without then (expected then: [steps], or a step kind beside if)")
		return nil
	}
	st := &IfStep{StepMeta: sn.meta, Cond: sn.meta.If}
	st.StepMeta.If = nil
	st.Then = fs.steps(thenKV[1], "then")
	if elseKV, ok := sn.extra["else"]; ok {
		st.Else = fs.steps(elseKV[1], "else")
	}
	return st
}

// kindStep is a step of the kind its key names: a control step by
// stepDecoders, else an action.
func (fs *fileScope) kindStep(sn *stepNode) Step {
	kind := sn.kindK.Value
	sn.meta.Kind = kind
	if d, ok := stepDecoders[kind]; ok {
		fs.allowOnly(sn, kind, d.extras...)
		return d.decode(fs, sn)
	}
	if kind == "extract" {
		fs.allowOnly(sn, kind, "obstacles")
	} else {
		fs.allowOnly(sn, kind)
	}
	return fs.actionStep(sn.meta, protocol.ActionType(kind), sn.kindK, sn.kindV, sn.extra["obstacles"])
}

// bindAs reads a step's as name, which later expressions read its result
// by: an identifier that shadows no built-in, on a step with a result.
func (fs *fileScope) bindAs(step Step, asNode *yaml.Node) {
	name := fs.str(asNode, "as")
	m := step.Meta()
	switch {
	case name == "":
	case expr.IsBuiltin(name) || expr.IsHelper(name):
		fs.errf(asNode, "as: %q shadows a built-in name (vars, env, last, error, flow, uid, has, element are reserved; pick another name)", name)
	case expr.IsLangBuiltin(name):
		fs.errf(asNode, "as: %q shadows expr's builtin function %s (pick another name)", name, name)
	case !identRe().MatchString(name):
		fs.errf(asNode, "as: %q is not an identifier (expected letters, digits and _)", name)
	default:
		if _, isAction := step.(*ActionStep); !isAction && m.Kind != "run" {
			fs.errf(asNode, "as: a %s step has no result to name (as applies to actions and run)", m.Kind)
		}
		m.As = name
		fs.defined[name] = true
	}
}

func stepKeyNames() []string {
	out := append(slices.Clone(stepActions), controlKinds...)
	for k := range modifierKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return append(out, "then", "else", "message", "with", "obstacles")
}
