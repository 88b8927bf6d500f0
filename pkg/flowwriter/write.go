package flowwriter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Flow is a compiled recording: the flow file's bytes, the environment
// variables a replay needs, and the steps that need a hand edit.
type Flow struct {
	YAML []byte
	// Env lists the environment variables the flow reads its secrets
	// from, in the order the header lists them.
	Env []EnvVar
	// Problems are the entries that did not become a step that replays
	// (also comments in YAML); nil when the flow is whole.
	Problems []Problem
	// Steps is how many entries became steps: 0 when the recording held
	// only reads (or nothing), and the flow replays nothing.
	Steps int
}

// EnvVar is one environment variable a replay needs: Name (BUA_PASSWORD)
// feeds the flow's secret var Var (password), the text typed into the
// field labelled Field ("" when it had no label).
type EnvVar struct {
	Name, Var, Field string
}

// What says what the variable holds, as the flow's header does: the text
// for the "Password" field.
func (v EnvVar) What() string { return "the text for " + field(v.Field) }

// Write writes to w the flow that replays entries without an agent, with h
// in its header comment (Compile). When some steps need a hand edit the
// whole flow is still written, and the error is an *IncompleteError
// listing them; any other error means nothing was written.
func Write(w io.Writer, h Header, entries []Entry) error {
	f, err := Compile(h, entries)
	if f == nil {
		return err
	}
	if _, werr := w.Write(f.YAML); werr != nil {
		return werr
	}
	return err
}

// Compile turns entries into a flow file, by the rules of the package doc
// and docs/record.md. The error is an *IncompleteError, with Flow set, when
// some entries need a hand edit; any other error (bua's own fault) comes
// with a nil Flow.
func Compile(h Header, entries []Entry) (*Flow, error) {
	b := &builder{entries: withURLsBefore(entries), notes: map[int][]string{}}
	root := b.build(h)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, fmt.Errorf("flowwriter: encoding the flow failed (a bug in bua, please report it): %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("flowwriter: encoding the flow failed (a bug in bua, please report it): %w", err)
	}
	f := &Flow{YAML: buf.Bytes(), Problems: b.problems, Steps: len(b.replay)}
	for _, sc := range b.secrets.list {
		f.Env = append(f.Env, EnvVar{Name: sc.Env, Var: sc.Var, Field: sc.Field})
	}
	if len(b.problems) > 0 {
		return f, &IncompleteError{Problems: b.problems}
	}
	return f, nil
}

// reads are the actions a replay leaves out: they change nothing on the
// page, and their answers were for the agent.
var reads = map[protocol.ActionType]bool{
	protocol.ActionExtract: true, protocol.ActionScreenshot: true, protocol.ActionGetTabs: true,
	protocol.ActionGetTrace: true, "describe": true,
}

// navigations are the actions that load a page by themselves.
var navigations = map[protocol.ActionType]bool{
	protocol.ActionNavigate: true, protocol.ActionOpenTab: true, protocol.ActionReload: true,
	protocol.ActionGoBack: true, protocol.ActionGoForward: true,
}

// targetParams are the params a step's target is made of: the writer
// writes them from the locator, never as the action had them.
var targetParams = map[string]bool{"uid": true, "selector": true, "role": true, "name": true, "nth": true, "frame": true}

// builder holds one Compile's state.
type builder struct {
	entries  []Entry
	replay   []int // the indexes of the entries that become steps
	base     string
	secrets  secretSet
	tabs     tabPlan
	passed   []passage
	steps    []*yaml.Node
	owners   []int // the entry each step came from, -1 for the writer's own
	problems []Problem
	notes    map[int][]string // entry -> its problems, as comments
	pending  []string         // comments for the next step
}

// passage is an obstacle verdict the recording went on past (after entry),
// on its own or by a handoff to the person.
type passage struct {
	entry            int
	typ, conf, where string
	handoff          bool
}

