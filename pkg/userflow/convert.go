package userflow

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Options are what Convert writes in the flow's header.
type Options struct {
	// From names the recording's file in the header: "Converted with bua
	// import from FROM".
	From string
	// Command is the command line that converted it; "" leaves it out.
	Command string
	// Name is the flow's name; "" takes the recording's title.
	Name string
}

// Result is a converted recording.
type Result struct {
	// YAML is the flow file.
	YAML []byte
	// Env lists the environment variables the flow reads the text typed
	// into password fields from (flowwriter.EnvVar).
	Env    []flowwriter.EnvVar
	Report Report
}

// Convert turns a recording into a bua flow, by the mapping of
// docs/record.md ("Importing a Chrome DevTools Recorder flow"). Steps it
// cannot replay as recorded are still written where they can be, with a
// "bua: edit this" comment, and listed in Report.Problems; the error is
// only ever bua's own (the flow writer failing), with a nil Result.
func Convert(rec *Recording, opts Options) (*Result, error) {
	c := &converter{rec: rec, tabs: map[string]int{"main": mainTab}, frameTargets: map[string]bool{}, frameURLs: map[string]string{}, opener: -1}
	for i := 0; i < len(rec.Steps); i++ {
		i += c.step(i)
	}
	h := flowwriter.Header{MadeBy: "bua import", From: opts.From, Command: opts.Command, Name: cmp.Or(opts.Name, rec.Title)}
	if rec.Timeout > 0 {
		h.StepTimeout = time.Duration(rec.Timeout) * time.Millisecond
	}
	rep := c.report()
	h.Notes = rep.headerLines()
	f, err := flowwriter.Compile(h, c.entries)
	var inc *flowwriter.IncompleteError
	switch {
	case f == nil:
		return nil, err
	case errors.As(err, &inc):
		// The writer's own problems (a secret that showed outside its
		// field, a tab no step reports) are the steps' too.
		for _, p := range inc.Problems {
			if p.Entry >= 0 && p.Entry < len(c.stepOf) && p.Msg != c.entries[p.Entry].Problem {
				c.findings = append(c.findings, Finding{Step: c.stepOf[p.Entry], Type: rec.Steps[c.stepOf[p.Entry]].Type, Msg: p.Msg})
			}
		}
		rep = c.report()
	}
	return &Result{YAML: f.YAML, Env: f.Env, Report: rep}, nil
}

// mainTab is the tab id the converter gives the recording's main page;
// later tabs (popups) count up from it. The ids only tie steps to tabs
// for the flow writer: a replay names each tab through the step whose
// result reports it.
const mainTab = 1

// converter holds one Convert's state.
type converter struct {
	rec     *Recording
	entries []flowwriter.Entry
	stepOf  []int // entry -> the recording's step it came from

	findings []Finding
	notes    []Note
	cur      []string // the current step's problems

	tabs         map[string]int    // a target (main, or a popup's URL) -> its tab
	frameTargets map[string]bool   // targets taken for iframes
	frameURLs    map[string]string // a frame (frameKey) -> the URL it navigated to
	opener       int               // the entry of the input the previous step was, -1 if none
	held         []string          // modifiers a keyDown holds
	heldUsed     bool              // a key was pressed while they were held
}

// Finding is a step the flow does not replay as the recording did, and
// why: Step is its 0-based index, Type its type.
type Finding struct {
	Step int
	Type string
	Msg  string
}

func (f Finding) String() string { return fmt.Sprintf("step %d (%s): %s", f.Step+1, f.Type, f.Msg) }

// Note is something the flow does its own way, with no change to what it
// checks, and the steps (0-based) where it does.
type Note struct {
	What  string
	Msg   string
	Steps []int
}

func (n Note) String() string {
	steps := make([]string, len(n.Steps))
	for i, s := range n.Steps {
		steps[i] = fmt.Sprint(s + 1)
	}
	word := "step"
	if len(n.Steps) > 1 {
		word = "steps"
	}
	return fmt.Sprintf("%s (%s %s): %s", n.What, word, strings.Join(steps, ", "), n.Msg)
}

