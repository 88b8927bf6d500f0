package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Defaults of a flow's limits, per the flows issue.
const (
	DefaultFlowTimeout = 5 * time.Minute
	DefaultStepTimeout = 30 * time.Second
	// DefaultRepeatMax bounds a while/until loop that sets no max.
	DefaultRepeatMax = 100
)

// Flow is one loaded and validated flow file.
type Flow struct {
	Name string
	// File is the path as given (or joined from the caller's directory for a
	// sub-flow); Dir is its directory, which relative paths start from.
	File, Dir string
	Vars      []VarDef
	Secrets   []string
	// Timeout bounds the whole flow; StepTimeout each leaf step attempt.
	Timeout, StepTimeout time.Duration
	Obstacles            ObstaclePolicy
	// Serve is a directory to serve on loopback for the run, "" for none.
	Serve     string
	Steps     []Step
	OnFailure []Step
	Finally   []Step
	// envNames are every env.NAME any expression reads, so the runner can
	// fill `env` from an injected Getenv.
	envNames []string
}

// VarDef is one declared var and its default (which may interpolate env
// and earlier vars).
type VarDef struct {
	Name  string
	Value *Template
}

// Load reads and validates the flow at path and every sub-flow it runs.
// The error is a *LoadError holding every diagnostic.
func Load(path string) (*Flow, error) {
	l := &loader{flows: map[string]*Flow{}, loading: map[string]bool{}}
	f := l.loadFile(path, nil)
	if len(l.diags) > 0 {
		l.diags.sort()
		return nil, &LoadError{Diags: l.diags}
	}
	return f, nil
}

type loader struct {
	diags   Diagnostics
	flows   map[string]*Flow // by absolute path
	loading map[string]bool
	chain   []string
}

// fileScope is one file's load: its diagnostics target and its `as` names.
type fileScope struct {
	l       *loader
	file    string
	flow    *Flow
	defined map[string]bool
	allAs   map[string]int // every as name in the file -> line
	envs    map[string]bool
}

