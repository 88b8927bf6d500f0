package flow

import (
	"path/filepath"
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

func (fs *fileScope) step(n *yaml.Node) Step {
	if n.Kind != yaml.MappingNode {
		fs.errf(n, "a step is a mapping with one kind (expected one of %s), got %s", kindKeys(), kindName(n))
		return nil
	}
	meta := StepMeta{File: fs.file, Line: n.Line, Col: n.Column}
	var kindK, kindV *yaml.Node
	extra := map[string][2]*yaml.Node{}
	var ifNode, asNode *yaml.Node
	unknown := false
	for _, kv := range fs.pairs(n) {
		k, v := kv[0], kv[1]
		switch {
		case isAction(k.Value) || slices.Contains(controlKinds, k.Value):
			if kindK != nil {
				fs.errf(k, "step has two kinds, %s and %s (expected exactly one per step)", kindK.Value, k.Value)
				continue
			}
			kindK, kindV = k, v
		case k.Value == "if":
			ifNode = v
		case k.Value == "as":
			asNode = v
		case modifierKeys[k.Value]:
			extra[k.Value] = kv
		case k.Value == "then" || k.Value == "else" || k.Value == "message" || k.Value == "with" || k.Value == "obstacles":
			extra[k.Value] = kv
		default:
			unknown = true
			if spec := protocol.ActionSpecs[protocol.ActionType(k.Value)]; spec != nil && spec.NoFlowStep {
				fs.errf(k, "%s is not a flow step: flows hand a page to a person through the obstacle policy, obstacles: { high: handoff }", k.Value)
			} else if sug := suggest(k.Value, stepKeyNames()); sug != "" {
				fs.errf(k, "unknown step key %q (did you mean %s?)", k.Value, sug)
			} else {
				fs.errf(k, "unknown step key %q (expected a step kind: %s; or name, as, if, timeout, retry, continue_on_error)", k.Value, kindKeys())
			}
		}
	}
	if kv, ok := extra["name"]; ok {
		meta.Name = fs.str(kv[1], "name")
	}
	if kv, ok := extra["timeout"]; ok {
		meta.Timeout = fs.duration(kv[1], "timeout")
	}
	if kv, ok := extra["continue_on_error"]; ok {
		if kv[1].Tag != "!!bool" {
			fs.errf(kv[1], "continue_on_error: expected true or false, got %s", kindName(kv[1]))
		} else {
			meta.ContinueOnError = scalarValue(kv[1]).(bool)
		}
	}
	if kv, ok := extra["retry"]; ok {
		meta.Retry = fs.retry(kv[1])
	}
	if ifNode != nil {
		meta.If = fs.expr(ifNode, "if")
	}
	// allowOnly reports modifier keys that do not fit the step kind.
	allowOnly := func(kind string, keys ...string) {
		for _, k := range []string{"then", "else", "message", "with", "obstacles"} {
			if kv, ok := extra[k]; ok && !slices.Contains(keys, k) {
				fs.errf(kv[0], "%q does not apply to a %s step", k, kind)
			}
		}
	}

	var step Step
	switch {
	case kindK == nil && ifNode != nil:
		meta.Kind = "if"
		allowOnly("if", "then", "else")
		thenKV, ok := extra["then"]
		if !ok {
			fs.errf(ifNode, "if without then (expected then: [steps], or a step kind beside if)")
			return nil
		}
		st := &IfStep{StepMeta: meta, Cond: meta.If}
		st.StepMeta.If = nil
		st.Then = fs.steps(thenKV[1], "then")
		if elseKV, ok := extra["else"]; ok {
			st.Else = fs.steps(elseKV[1], "else")
		}
		step = st
	case kindK == nil:
		if !unknown {
			fs.errf(n, "step has no kind (expected one of %s)", kindKeys())
		}
		return nil
	default:
		meta.Kind = kindK.Value
		switch kindK.Value {
		case "assert":
			allowOnly("assert", "message")
			st := &AssertStep{StepMeta: meta, Cond: fs.expr(kindV, "assert")}
			if kv, ok := extra["message"]; ok {
				st.Message = fs.template(kv[1], "message")
			}
			step = st
		case "set":
			allowOnly("set")
			step = fs.setStep(meta, kindV)
		case "run":
			allowOnly("run", "with")
			step = fs.runStep(meta, kindV, extra["with"])
		case "repeat":
			allowOnly("repeat")
			step = fs.repeatStep(meta, kindV)
		case "sleep":
			allowOnly("sleep")
			step = &SleepStep{StepMeta: meta, D: fs.duration(kindV, "sleep")}
		case "log":
			allowOnly("log")
			step = &LogStep{StepMeta: meta, Msg: fs.template(kindV, "log")}
		case "fail":
			allowOnly("fail")
			step = &FailStep{StepMeta: meta, Msg: fs.template(kindV, "fail")}
		default:
			if kindK.Value == "extract" {
				allowOnly(kindK.Value, "obstacles")
			} else {
				allowOnly(kindK.Value)
			}
			step = fs.actionStep(meta, protocol.ActionType(kindK.Value), kindK, kindV, extra["obstacles"])
		}
	}
	if step == nil {
		return nil
	}
	if _, ok := extra["retry"]; ok {
		if _, isAction := step.(*ActionStep); !isAction {
			fs.errf(extra["retry"][0], "retry applies to action steps only (this is a %s step)", meta.Kind)
		}
	}
	if asNode != nil {
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
	return step
}

func (fs *fileScope) retry(n *yaml.Node) *RetryPolicy {
	r := &RetryPolicy{Attempts: 1, Backoff: 1}
	if n.Kind != yaml.MappingNode {
		fs.errf(n, "retry: expected a mapping such as { attempts: 3, delay: 500ms, on: [timeout] }, got %s", kindName(n))
		return r
	}
	for _, kv := range fs.pairs(n) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "attempts":
			i, ok := scalarValue(v).(int)
			if !ok || i < 1 || i > 100 {
				fs.errf(v, "retry.attempts: expected an integer from 1 to 100, got %s", kindName(v))
				continue
			}
			r.Attempts = i
		case "delay":
			r.Delay = fs.duration(v, "retry.delay")
		case "backoff":
			var f float64
			switch x := scalarValue(v).(type) {
			case int:
				f = float64(x)
			case float64:
				f = x
			}
			if f < 1 || f > 10 {
				fs.errf(v, "retry.backoff: expected a multiplier from 1 to 10 (e.g. 2), got %s", kindName(v))
				continue
			}
			r.Backoff = f
		case "on":
			if v.Kind != yaml.SequenceNode {
				fs.errf(v, "retry.on: expected a list of error codes, got %s", kindName(v))
				continue
			}
			for _, c := range v.Content {
				code := protocol.ErrorCode(c.Value)
				info, ok := protocol.Contract[code]
				if !ok {
					fs.errf(c, "retry.on: unknown error code %q (expected one of %s)", c.Value, retryableCodes())
					continue
				}
				if info.Retry == protocol.RetryNever {
					fs.errf(c, "retry.on: %s is never retried (the error contract says: %s)", code, info.Next)
					continue
				}
				r.On = append(r.On, code)
			}
		default:
			fs.errf(k, "unknown key %q in retry (expected attempts, delay, backoff, on)", k.Value)
		}
	}
	if r.On == nil {
		r.On = []protocol.ErrorCode{protocol.CodeTimeout}
	}
	return r
}