func (b *builder) build(h Header) *yaml.Node {
	for i, e := range b.entries {
		b.classify(i, e)
	}
	for _, i := range b.replay {
		// Every secret first, so text that repeats one anywhere in the
		// flow, even before the password field, reads the var.
		e := b.entries[i]
		if e.Action.Type == protocol.ActionType_ && e.Action.Text != nil && *e.Action.Text != "" && b.isPassword(e) {
			label, ac := "", ""
			if e.Target != nil {
				label, ac = e.Target.Label, e.Target.Autocomplete
			}
			b.secrets.add(*e.Action.Text, label, ac, b.taken)
		}
	}
	b.tabs = planTabs(b.entries, b.replay, b.problem)
	if len(b.replay) > 0 {
		b.start(b.entries[b.replay[0]])
	}
	prev := -1
	for n, i := range b.replay {
		b.noted(prev+1, i)
		b.entrySteps(i, n)
		prev = i
	}
	if b.noted(prev+1, len(b.entries)); len(b.pending) > 0 {
		// Problems with entries after the last step: a step to hold them.
		b.addStep(-1, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("log"), str("the recording ended here")}}, "")
	}
	b.maskSteps()
	root := b.root(h)
	if maskNode(root, &b.secrets) {
		b.problems = append(b.problems, Problem{Entry: -1, Msg: "a secret typed into a password field showed in the flow's vars, and was replaced by ***"})
	}
	sort.SliceStable(b.problems, func(i, j int) bool { return b.problems[i].Entry < b.problems[j].Entry })
	return root
}

// classify sorts entry i: a step to replay, a read left out (an extract's
// obstacle verdict is kept), or an action a flow cannot take.
func (b *builder) classify(i int, e Entry) {
	typ := e.Action.Type
	if e.Obstacle != nil {
		b.passed = append(b.passed, passage{entry: i, typ: string(e.Obstacle.Type), conf: string(e.Obstacle.Confidence), where: e.URLAfter})
	}
	if e.Problem != "" {
		b.problem(i, e.Problem)
	}
	switch spec := protocol.ActionSpecs[typ]; {
	case typ == "" && e.Assert != "":
		b.replay = append(b.replay, i)
	case typ == "":
		if e.Comment != "" { // a note: above the next step
			b.notes[i] = append([]string{e.Comment}, b.notes[i]...)
		}
	case typ == protocol.ActionExtract:
		var r protocol.ExtractResult
		if json.Unmarshal(e.Result, &r) == nil && r.Obstacle != nil {
			b.passed = append(b.passed, passage{entry: i, typ: string(r.Obstacle.Type), conf: string(r.Obstacle.Confidence), where: firstOf(r.URL, e.URLAfter)})
		}
	case reads[typ]:
	case typ == protocol.ActionHandoff:
		if e.Action.State == protocol.HandoffRequested {
			b.passed = append(b.passed, passage{entry: i, typ: e.Action.ObstacleType, conf: "high", where: e.URLBefore, handoff: true})
		}
	case spec == nil || spec.NoFlowStep:
		b.problem(i, fmt.Sprintf("%s is not an action a flow can take: left out", typ))
	default:
		b.replay = append(b.replay, i)
	}
}

// problem records a problem with entry i, to be written as a comment above
// its step, or above the next step for an entry that makes none.
func (b *builder) problem(i int, msg string) {
	b.problems = append(b.problems, Problem{Entry: i, Msg: msg})
	b.notes[i] = append(b.notes[i], "bua: edit this: "+msg)
}

// noted queues the problems of entries from up to to (excluded) for the
// next step.
func (b *builder) noted(from, to int) {
	for j := from; j < to; j++ {
		b.pending = append(b.pending, b.notes[j]...)
	}
}

// start opens the page the recording started on, when its first step does
// not load a URL of its own, so a replay starts where the recording did.
func (b *builder) start(first Entry) {
	if first.Action.Type == protocol.ActionNavigate || first.Action.Type == protocol.ActionOpenTab {
		return
	}
	if first.URLBefore == "" {
		return
	}
	nav := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("navigate"), b.urlNode(first.URLBefore)}}
	b.pending = append(b.pending, "the recording started on this page")
	b.addStep(-1, nav, "")
	b.waitStep("", first.URLBefore, "", "")
}

// entrySteps writes entry i's step (the n-th step replayed), and the
// wait_for that follows a navigation.
func (b *builder) entrySteps(i, n int) {
	e := b.entries[i]
	step, note := b.step(i, e)
	if e.Comment != "" {
		b.pending = append(b.pending, e.Comment)
	}
	b.noted(i, i+1)
	b.addStep(i, step, note)
	after, ok := b.landed(e)
	if !ok {
		return
	}
	if n+1 < len(b.replay) {
		if next := b.entries[b.replay[n+1]].Action; next.Type == protocol.ActionWaitFor && next.URL != "" {
			return // the recording's own wait_for on a URL follows
		}
	}
	b.waitStep(b.tabs.ref[i], after, e.URLBefore, e.Title)
}