// Report says how a recording converted.
type Report struct {
	// Steps is how many steps the recording has.
	Steps int
	// Problems are the steps the flow does not replay as recorded, one
	// finding per reason, in step order; each is also a "bua: edit this"
	// comment in the flow.
	Problems []Finding
	// Notes are what the flow does its own way (click offsets, the
	// viewport), each with the steps where it does.
	Notes []Note
}

// Mapped is how many steps replay as recorded: those with no problem.
func (r Report) Mapped() int {
	bad := map[int]bool{}
	for _, p := range r.Problems {
		bad[p.Step] = true
	}
	return r.Steps - len(bad)
}

// headerLines are the report's lines for the flow's header comment.
func (r Report) headerLines() []string {
	lines := []string{fmt.Sprintf("%d of %d steps of the recording replay as recorded.", r.Mapped(), r.Steps)}
	if len(r.Problems) > 0 {
		lines = append(lines, "The others have a \"bua: edit this\" comment.")
	}
	for _, n := range r.Notes {
		lines = append(lines, n.String())
	}
	return lines
}

func (c *converter) report() Report {
	p := slices.Clone(c.findings)
	sort.SliceStable(p, func(i, j int) bool { return p[i].Step < p[j].Step })
	return Report{Steps: len(c.rec.Steps), Problems: p, Notes: c.notes}
}

// problem records a problem with the current step.
func (c *converter) problem(format string, args ...any) {
	c.cur = append(c.cur, fmt.Sprintf(format, args...))
}

// note records that step s does what in bua's own way, msg saying how.
func (c *converter) note(s *Step, what, msg string) {
	for i := range c.notes {
		if c.notes[i].What == what {
			if !slices.Contains(c.notes[i].Steps, s.Index) {
				c.notes[i].Steps = append(c.notes[i].Steps, s.Index)
			}
			return
		}
	}
	c.notes = append(c.notes, Note{What: what, Msg: msg, Steps: []int{s.Index}})
}

// step converts step i and returns how many steps after it it took too (a
// keyDown's keyUp).
func (c *converter) step(i int) (extra int) {
	s := &c.rec.Steps[i]
	c.cur = nil
	opener := c.opener
	c.opener = -1
	first := len(c.entries)
	var entries []flowwriter.Entry
	p, lead := c.where(s, opener)
	switch s.Type {
	case "navigate":
		entries = c.navigate(s, p)
	case "click", "doubleClick":
		entries = c.click(s, p)
	case "hover":
		entries = c.hover(s, p)
	case "change":
		entries = c.change(s, p)
	case "keyDown", "keyUp":
		entries, extra = c.key(s, p)
	case "scroll":
		entries = c.scroll(s, p)
	case "waitForElement":
		entries = c.waitForElement(s, p)
	case "waitForExpression":
		entries = c.waitForExpression(s, p)
	case "setViewport":
		entries = c.setViewport(s)
	case "close":
		entries = c.close(s, p)
	case "emulateNetworkConditions":
		c.problem("bua does not throttle the network: left out")
	case "customStep":
		c.problem("customStep %q is an extension's own step for @puppeteer/replay: left out", s.Name)
	default:
		c.problem("%s is not a step type of the Chrome DevTools Recorder format that bua knows (Schema.ts): left out", s.Type)
	}
	entries = append(lead, entries...)
	if len(c.cur) > 0 {
		for _, msg := range c.cur {
			c.findings = append(c.findings, Finding{Step: s.Index, Type: s.Type, Msg: msg})
		}
		where := fmt.Sprintf("step %d (%s)", s.Index+1, s.Type)
		if len(entries) == 0 {
			entries = []flowwriter.Entry{{}} // a note: the problem goes above the next step
		}
		k := len(lead) // the step's own first entry, after a popup's wait
		if k >= len(entries) {
			k = 0
		}
		entries[k].Problem = where + ": " + strings.Join(c.cur, "; ")
	}
	for _, e := range entries {
		if e.Action.Type != "" {
			tab := p.tab
			if e.Action.Type == protocol.ActionCloseTab && e.Action.TabID != nil {
				tab = *e.Action.TabID
			}
			e.Result = json.RawMessage(fmt.Sprintf(`{"ok":true,"tabId":%d}`, tab))
		}
		c.entries = append(c.entries, e)
		c.stepOf = append(c.stepOf, s.Index)
	}
	if inputs[s.Type] && len(c.entries) > first {
		c.opener = len(c.entries) - 1
	}
	return extra
}