// retryableCodes lists, in protocol order, the codes the error contract
// lets a flow name in retry.on.
func retryableCodes() string {
	var names []string
	for _, c := range protocol.Codes {
		if protocol.Contract[c].Retry != protocol.RetryNever {
			names = append(names, string(c))
		}
	}
	return strings.Join(names, ", ")
}

func (fs *fileScope) setStep(meta StepMeta, v *yaml.Node) Step {
	if v.Kind != yaml.MappingNode {
		fs.errf(v, "set: expected a mapping of var: expression, got %s", kindName(v))
		return nil
	}
	st := &SetStep{StepMeta: meta}
	for _, kv := range fs.pairs(v) {
		if !identRe().MatchString(kv[0].Value) {
			fs.errf(kv[0], "set: %q is not an identifier (expected letters, digits and _)", kv[0].Value)
			continue
		}
		var t *expr.Template
		if kv[1].Kind == yaml.ScalarNode && kv[1].Tag == "!!str" && !strings.Contains(kv[1].Value, "${{") {
			t = &expr.Template{Raw: kv[1].Value, Whole: fs.expr(kv[1], "set."+kv[0].Value)}
		} else {
			t = fs.template(kv[1], "set."+kv[0].Value)
		}
		st.Names = append(st.Names, kv[0].Value)
		st.Values = append(st.Values, t)
		fs.markVar(kv[0].Value) // assigned in order: the next value may read it
	}
	return st
}

