package flow

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
)

// retry reads a step's retry: policy.
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