// inputs are the steps whose input may open a tab (a popup's first step
// follows one).
var inputs = map[string]bool{"click": true, "doubleClick": true, "keyDown": true, "keyUp": true}

// place is where a step acts: the tab, and in it the frame as bua names
// one (Frame: a part of its URL), or an index path whose URL the recording
// does not give (Path).
type place struct {
	tab   int
	frame string
	path  []int
	key   string // the frame's key in frameURLs ("" for the top document)
}

func (p place) inFrame() bool { return p.frame != "" || p.path != nil }

// where is the place of step s. A target the recording has not met yet is
// a popup when the step before was an input (a click opens a window before
// the next step acts in it), else an out-of-process iframe of the main
// page (@puppeteer/replay looks for a page target with that URL, then a
// frame). A popup's first step is led by a wait for its URL on its tab
// (lead), and the input that opened it answers its newTabId.
func (c *converter) where(s *Step, opener int) (p place, lead []flowwriter.Entry) {
	tgt := s.Target
	if tgt == "" {
		tgt = "main"
	}
	tab, known := c.tabs[tgt]
	switch {
	case known:
		p.tab = tab
	case c.frameTargets[tgt]:
		p.tab = mainTab
		p.frame, p.key = urlPart(tgt), tgt
	case opener >= 0:
		tab = len(c.tabs) + mainTab
		c.tabs[tgt] = tab
		p.tab = tab
		var r struct {
			TabID int `json:"tabId"`
		}
		_ = json.Unmarshal(c.entries[opener].Result, &r)
		c.entries[opener].Result = json.RawMessage(fmt.Sprintf(`{"ok":true,"tabId":%d,"newTabId":%d}`, r.TabID, tab))
		lead = []flowwriter.Entry{{
			Action:  protocol.Action{Type: protocol.ActionWaitFor, URL: flowwriter.GlobEscape(tgt)},
			Comment: fmt.Sprintf("step %d acts on %s: taken as the tab the step above opened (a new target right after an input)", s.Index+1, tgt),
		}}
	default:
		c.frameTargets[tgt] = true
		p.tab = mainTab
		p.frame, p.key = urlPart(tgt), tgt
		lead = []flowwriter.Entry{{Comment: fmt.Sprintf("step %d acts on %s: taken as an iframe of the page (a new target that no input opened)", s.Index+1, tgt)}}
	}
	if len(s.Frame) > 0 {
		p.key = fmt.Sprintf("%s %v", tgt, s.Frame)
		if u, ok := c.frameURLs[p.key]; ok {
			p.frame = urlPart(u)
		} else {
			p.frame, p.path = "", s.Frame
		}
	}
	return p, lead
}

// urlPart is the part of a frame's URL that bua's frame names it by (a
// frame whose URL contains it): its path and query, which hold on
// another host (bua run --var base=...), or the whole URL when the path
// is only "/".
func urlPart(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.Path == "" || p.Path == "/" {
		return u
	}
	if p.RawQuery != "" {
		return p.EscapedPath() + "?" + p.RawQuery
	}
	return p.EscapedPath()
}