func (fs *fileScope) errf(n *yaml.Node, format string, args ...any) {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	fs.l.diags = append(fs.l.diags, Diagnostic{File: fs.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// loadFile loads one file; from is the run step that referenced it (for
// missing-file and cycle diagnostics), nil for the top flow.
func (l *loader) loadFile(path string, from func(format string, args ...any)) *Flow {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if f, ok := l.flows[abs]; ok {
		return f
	}
	if l.loading[abs] {
		if from != nil {
			chain := append(append([]string{}, l.chain...), filepath.Base(path))
			from("sub-flow cycle: %s (a flow may not run itself, directly or not)", strings.Join(chain, " -> "))
		}
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if from != nil {
			from("sub-flow file %s cannot be read: %v", path, unwrapPathError(err))
		} else {
			l.diags = append(l.diags, Diagnostic{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("cannot read flow: %v", unwrapPathError(err))})
		}
		return nil
	}
	l.loading[abs] = true
	l.chain = append(l.chain, filepath.Base(path))
	defer func() {
		delete(l.loading, abs)
		l.chain = l.chain[:len(l.chain)-1]
	}()

	fs := &fileScope{l: l, file: path, defined: map[string]bool{}, allAs: map[string]int{}, envs: map[string]bool{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(msg, ": ")
		l.diags = append(l.diags, Diagnostic{File: path, Line: line, Col: 1, Msg: "malformed YAML: " + msg})
		return nil
	}
	if len(doc.Content) == 0 {
		fs.errf(&doc, "empty flow (expected a mapping with name and steps)")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		fs.errf(root, "a flow is a mapping (expected keys name, vars, steps, ...), got %s", kindName(root))
		return nil
	}
	collectAs(root, fs.allAs)
	f := &Flow{File: path, Dir: filepath.Dir(path), Timeout: DefaultFlowTimeout, StepTimeout: DefaultStepTimeout, Obstacles: DefaultObstaclePolicy}
	fs.flow = f
	fs.parseFlow(root)
	for n := range fs.envs {
		f.envNames = append(f.envNames, n)
	}
	sort.Strings(f.envNames)
	l.flows[abs] = f
	return f
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// collectAs finds every `as: NAME` in the file, so a name used before its
// step gets a precise message.
func collectAs(n *yaml.Node, out map[string]int) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "as" && n.Content[i+1].Kind == yaml.ScalarNode {
				if _, ok := out[n.Content[i+1].Value]; !ok {
					out[n.Content[i+1].Value] = n.Content[i+1].Line
				}
			}
		}
	}
	for _, c := range n.Content {
		collectAs(c, out)
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "an unknown node"
}

// pairs returns a mapping's key/value pairs, reporting duplicate keys.
func (fs *fileScope) pairs(n *yaml.Node) [][2]*yaml.Node {
	seen := map[string]bool{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			fs.errf(k, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

var flowKeys = []string{"name", "description", "vars", "secrets", "timeout", "defaults", "obstacles", "serve", "steps", "on_failure", "finally"}

func (fs *fileScope) parseFlow(root *yaml.Node) {
	f := fs.flow
	var steps, onFailure, finally *yaml.Node
	for _, kv := range fs.pairs(root) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "name":
			f.Name = fs.str(v, "name")
		case "description":
			fs.str(v, "description")
		case "vars":
			fs.parseVars(v)
		case "secrets":
			if v.Kind != yaml.SequenceNode {
				fs.errf(v, "secrets: expected a list of var names, got %s", kindName(v))
				continue
			}
			for _, s := range v.Content {
				f.Secrets = append(f.Secrets, fs.str(s, "secrets entry"))
			}
		case "timeout":
			f.Timeout = fs.duration(v, "timeout")
		case "defaults":
			if v.Kind != yaml.MappingNode {
				fs.errf(v, "defaults: expected a mapping such as { timeout: 30s }, got %s", kindName(v))
				continue
			}
			for _, dkv := range fs.pairs(v) {
				if dkv[0].Value != "timeout" {
					fs.errf(dkv[0], "unknown key %q in defaults (expected timeout)", dkv[0].Value)
					continue
				}
				f.StepTimeout = fs.duration(dkv[1], "defaults.timeout")
			}
		case "obstacles":
			f.Obstacles = fs.obstacles(v, DefaultObstaclePolicy)
		case "serve":
			if s := fs.str(v, "serve"); s != "" {
				f.Serve = filepath.Join(f.Dir, s)
			}
		case "steps":
			steps = v
		case "on_failure":
			onFailure = v
		case "finally":
			finally = v
		default:
			if sug := suggest(k.Value, flowKeys); sug != "" {
				fs.errf(k, "unknown key %q at flow level (did you mean %s?)", k.Value, sug)
			} else {
				fs.errf(k, "unknown key %q at flow level (expected one of %s)", k.Value, strings.Join(flowKeys, ", "))
			}
		}
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(f.File), filepath.Ext(f.File))
	}
	for _, s := range f.Secrets {
		if !fs.hasVar(s) {
			fs.errf(root, "secrets: %q is not a declared var (expected a name under vars)", s)
		}
	}
	if steps == nil {
		fs.errf(root, "missing steps (expected steps: a list of steps)")
	} else {
		f.Steps = fs.steps(steps, "steps")
	}
	// Hooks see every as name of the main steps: at run time a name whose
	// step never ran is nil.
	if onFailure != nil {
		f.OnFailure = fs.steps(onFailure, "on_failure")
	}
	if finally != nil {
		f.Finally = fs.steps(finally, "finally")
	}
}

func (fs *fileScope) hasVar(name string) bool {
	for _, v := range fs.flow.Vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (fs *fileScope) parseVars(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		fs.errf(v, "vars: expected a mapping of name: default, got %s", kindName(v))
		return
	}
	for _, kv := range fs.pairs(v) {
		if !identRe.MatchString(kv[0].Value) {
			fs.errf(kv[0], "var name %q is not an identifier (expected letters, digits and _)", kv[0].Value)
			continue
		}
		fs.flow.Vars = append(fs.flow.Vars, VarDef{Name: kv[0].Value, Value: fs.template(kv[1], "vars."+kv[0].Value)})
	}
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (fs *fileScope) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		fs.errf(n, "%s: expected a string, got %s", what, kindName(n))
		return ""
	}
	return n.Value
}

func (fs *fileScope) duration(n *yaml.Node, what string) time.Duration {
	s := fs.str(n, what)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		fs.errf(n, "%s: bad duration %q (expected a positive Go duration such as 500ms, 30s or 2m)", what, s)
		return 0
	}
	return d
}

func (fs *fileScope) obstacles(n *yaml.Node, base ObstaclePolicy) ObstaclePolicy {
	p := base
	if n.Kind != yaml.MappingNode {
		fs.errf(n, "obstacles: expected a mapping such as { high: stop, low: continue }, got %s", kindName(n))
		return p
	}
	for _, kv := range fs.pairs(n) {
		val := fs.str(kv[1], "obstacles."+kv[0].Value)
		if val != "" && val != PolicyStop && val != PolicyContinue {
			fs.errf(kv[1], "obstacles.%s: %q is not a policy (expected stop or continue)", kv[0].Value, val)
			continue
		}
		switch kv[0].Value {
		case "high":
			p.High = val
		case "low":
			p.Low = val
		default:
			fs.errf(kv[0], "unknown key %q in obstacles (expected high or low)", kv[0].Value)
		}
	}
	return p
}

// known reports whether an expression may read name at this point.
func (fs *fileScope) known(name string) bool { return builtinNames[name] || fs.defined[name] }

func (fs *fileScope) later(name string) (int, bool) {
	line, ok := fs.allAs[name]
	return line, ok
}

// expr compiles a bare expression from a scalar node.
func (fs *fileScope) expr(n *yaml.Node, what string) *Expr {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		fs.errf(n, "%s: expected an expression, got %s", what, kindName(n))
		return &Expr{}
	}
	src := n.Value
	if strings.HasPrefix(strings.TrimSpace(src), "${{") && strings.HasSuffix(strings.TrimSpace(src), "}}") {
		// Tolerate the interpolation form where a bare expression is due.
		src = strings.TrimSpace(src)
		src = strings.TrimSpace(src[3 : len(src)-2])
	}
	return fs.compile(n, src, what)
}

