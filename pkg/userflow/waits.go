package userflow

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

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