// targetAction sets the action's target from sel, the step's selectors
// (selectFrom), in place p: a role target, else a CSS selector. A guessed
// role, or no usable selector, is a problem: the step is still written,
// with its first selector as it was, so a replay stops there.
func (c *converter) targetAction(s *Step, p place, sel selection, a *protocol.Action) {
	t := sel.Target
	switch {
	case !t.ok():
		c.problem("%s", sel.Why)
		if len(s.Selectors) > 0 {
			t.Selector = strings.Join(s.Selectors[0], " ")
		} else {
			t.Selector = ":root"
		}
	case t.Guess != "":
		c.problem("%s", t.Guess)
	}
	a.Role, a.Name, a.Selector, a.Frame = t.Role, t.Name, t.Selector, p.frame
	if p.path != nil {
		if t.Role != "" {
			c.note(s, "frame index paths", "a role target is looked up in every frame, so the frame the recording names by its index needs no name")
		} else {
			c.problem("frame %v is named by its index, which bua does not take, and the recording gives no URL for it: add frame: (a part of the frame's URL, or its name)", p.path)
		}
	}
}

// landed applies step s's asserted navigation to e, the step's entry: in
// the top document the flow writer then waits for the URL; in a frame a
// wait for the frame at its new URL follows (returned).
func (c *converter) landed(s *Step, p place, e *flowwriter.Entry) []flowwriter.Entry {
	var after []flowwriter.Entry
	for _, ev := range s.AssertedEvents {
		switch {
		case ev.Type != "navigation":
			c.problem("asserted event %q is not checked (the format defines only navigation)", ev.Type)
		case ev.URL == "":
			c.note(s, "navigations with no URL", "the flow does not wait for them: the next step waits for its element")
		case !p.inFrame():
			e.URLAfter, e.Title = ev.URL, ev.Title
		default:
			c.frameURLs[p.key] = ev.URL
			after = append(after, flowwriter.Entry{Action: protocol.Action{Type: protocol.ActionWaitFor, Selector: ":root", Frame: urlPart(ev.URL), State: protocol.WaitAttached}})
		}
	}
	return after
}

// timeout is step s's own timeout, for its entry's timeout modifier.
func timeout(s *Step) time.Duration { return time.Duration(s.Timeout) * time.Millisecond }

func (c *converter) navigate(s *Step, p place) []flowwriter.Entry {
	switch {
	case s.URL == "":
		c.problem("it has no url: left out")
		return nil
	case !loadable(s.URL):
		c.problem("bua loads only http, https and about:blank URLs, not %s: left out", s.URL)
		return nil
	case p.inFrame():
		c.problem("it loads a page in a frame, and bua's navigate loads the tab: left out")
		return nil
	}
	e := flowwriter.Entry{Action: protocol.Navigate(s.URL), Timeout: timeout(s)}
	e.URLAfter = s.URL
	after := c.landed(s, p, &e)
	return append([]flowwriter.Entry{e}, after...)
}

func loadable(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (u == "about:blank" || (p.Scheme == "http" || p.Scheme == "https") && p.Host != "")
}

// buttons maps the Recorder's pointer buttons to click's.
var buttons = map[string]string{
	"primary": "", "auxiliary": protocol.MouseButtonMiddle, "secondary": protocol.MouseButtonRight,
	"back": protocol.MouseButtonBack, "forward": protocol.MouseButtonForward,
}

func (c *converter) click(s *Step, p place) []flowwriter.Entry {
	a := protocol.Action{Type: protocol.ActionClick}
	c.targetAction(s, p, selectFrom(s.Selectors, "button"), &a)
	if s.Button != "" {
		b, ok := buttons[s.Button]
		if !ok {
			c.problem("button %q is not a pointer button of the format: the click is a left click", s.Button)
		}
		a.Button = b
	}
	if s.Type == "doubleClick" {
		two := 2
		a.ClickCount = &two
	}
	if s.OffsetX != nil || s.OffsetY != nil {
		c.note(s, "click offsets", "bua clicks the element's centre, after checking that nothing covers it there")
	}
	if s.Duration != nil && *s.Duration > 0 {
		c.note(s, "click durations", "bua releases the button at once")
	}
	if s.DeviceType != "" && s.DeviceType != "mouse" {
		c.note(s, "pen and touch clicks", "bua clicks with the mouse")
	}
	e := flowwriter.Entry{Action: a, Timeout: timeout(s)}
	after := c.landed(s, p, &e)
	return append([]flowwriter.Entry{e}, after...)
}

