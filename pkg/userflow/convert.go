package userflow

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
