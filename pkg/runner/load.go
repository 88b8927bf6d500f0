package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults of a flow's limits, as docs/flows.md#flow-keys
// documents them.
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
	// Dialogs is the flow's dialogs policy (Dialogs*), "" when the flow
	// sets none: a sub-flow then keeps its caller's, a top flow leaves
	// dialogs open.
	Dialogs string
	// Serve is a directory to serve on loopback for the run, "" for none.
	Serve string
	// Tags label the flow for `bua run --tag/--exclude-tag` (Selection).
	Tags      []string
	Steps     []Step
	OnFailure []Step
	Finally   []Step
	// Warnings are what `bua lint` warns about in this file and the
	// sub-flows it runs (Diagnostic.Warning); they do not stop a run.
	Warnings Diagnostics
	// envNames are every env.NAME any expression reads, so the runner can
	// fill `env` from an injected Getenv.
	envNames []string
	// optVars are the names the file's expressions read as vars that may
	// be missing (vars.NAME ?? DEFAULT, vars.NAME != nil, ...): only
	// --var may give them. readsBaseURL says an expression reads
	// vars.base_url.
	optVars      map[string]bool
	readsBaseURL bool
	// unserved are the file's reads of vars.base_url that nothing in the
	// file sets (no serve: key, no base_url var, no set: step): the run
	// must (Runner.Load).
	unserved Diagnostics
	// ownObstacles are the obstacles keys the file sets (nil: none), and
	// ownTimeout and ownStepTimeout whether it sets timeout and
	// defaults.timeout: run as a sub-flow, it keeps its caller's policy
	// for each key it does not set (State.child).
	ownObstacles               *ObstaclePolicy
	ownTimeout, ownStepTimeout bool
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
	l.warns.sort()
	if len(l.diags) > 0 {
		l.diags.sort()
		return nil, &LoadError{Diags: l.diags, Warnings: l.warns}
	}
	f.Warnings = l.warns
	return f, nil
}

type loader struct {
	diags   Diagnostics
	warns   Diagnostics
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
	// vars are the var names set: steps assigned or expressions tested so
	// far; allVars every name under vars:, allSets every name a set: step
	// assigns, with its line (load_vars.go).
	vars    map[string]bool
	allVars []string
	allSets map[string]int
}

func (fs *fileScope) errf(n *yaml.Node, format string, args ...any) {
	// A node without a position (an empty document) is reported at 1:1:
	// every diagnostic names a real file:line:col.
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, max(n.Column, 1)
	}
	fs.l.diags = append(fs.l.diags, Diagnostic{File: fs.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// warnf records a warning at n: a finding that does not make the flow
// invalid.
func (fs *fileScope) warnf(n *yaml.Node, format string, args ...any) {
	fs.l.warns = append(fs.l.warns, Diagnostic{File: fs.file, Line: n.Line, Col: max(n.Column, 1), Msg: fmt.Sprintf(format, args...), Warning: true})
}

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
			from("sub-flow file %s cannot be read: %v", ReportPath(path), unwrapPathError(err))
		} else {
			l.diags = append(l.diags, unreadable(path, err))
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
	doc, bad := fs.decode(data)
	if bad != nil {
		l.diags = append(l.diags, *bad)
		return nil
	}
	if len(doc.Content) == 0 {
		fs.errf(doc, "empty flow (expected a mapping with name and steps)")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		fs.errf(root, "a flow is a mapping (expected keys name, vars, steps, ...), got %s", kindName(root))
		return nil
	}
	collectAs(root, fs.allAs)
	fs.scanVars(root)
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

// decode reads the file's one YAML document (empty for an empty file). A
// later document is an error at its start: yaml.Unmarshal would drop it
// without a word, and steps the author wrote would never run. A later
// document holding nothing (a trailing ---) loses nothing and passes.
func (fs *fileScope) decode(data []byte) (*yaml.Node, *Diagnostic) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		d := yamlDiagnostic(fs.file, data, dec, err)
		return nil, &d
	}
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			return &doc, nil
		}
		if err != nil {
			d := yamlDiagnostic(fs.file, data, dec, err)
			return nil, &d
		}
		if len(next.Content) > 0 && next.Content[0].Tag != "!!null" {
			fs.errf(&next, "a second YAML document starts here, and a flow file holds one flow (move it to a file of its own, or delete from this --- on)")
			return &doc, nil
		}
	}
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

var flowKeys = []string{"name", "description", "tags", "vars", "secrets", "timeout", "defaults", "obstacles", "dialogs", "serve", "steps", "on_failure", "finally"}

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
		case "tags":
			f.Tags = fs.tags(v)
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
			f.ownTimeout = f.Timeout > 0
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
				f.ownStepTimeout = f.StepTimeout > 0
			}
		case "obstacles":
			own := fs.obstacles(v, ObstaclePolicy{})
			f.ownObstacles = &own
			f.Obstacles = DefaultObstaclePolicy.override(&own)
		case "dialogs":
			switch d := fs.str(v, "dialogs"); d {
			case DialogsAccept, DialogsDismiss, DialogsLeave:
				f.Dialogs = d
			default:
				fs.errf(v, "dialogs: %q is not a policy (expected accept, dismiss or leave)", d)
			}
		case "serve":
			if s := fs.str(v, "serve"); s != "" {
				f.Serve = filepath.Join(f.Dir, s)
				fs.checkServe(v, s)
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
	defer func() {
		if f.Serve != "" { // serve: may come below the steps that read it
			f.unserved = nil
		}
	}()
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
		if !identRe().MatchString(kv[0].Value) {
			fs.errf(kv[0], "var name %q is not an identifier (expected letters, digits and _)", kv[0].Value)
			continue
		}
		fs.flow.Vars = append(fs.flow.Vars, VarDef{Name: kv[0].Value, Value: fs.template(kv[1], "vars."+kv[0].Value)})
	}
}

var identRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func (fs *fileScope) obstacles(n *yaml.Node, base ObstaclePolicy) ObstaclePolicy {
	p := base
	if n.Kind != yaml.MappingNode {
		fs.errf(n, "obstacles: expected a mapping such as { high: stop, low: continue }, got %s", kindName(n))
		return p
	}
	for _, kv := range fs.pairs(n) {
		if kv[0].Value == "timeout" {
			p.Timeout = fs.duration(kv[1], "obstacles.timeout")
			continue
		}
		val := fs.str(kv[1], "obstacles."+kv[0].Value)
		if val != "" && val != PolicyStop && val != PolicyContinue && val != PolicyHandoff {
			fs.errf(kv[1], "obstacles.%s: %q is not a policy (expected stop, continue or handoff)", kv[0].Value, val)
			continue
		}
		switch kv[0].Value {
		case "high":
			p.High = val
		case "low":
			p.Low = val
		default:
			fs.errf(kv[0], "unknown key %q in obstacles (expected high, low or timeout)", kv[0].Value)
		}
	}
	return p
}