func (c *converter) hover(s *Step, p place) []flowwriter.Entry {
	a := protocol.Action{Type: protocol.ActionHover}
	c.targetAction(s, p, selectFrom(s.Selectors, "button"), &a)
	e := flowwriter.Entry{Action: a, Timeout: timeout(s)}
	after := c.landed(s, p, &e)
	return append([]flowwriter.Entry{e}, after...)
}

// change sets a field's value in one step, as @puppeteer/replay's fill
// does: select_option when a selector says <select> (a tag, or the
// listbox role), else type with clear, which sets the value of what no one
// types into (a <select> the selectors do not reveal, a color or date
// input) as a fill does. A field whose selectors name a password keeps to
// type, so its text becomes a secret var and shows nowhere else.
func (c *converter) change(s *Step, p place) []flowwriter.Entry {
	sel := selectFrom(s.Selectors, "textbox")
	words := sel.Target.Name
	for _, path := range s.Selectors {
		words += " " + strings.Join(path, " ")
	}
	secret := flowwriter.SecretWords(words)
	value := s.Value
	e := flowwriter.Entry{Action: protocol.Action{Type: protocol.ActionType_, Text: &value, Clear: true}, Timeout: timeout(s)}
	switch {
	case sel.Tag == "select" || sel.Target.Role == "listbox":
		e.Action = protocol.Action{Type: protocol.ActionSelectOption, Value: protocol.OneOrMany[string]{value}}
	case secret:
		// What describe would say of it: the writer names the secret's
		// variable after the field's label, its accessible name.
		e.Target = &protocol.DescribeResult{Tag: "input", InputType: "password", Label: sel.Target.Name}
	}
	c.targetAction(s, p, sel, &e.Action)
	after := c.landed(s, p, &e)
	return append([]flowwriter.Entry{e}, after...)
}

// key converts a keyDown or keyUp. A keyDown whose keyUp follows it is one
// press_key (the two steps), with the modifiers keyDowns hold down before
// it as a chord (Shift+Tab); a modifier's keyDown and keyUp only hold and
// release it. Anything else (a key held over other steps, a keyUp with no
// keyDown, a modifier pressed alone) is a problem, since press_key presses
// and releases at once.
func (c *converter) key(s *Step, p place) ([]flowwriter.Entry, int) {
	if m := modifierKey(s.Key); m != "" {
		if s.Type == "keyDown" {
			if !slices.Contains(c.held, m) {
				c.held = append(c.held, m)
			}
			c.heldUsed = false
			return nil, 0
		}
		if !slices.Contains(c.held, m) {
			c.problem("%s is released with no keyDown before it", s.Key)
		} else if !c.heldUsed {
			c.problem("%s is pressed alone, and press_key takes a modifier only with a key (%s+a)", s.Key, m)
		}
		c.held = slices.DeleteFunc(c.held, func(h string) bool { return h == m })
		return nil, 0
	}
	if s.Type == "keyUp" {
		c.problem("keyUp %q has no keyDown right before it: press_key presses and releases a key at once", s.Key)
		return nil, 0
	}
	next := -1
	if s.Index+1 < len(c.rec.Steps) {
		if n := &c.rec.Steps[s.Index+1]; n.Type == "keyUp" && n.Key == s.Key && n.Target == s.Target {
			next = s.Index + 1
		}
	}
	if next < 0 {
		c.problem("keyDown %q is not followed by its keyUp: press_key presses and releases a key at once, so a key held over other steps is left out", s.Key)
		return nil, 0
	}
	k := pressKey(s.Key)
	if k == "" {
		c.problem("press_key has no key %q (it takes Enter, Tab, Escape, Backspace, Delete, Space, arrows, Home, End, PageUp, PageDown, F1-F12 and characters)", s.Key)
		c.findings = append(c.findings, Finding{Step: next, Type: "keyUp", Msg: fmt.Sprintf("it releases %q, pressed at step %d, which press_key cannot press", s.Key, s.Index+1)})
		return nil, 1
	}
	c.heldUsed = true
	chord := strings.Join(append(slices.Clone(c.held), k), "+")
	e := flowwriter.Entry{Action: protocol.PressKey(chord), Timeout: timeout(s)}
	after := c.landed(s, p, &e)
	up := &c.rec.Steps[next]
	after = append(after, c.landed(up, p, &e)...)
	return append([]flowwriter.Entry{e}, after...), 1
}