// landed is the URL entry e navigated to, when it navigated: a navigation
// action's (go_back with moved false did not move), or any other action's
// when the URL changed under it.
func (b *builder) landed(e Entry) (string, bool) {
	if !navigations[e.Action.Type] {
		return e.URLAfter, e.URLAfter != "" && e.URLBefore != "" && e.URLAfter != e.URLBefore
	}
	var r protocol.OKResult
	_ = json.Unmarshal(e.Result, &r)
	if r.Moved != nil && !*r.Moved {
		return "", false
	}
	u := firstOf(e.URLAfter, r.URL, e.Action.URL)
	if e.Action.Type == protocol.ActionReload {
		u = firstOf(u, e.URLBefore)
	}
	return u, u != ""
}

// addStep appends a step made for entry owner, with the pending comments
// above it and note beside it.
func (b *builder) addStep(owner int, step *yaml.Node, note string) {
	step.HeadComment = strings.Join(b.pending, "\n")
	b.pending = nil
	if note != "" {
		step.Content[1].LineComment = note
	}
	b.steps = append(b.steps, step)
	b.owners = append(b.owners, owner)
}

// waitStep appends the wait_for on after, on the tab whose id ref gives
// ("" for the current tab), that follows a navigation from before.
func (b *builder) waitStep(ref, after, before, title string) {
	orig, glob := urlGlob(before, after, b.secrets.hides)
	params := []*yaml.Node{str("url"), b.originTemplate(orig, glob)}
	if ref != "" {
		params = append(params, str("tabId"), tmpl(part{text: ref, expr: true}))
	}
	note := ""
	if title != "" {
		note = fmt.Sprintf("%q", title)
	}
	b.addStep(-1, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("wait_for"), flowMap(params...)}}, note)
}

// step writes entry i's action as a flow step; note is a comment for
// beside it.
func (b *builder) step(i int, e Entry) (step *yaml.Node, note string) {
	defer func() { b.modifiers(i, e, step) }()
	a := e.Action
	if a.Type == "" {
		step = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("assert"), lit(e.Assert)}}
		if e.AssertMessage != "" {
			step.Content = append(step.Content, str("message"), lit(e.AssertMessage))
		}
		return step, ""
	}
	spec := protocol.ActionSpecs[a.Type]
	fields := actionFields(a)
	var params []*yaml.Node
	if spec.Target {
		params, note = b.target(i, e)
	}
	for _, p := range spec.Params {
		v, ok := fields[p.Name]
		if !ok || targetParams[p.Name] || p.Name == "tabId" {
			continue
		}
		params = append(params, str(p.Name), b.value(e, p.Name, v))
	}
	if ref := b.tabs.ref[i]; ref != "" {
		params = append(params, str("tabId"), tmpl(part{text: ref, expr: true}))
	} else if a.Type == protocol.ActionCloseTab && a.TabID != nil {
		params = append(params, str("tabId"), intNode(*a.TabID)) // planTabs said why
	}
	var v *yaml.Node
	switch {
	case len(params) == 2 && spec.Shorthand != "" && spec.Shorthand != "target" && params[0].Value == spec.Shorthand && params[1].Kind == yaml.ScalarNode:
		v = params[1]
	default:
		v = flowMap(params...)
	}
	step = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(string(a.Type)), v}}
	return step, note
}

// modifiers appends entry i's step modifiers to step: the as name it binds
// (its own, or the one a later step's tabId reads), if and timeout.
func (b *builder) modifiers(i int, e Entry, step *yaml.Node) {
	if as := firstOf(b.tabs.as[i], e.As); as != "" {
		step.Content = append(step.Content, str("as"), str(as))
	}
	if e.If != "" {
		step.Content = append(step.Content, str("if"), lit(e.If))
	}
	if e.Timeout > 0 {
		step.Content = append(step.Content, str("timeout"), str(e.Timeout.String()))
	}
}