func (fs *fileScope) runStep(meta StepMeta, v *yaml.Node, with [2]*yaml.Node) Step {
	rel := fs.str(v, "run")
	if rel == "" {
		return nil
	}
	st := &RunStep{StepMeta: meta, Path: rel}
	path := filepath.Join(fs.flow.Dir, rel)
	st.Sub = fs.l.loadFile(path, func(format string, args ...any) { fs.errf(v, format, args...) })
	if with[1] != nil {
		if with[1].Kind != yaml.MappingNode {
			fs.errf(with[1], "with: expected a mapping of var: value, got %s", kindName(with[1]))
		} else {
			for _, kv := range fs.pairs(with[1]) {
				if st.Sub != nil && !hasVarDef(st.Sub.Vars, kv[0].Value) {
					fs.errf(kv[0], "with: %s does not declare var %q (expected one of: %s)", rel, kv[0].Value, varNames(st.Sub.Vars))
					continue
				}
				st.WithNames = append(st.WithNames, kv[0].Value)
				st.WithValues = append(st.WithValues, fs.template(kv[1], "with."+kv[0].Value))
			}
		}
	}
	return st
}

func hasVarDef(vs []VarDef, name string) bool {
	for _, v := range vs {
		if v.Name == name {
			return true
		}
	}
	return false
}

func varNames(vs []VarDef) string {
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (fs *fileScope) repeatStep(meta StepMeta, v *yaml.Node) Step {
	if v.Kind != yaml.MappingNode {
		fs.errf(v, "repeat: expected a mapping with times, while or until, and steps, got %s", kindName(v))
		return nil
	}
	st := &RepeatStep{StepMeta: meta}
	var stepsNode, untilNode *yaml.Node
	modes := 0
	for _, kv := range fs.pairs(v) {
		k, val := kv[0], kv[1]
		switch k.Value {
		case "times":
			modes++
			st.Times = fs.template(val, "repeat.times")
			if st.Times.IsLiteral() {
				if i, ok := st.Times.Lit.(int); !ok || i < 0 {
					fs.errf(val, "repeat.times: expected a non-negative integer, got %s", kindName(val))
				} else {
					fs.warnPasses(val, "times", i)
				}
			}
		case "while":
			modes++
			st.While = fs.expr(val, "repeat.while")
		case "until":
			modes++
			untilNode = val
		case "max":
			i, ok := scalarValue(val).(int)
			if !ok || i < 1 {
				fs.errf(val, "repeat.max: expected a positive integer, got %s", kindName(val))
				continue
			}
			st.Max = i
			fs.warnPasses(val, "max", i)
		case "steps":
			stepsNode = val
		default:
			fs.errf(k, "unknown key %q in repeat (expected times, while, until, max, steps)", k.Value)
		}
	}
	if modes != 1 {
		fs.errf(v, "repeat: expected exactly one of times, while or until, got %d", modes)
	}
	if stepsNode == nil {
		fs.errf(v, "repeat: missing steps (expected steps: a list of steps)")
	} else {
		st.Steps = fs.steps(stepsNode, "repeat.steps")
	}
	// until runs after each pass, so it may read the body's `as` names.
	if untilNode != nil {
		st.Until = fs.expr(untilNode, "repeat.until")
	}
	if st.Max == 0 {
		st.Max = DefaultRepeatMax
	}
	return st
}

// lintMaxPasses is the most passes a repeat's times or max may ask for
// without a warning: more is rarely meant (a typo, a forgotten exit) and
// runs until the flow's timeout.
const lintMaxPasses = 10_000

// warnPasses warns about a repeat's times or max over lintMaxPasses.
func (fs *fileScope) warnPasses(n *yaml.Node, key string, passes int) {
	if passes > lintMaxPasses {
		fs.warnf(n, "repeat.%s: %d is over %d passes; check it is meant (a loop this long may run until the flow's timeout)", key, passes, lintMaxPasses)
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