// scroll moves the page, or an element, to the position the recording
// scrolled it to, as @puppeteer/replay does (window.scroll, or the
// element's scrollTop and scrollLeft): bua's scroll action moves by an
// amount, so a page script does it.
func (c *converter) scroll(s *Step, p place) []flowwriter.Entry {
	if p.inFrame() {
		c.problem("it scrolls in a frame, and a flow's evaluate runs in the top document: left out")
		return nil
	}
	x, y := 0.0, 0.0
	if s.X != nil {
		x = *s.X
	}
	if s.Y != nil {
		y = *s.Y
	}
	var path []string
	if len(s.Selectors) > 0 {
		path = pageAlt(selectFrom(s.Selectors, "").Page)
		if path == nil {
			c.problem("its element has no CSS or XPath selector for the page script that scrolls it: left out")
			return nil
		}
	}
	c.note(s, "scrolls", "a page script scrolls to the recorded position (bua's scroll moves by an amount)")
	return []flowwriter.Entry{{Action: protocol.Action{Type: protocol.ActionEvaluate, Expression: scrollJS(path, x, y)}}}
}

// waitForElement waits as the recording did: a wait_for (state attached,
// or detached for visible: false) when the condition is "at least one
// element" and a bua target names it (attributes become CSS attribute
// selectors); else a page script that polls the condition
// (waitElementJS), and an assert on its answer; else a text wait for a
// text/ selector.
func (c *converter) waitForElement(s *Step, p place) []flowwriter.Entry {
	count, op, visible := 1, s.Operator, true
	if s.Count != nil {
		count = *s.Count
	}
	if s.Visible != nil {
		visible = *s.Visible
	}
	if op != "" && op != ">=" && op != "==" && op != "<=" {
		c.problem("operator %q is not one of >=, == and <=: read as >=", op)
		op = ">="
	}
	sel := selectFrom(s.Selectors, "")
	props := len(s.Properties) > 0 && string(s.Properties) != "{}"
	t := sel.Target
	simple := count == 1 && !props && (op == "" || op == ">=" || op == "==" && t.Role != "") && (len(s.Attributes) == 0 || t.Selector != "")
	wait := protocol.Action{Type: protocol.ActionWaitFor, State: protocol.WaitAttached}
	if !visible {
		wait.State = protocol.WaitDetached
	}
	if s.Timeout > 0 || c.rec.Timeout > 0 {
		ms := min(cmp.Or(s.Timeout, c.rec.Timeout), 60000)
		wait.TimeoutMs = &ms
	}
	switch {
	case t.ok() && simple && (p.path == nil || t.Role != ""):
		c.targetAction(s, p, sel, &wait)
		if t.Selector != "" && len(s.Attributes) > 0 {
			wait.Selector += attrSelector(s.Attributes)
		}
		return []flowwriter.Entry{{Action: wait}}
	case len(sel.Page) > 0 && !p.inFrame():
		d := pollWindow(cmp.Or(s.Timeout, c.rec.Timeout))
		path := pageAlt(sel.Page)
		js := waitElementJS(path, op, count, s.Attributes, s.Properties, visible, d)
		return c.pollSteps(s, js, d, fmt.Sprintf("the elements of %s did not match (%s)", strings.Join(path, " >> "), condition(op, count, s.Attributes, props, visible)))
	case sel.Text != "" && simple && len(s.Attributes) == 0:
		txt := sel.Text
		wait.Text = &txt
		wait.State = protocol.WaitVisible
		if !visible {
			wait.State = protocol.WaitHidden
		}
		wait.Frame = p.frame
		return []flowwriter.Entry{{Action: wait}}
	}
	// Nothing checks it as recorded: wait for the element, and say what
	// is not checked.
	c.targetAction(s, p, sel, &wait)
	if !simple {
		c.problem("its condition (%s) needs a page script, and no CSS or XPath selector of the step reaches the element in the top document: the flow waits for the element only", condition(op, count, s.Attributes, props, visible))
	}
	return []flowwriter.Entry{{Action: wait}}
}