func (fs *fileScope) compile(n *yaml.Node, src, what string) *Expr {
	e, xe := compileExpr(src, fs.known, fs.later)
	if xe != nil {
		fs.l.diags = append(fs.l.diags, Diagnostic{File: fs.file, Line: n.Line, Col: n.Column,
			Msg: fmt.Sprintf("%s: invalid expression: %s", what, xe.msg), Snippet: xe.snippet})
		return &Expr{Src: src}
	}
	for _, name := range e.envNames {
		fs.envs[name] = true
	}
	return e
}

// template reads any YAML value as a Template: scalars interpolate
// `${{ }}`, mappings and lists are not allowed (params are flat).
func (fs *fileScope) template(n *yaml.Node, what string) *Template {
	if n.Kind != yaml.ScalarNode {
		fs.errf(n, "%s: expected a scalar value, got %s", what, kindName(n))
		return &Template{}
	}
	t := &Template{Raw: n.Value}
	if n.Tag != "!!str" || !strings.Contains(n.Value, "${{") {
		t.Lit = scalarValue(n)
		return t
	}
	parts, _, msg := splitTemplate(n.Value)
	if msg != "" {
		fs.errf(n, "%s: %s", what, msg)
		return t
	}
	for i := range parts {
		if parts[i].Expr != nil {
			parts[i].Expr = fs.compile(n, parts[i].Text, what)
		}
	}
	if len(parts) == 1 && parts[0].Expr != nil {
		t.Whole = parts[0].Expr
		return t
	}
	t.Parts = parts
	return t
}

// scalarValue decodes a scalar to its YAML type: int, float64, bool, nil or
// string.
func scalarValue(n *yaml.Node) any {
	switch n.Tag {
	case "!!int":
		if i, err := strconv.Atoi(n.Value); err == nil {
			return i
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!null":
		return nil
	}
	return n.Value
}

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

// kindKeys lists every step kind for messages.
func kindKeys() string {
	var names []string
	for _, a := range protocol.Actions {
		names = append(names, string(a))
	}
	return strings.Join(append(names, controlKinds...), ", ")
}

func isAction(k string) bool {
	for _, a := range protocol.Actions {
		if string(a) == k {
			return true
		}
	}
	return false
}

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
		case isAction(k.Value) || contains(controlKinds, k.Value):
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
			if sug := suggest(k.Value, stepKeyNames()); sug != "" {
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
			if kv, ok := extra[k]; ok && !contains(keys, k) {
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
		case builtinNames[name] || helperNames[name]:
			fs.errf(asNode, "as: %q shadows a built-in name (vars, env, last, error, flow, uid, has, element are reserved; pick another name)", name)
		case isExprBuiltin(name):
			fs.errf(asNode, "as: %q shadows expr's builtin function %s (pick another name)", name, name)
		case !identRe.MatchString(name):
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
		if !identRe.MatchString(kv[0].Value) {
			fs.errf(kv[0], "set: %q is not an identifier (expected letters, digits and _)", kv[0].Value)
			continue
		}
		var t *Template
		if kv[1].Kind == yaml.ScalarNode && kv[1].Tag == "!!str" && !strings.Contains(kv[1].Value, "${{") {
			t = &Template{Raw: kv[1].Value, Whole: fs.expr(kv[1], "set."+kv[0].Value)}
		} else {
			t = fs.template(kv[1], "set."+kv[0].Value)
		}
		st.Names = append(st.Names, kv[0].Value)
		st.Values = append(st.Values, t)
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
		at := k
		// The validator names fields from the action ("action.url: ...");
		// a flow author wrote them as the step's params.
		msg := strings.TrimPrefix(err.Message, "action.")
		field, _, _ := strings.Cut(msg, ":")
		if n, ok := nodes[field]; ok {
			at = n
		} else if (field == "uid" || field == "selector") && nodes["target"] != nil {
			at = nodes["target"]
		}
		if rest, ok := strings.CutPrefix(msg, "action: missing required field "); ok {
			msg = "missing param " + strings.Trim(rest, `"`)
		} else {
			msg = strings.TrimPrefix(msg, "action: ")
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

func stepKeyNames() []string {
	var out []string
	for _, a := range protocol.Actions {
		out = append(out, string(a))
	}
	out = append(out, controlKinds...)
	for k := range modifierKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return append(out, "then", "else", "message", "with", "obstacles")
}

// suggest returns the candidate within edit distance 2 of s, if one is.
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
