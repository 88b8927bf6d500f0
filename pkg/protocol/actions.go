package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// ActionType names one action, per docs/protocol.md#actions. The
// constants (ActionNavigate, ...) and Actions are generated from the schema;
// ActionSpecs describes each one.
type ActionType string

// OneOrMany is a param the schema types [X, "array"]: one X stands for a
// list of one. It decodes either form and always encodes a list.
type OneOrMany[T any] []T

// UnmarshalJSON reads one T or a list of them.
func (l *OneOrMany[T]) UnmarshalJSON(b []byte) error {
	var one T
	if json.Unmarshal(b, &one) == nil {
		*l = OneOrMany[T]{one}
		return nil
	}
	var many []T
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// Target is how click, type, hover and wait_for address an element: exactly
// one of UID (from the last extract), Selector (CSS) or Role, the last with
// an optional Name (exact, or /pattern/flags) and Nth (0-based; nil means
// the one match); with Selector optionally Frame, the frame to look in (a
// part of its URL or its name).
type Target struct {
	UID      string
	Selector string
	Frame    string
	Role     string
	Name     string
	Nth      *int
}

// on returns a with t's fields set.
func (t Target) on(a Action) Action {
	a.UID, a.Selector, a.Frame, a.Role, a.Name, a.Nth = t.UID, t.Selector, t.Frame, t.Role, t.Name, t.Nth
	return a
}

var uidPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^e[0-9]+$`) })

// ParseTarget reads a command-line target: "e12" is a uid, anything else a
// CSS selector.
func ParseTarget(s string) Target {
	if uidPattern().MatchString(s) {
		return Target{UID: s}
	}
	return Target{Selector: s}
}

// Constructors for each action. They do not validate; Validate does.

// Handoff hands the tab to the person (state HandoffRequested, with the
// obstacle's type and message) or takes it back (HandoffResolved,
// HandoffAbandoned).
func Handoff(state, obstacleType, message string) Action {
	return Action{Type: ActionHandoff, State: state, ObstacleType: obstacleType, Message: message}
}

// Navigate loads url in the resolved tab and waits for its load event.
func Navigate(url string) Action { return Action{Type: ActionNavigate, URL: url} }

// Click dispatches a trusted mouse click at the target's centre.
func Click(t Target) Action { return t.on(Action{Type: ActionClick}) }

// Type focuses the target and inserts text.
func Type(t Target, text string) Action {
	return t.on(Action{Type: ActionType_, Text: &text})
}

// Hover moves the mouse to the target's centre.
func Hover(t Target) Action { return t.on(Action{Type: ActionHover}) }

// PressKey dispatches a key (or chord such as "Control+a") to the page.
func PressKey(key string) Action { return Action{Type: ActionPressKey, Key: key} }

// Scroll scrolls the page; amount <= 0 means one viewport.
func Scroll(direction string, amount int) Action {
	a := Action{Type: ActionScroll, Direction: direction}
	if amount > 0 {
		a.Amount = &amount
	}
	return a
}

// Screenshot captures a JPEG (q=80) of the viewport, or the full page.
func Screenshot(fullPage bool) Action {
	a := Action{Type: ActionScreenshot}
	if fullPage {
		a.FullPage = &fullPage
	}
	return a
}

// Extract returns text, markdown, elements and the obstacle verdict, of the
// page or of every element matching selector, in document order.
func Extract(selector string) Action { return Action{Type: ActionExtract, Selector: selector} }

// Evaluate runs expression as the body of an arrow-IIFE: use return.
func Evaluate(expression string) Action { return Action{Type: ActionEvaluate, Expression: expression} }

// WaitFor waits until the target exists; timeout <= 0 keeps the 10 s default.
func WaitFor(t Target, timeout time.Duration) Action {
	a := t.on(Action{Type: ActionWaitFor})
	if timeout > 0 {
		ms := int(timeout / time.Millisecond)
		a.TimeoutMs = &ms
	}
	return a
}

// Option is how select_option picks options: by ByValue, ByLabel or
// ByIndex, the schema's value, label and index.
type Option string

// The ways select_option picks options.
const (
	ByValue Option = "value"
	ByLabel Option = "label"
	ByIndex Option = "index"
)

// SelectOption chooses the target select's options whose value, label or
// 0-based index (by) is one of items; an index that is not a non-negative
// integer is left for Validate to refuse. No items deselects every option.
func SelectOption(t Target, by Option, items []string) (Action, error) {
	a := t.on(Action{Type: ActionSelectOption})
	switch by {
	case ByValue:
		a.Value = append([]string{}, items...)
	case ByLabel:
		a.Label = append([]string{}, items...)
	case ByIndex:
		a.Index = OneOrMany[int]{}
		for _, it := range items {
			i, err := strconv.Atoi(it)
			if err != nil || i < 0 {
				return a, fmt.Errorf("index %q is not a 0-based option position", it)
			}
			a.Index = append(a.Index, i)
		}
	default:
		return a, fmt.Errorf("select_option picks options by value, label or index, not %q", by)
	}
	return a, nil
}

// Upload sets the target file input's files from absolute paths; none
// clears it.
func Upload(t Target, files []string) Action {
	return t.on(Action{Type: ActionUpload, Files: append([]string{}, files...)})
}

// Wait is what wait_for waits for beside (or instead of) a target: Text
// shown in the page or the target, the target's (or the text's) State, or
// the tab's URL matching a glob or /regex/flags. Empty fields are left out.
type Wait struct {
	Text  string
	State string
	URL   string
}

// WaitUntil is wait_for with the conditions of w; t may be the zero Target
// when w has Text or URL. timeout <= 0 keeps the 10 s default.
func WaitUntil(t Target, w Wait, timeout time.Duration) Action {
	a := WaitFor(t, timeout)
	if w.Text != "" {
		a.Text = &w.Text
	}
	a.State, a.URL = w.State, w.URL
	return a
}

// Describe asks for the target's readable locators (DescribeResult).
func Describe(t Target) Action { return t.on(Action{Type: ActionDescribe}) }

// GoBack moves the tab one entry back in its history (result moved false
// when there is none).
func GoBack() Action { return Action{Type: ActionGoBack} }

// GoForward moves the tab one entry forward in its history.
func GoForward() Action { return Action{Type: ActionGoForward} }

// HandleDialog accepts (or dismisses) the dialog open on the tab; a
// non-nil promptText answers a prompt.
func HandleDialog(accept bool, promptText *string) Action {
	return Action{Type: ActionHandleDialog, Accept: &accept, PromptText: promptText}
}

// GetTabs lists the tabs the blocklist allows.
func GetTabs() Action { return Action{Type: ActionGetTabs} }

// OpenTab opens url in the BUA window (or a focused window when focus).
func OpenTab(url string, focus bool) Action {
	return Action{Type: ActionOpenTab, URL: url, Focus: focus}
}

// CloseTab closes tabID.
func CloseTab(tabID int) Action { return Action{Type: ActionCloseTab, TabID: &tabID} }

// OnTab returns a copy of a addressed to tabID.
func (a Action) OnTab(tabID int) Action {
	a.TabID = &tabID
	return a
}

// DefaultTimeout is the time a may take when the caller sets none, level
// (1) of the schema's timeout ladder (x-ladder): the action's budget
// (x-budgetMs), plus its timeoutMs param (or that param's default) for an
// action that waits, such as wait_for. The ladder's margins
// (LadderMargin) go on top; a caller's timeout replaces it.
func DefaultTimeout(a Action) time.Duration {
	spec, ok := ActionSpecs[a.Type]
	if !ok {
		return 30 * time.Second // unknown actions fail validation before this matters
	}
	d := spec.Budget
	if _, waits := spec.Param("timeoutMs"); waits {
		wait := DefaultWaitForTimeout
		if a.TimeoutMs != nil {
			wait = time.Duration(*a.TimeoutMs) * time.Millisecond
		}
		d += wait
	}
	return d
}

// Validate checks a against the schema's action rules (exactly one of
// selector/uid, timeoutMs <= 60000, absolute http(s) URLs, ...). The error
// is invalid_action with a message naming the field.
func (a Action) Validate() *Error {
	raw, err := json.Marshal(a)
	if err != nil {
		return Errorf(CodeInvalidAction, "action does not encode: %v", err)
	}
	return ValidateAction(raw)
}

// ValidateAction checks a raw action object against the schema. A failure
// is invalid_action; its Schema names the field ("action.url") and reason.
func ValidateAction(raw []byte) *Error {
	_, err := validate(validateActionValue, raw)
	return err
}