// waitForExpression polls the expression in the page until it is truthy
// (@puppeteer/replay's waitForFunction), and asserts that it became so.
func (c *converter) waitForExpression(s *Step, p place) []flowwriter.Entry {
	if s.Expression == "" {
		c.problem("it has no expression: left out")
		return nil
	}
	if p.inFrame() {
		c.problem("it runs in a frame, and a flow's evaluate runs in the top document: the flow runs it there")
	}
	d := pollWindow(cmp.Or(s.Timeout, c.rec.Timeout))
	return c.pollSteps(s, waitExpressionJS(s.Expression, d), d, fmt.Sprintf("%s was not true", s.Expression))
}

// pollSteps are an evaluate of the polling page script js, bound as
// wait_N, and an assert that it answered true; the evaluate may take the
// poll's d and a margin for the answer.
func (c *converter) pollSteps(s *Step, js string, d time.Duration, what string) []flowwriter.Entry {
	as := fmt.Sprintf("wait_%d", s.Index+1)
	if cmp.Or(s.Timeout, c.rec.Timeout) > int(maxPoll.Milliseconds()) {
		c.note(s, "waits over 9 s", "a page script waits at most 9 s, within an evaluate's 10 s")
	}
	return []flowwriter.Entry{
		{Action: protocol.Action{Type: protocol.ActionEvaluate, Expression: js}, As: as, Timeout: d + 5*time.Second},
		{Assert: as + ".value == true", AssertMessage: fmt.Sprintf("step %d (%s): %s within %s", s.Index+1, s.Type, what, d)},
	}
}

// condition says a waitForElement's condition in words.
func condition(op string, count int, attrs map[string]string, props, visible bool) string {
	if op == "" {
		op = ">="
	}
	w := fmt.Sprintf("count %s %d", op, count)
	if len(attrs) > 0 {
		w += ", with attributes"
	}
	if props {
		w += ", with properties"
	}
	if !visible {
		w = "not (" + w + ")"
	}
	return w
}

// attrSelector is CSS attribute selectors for attrs, in name order:
// [name="value"] matches exactly the value getAttribute answers.
func attrSelector(attrs map[string]string) string {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "[%s=%s]", k, jsValue(attrs[k]))
	}
	return b.String()
}

// setViewport becomes a comment: a flow keeps the browser's viewport.
func (c *converter) setViewport(s *Step) []flowwriter.Entry {
	what := fmt.Sprintf("%dx%d", s.Width, s.Height)
	if s.IsMobile {
		what += ", mobile"
	}
	if s.HasTouch {
		what += ", touch"
	}
	c.note(s, "setViewport", "the replay keeps the browser's viewport (a managed browser's is 1280x720)")
	return []flowwriter.Entry{{Comment: fmt.Sprintf("step %d (setViewport %s): not replayed; the replay keeps the browser's viewport", s.Index+1, what)}}
}

// close closes the step's tab: a popup, or the main page.
func (c *converter) close(s *Step, p place) []flowwriter.Entry {
	if p.inFrame() {
		c.problem("it closes a frame's target, and bua closes tabs: left out")
		return nil
	}
	tab := p.tab
	return []flowwriter.Entry{{Action: protocol.Action{Type: protocol.ActionCloseTab, TabID: &tab}}}
}