// target writes the target params of entry i: a uid, or no target at all
// beside a describe result (an element bua record saw the person act on),
// becomes the locator the describe result gives (locate); a selector or
// role target the recording used is kept.
func (b *builder) target(i int, e Entry) (params []*yaml.Node, note string) {
	a := e.Action
	t := target{Role: a.Role, Name: a.Name, Nth: a.Nth, Selector: a.Selector, Frame: a.Frame}
	switch {
	case a.UID != "" && e.Target == nil:
		b.problem(i, fmt.Sprintf("%s acted on uid %s with no describe result, so no locator replaces it", a.Type, a.UID))
		return []*yaml.Node{str("uid"), str(a.UID)}, ""
	case a.UID != "" || (e.Target != nil && a.Role == "" && a.Selector == ""):
		var ok bool
		if t, note, ok = locate(e.Target); !ok && a.UID != "" {
			b.problem(i, fmt.Sprintf("%s on uid %s: %s", a.Type, a.UID, note))
			return []*yaml.Node{str("uid"), str(a.UID)}, ""
		} else if !ok {
			// A selector that lints, though it may find another element.
			t.Selector = firstOf(anySelector(e.Target), e.Target.Tag, "*")
			b.problem(i, fmt.Sprintf("%s on a <%s>: %s: the step takes %q, which may find another element; give it a target of its own", a.Type, e.Target.Tag, note, t.Selector))
		}
	}
	switch {
	case t.Role != "":
		params = append(params, str("role"), str(t.Role))
		if t.Name != "" {
			params = append(params, str("name"), lit(roleTargetName(t.Name)))
		}
		if t.Nth != nil {
			params = append(params, str("nth"), intNode(*t.Nth))
		}
	case t.Selector != "":
		params = append(params, str("selector"), lit(t.Selector))
	}
	if t.Frame != "" {
		params = append(params, str("frame"), lit(frameRef(t.Frame)))
	}
	return params, note
}

// value writes param name of entry e's action, v as JSON decoded it: a
// secret's text as its var, a URL to load against vars.base.
func (b *builder) value(e Entry, name string, v any) *yaml.Node {
	switch x := v.(type) {
	case string:
		typ := e.Action.Type
		if sc := b.secrets.byValue(x); sc != nil {
			return tmpl(part{text: "vars." + sc.Var, expr: true})
		}
		if name == "url" && (typ == protocol.ActionNavigate || typ == protocol.ActionOpenTab || typ == protocol.ActionWaitFor) {
			return b.urlNode(x) // a wait_for's glob too: its origin is a URL's
		}
		return lit(x)
	case json.Number:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: x.String()}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}
	case []any:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, item := range x {
			seq.Content = append(seq.Content, b.value(e, name, item))
		}
		return seq
	}
	return lit(fmt.Sprint(v)) // the schema has no other kind
}

// isPassword reports whether entry e typed into a password field: its
// describe result says so, or, with none, its selector or role name does.
func (b *builder) isPassword(e Entry) bool {
	if e.Target != nil {
		return e.Target.Password()
	}
	return passwordWords().MatchString(e.Action.Selector + " " + e.Action.Name)
}

// taken reports whether a var name is in use by something other than a
// secret.
func (b *builder) taken(name string) bool { return name == "base" }

// actionFields is a's JSON fields by name, numbers kept as json.Number.
func actionFields(a protocol.Action) map[string]any {
	raw, _ := json.Marshal(a)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	_ = dec.Decode(&m)
	return m
}

// withURLsBefore is a copy of entries in which an entry with no URLBefore
// has the URL the last entry on its tab left it at (its URLAfter), so a
// producer that reads the URL only after each action need not carry it.
// An entry whose tab is not known takes the last URL of any tab.
func withURLsBefore(entries []Entry) []Entry {
	out := slices.Clone(entries)
	last := map[int]string{} // tab -> its URL after the last entry on it; -1: any tab
	for i, e := range out {
		tab := -1
		if t := resultTab(e); t != nil {
			tab = *t
		} else if e.Action.TabID != nil {
			tab = *e.Action.TabID
		}
		if e.URLBefore == "" && e.Action.Type != protocol.ActionOpenTab {
			out[i].URLBefore = last[tab]
		}
		if e.URLAfter != "" {
			last[tab], last[-1] = e.URLAfter, e.URLAfter
		}
	}
	return out
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
