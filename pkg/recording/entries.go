// Package recording is `bua record`'s side of a recording
// (docs/record.md#bua-record): it starts one on a tab through the extension's
// record actions (feature record), collects the steps the person's input
// makes (Collect: record_read, a long poll, until the recording ends or
// the caller stops it), and turns them into flow writer entries (Entries),
// so the flow follows the same locator and secret rules as `bua mcp
// --record` and `bua import`.
package recording

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
)

// SecretText is the text an entry carries for the secret numbered n: the
// extension never sends a secret's text (only its number), and the flow
// writer needs one text per secret, which it replaces with a var read
// from the environment and never writes.
func SecretText(n int) string { return fmt.Sprintf("\u2039bua secret %d\u203a", n) }

// inputs are the actions a navigation that follows them is put down to:
// the page went there because of the input (landed steps).
var inputs = map[protocol.ActionType]bool{
	protocol.ActionClick: true, protocol.ActionType_: true, protocol.ActionPressKey: true,
	protocol.ActionSelectOption: true, protocol.ActionUpload: true, protocol.ActionNavigate: true,
	protocol.ActionReload: true, protocol.ActionGoBack: true, protocol.ActionGoForward: true,
}

// Entries turns a recording's steps, in order, into flow writer entries:
//   - an action is an entry on its tab (its result says the tab, so the
//     writer can name a tab a click opened), with its element's describe
//     result, which the writer turns into a locator;
//   - a landed navigation is where the last input on its tab went
//     (URLAfter), which the writer waits for after that input; a new tab
//     is that input's newTabId;
//   - a double click replaces the click before it on the same element;
//   - the checks the person added: a text (wait_for text), the URL
//     (wait_for url, a glob of it) and the title (evaluate, then assert);
//   - a secret's number becomes SecretText, which the writer, seeing a
//     password field, reads from a BUA_ environment variable.
func Entries(steps []protocol.RecordedStep) []flowwriter.Entry {
	var out []flowwriter.Entry
	last := map[int]int{} // tab -> index in out of its last input
	titles := 0
	for _, s := range steps {
		i, hasInput := last[s.TabID]
		switch {
		case s.Landed:
			if hasInput {
				out[i].URLAfter = s.URL
				if s.Title != "" {
					out[i].Title = s.Title
				}
				if s.Masked {
					out[i].Problem = maskedProblem
				}
			}
		case s.NewTabID != nil && s.Action == nil:
			if hasInput {
				out[i].Result = result(s.TabID, s.NewTabID)
			}
		case s.AssertTitle != "":
			titles++
			out = append(out, titleCheck(s, titles)...)
		case s.AssertURL != "":
			out = append(out, flowwriter.Entry{Action: protocol.Action{Type: protocol.ActionWaitFor, URL: urlGlob(s.AssertURL)}, Result: result(s.TabID, nil), URLBefore: s.URL, Title: s.Title, Comment: "a check added while recording"})
		case s.Action != nil:
			e := entry(s)
			if hasInput && doubles(out[i], e) && i == len(out)-1 {
				out[i] = e
				continue
			}
			out = append(out, e)
			if inputs[e.Action.Type] {
				last[s.TabID] = len(out) - 1
			}
		}
	}
	return out
}

const maskedProblem = "a secret typed into a password field showed in the page's URL, and was replaced by *** there: check the step replays as recorded"

// entry is the entry of an action step.
func entry(s protocol.RecordedStep) flowwriter.Entry {
	a := *s.Action
	a.TabID = nil // the writer names tabs through results
	if s.Secret > 0 {
		t := SecretText(s.Secret)
		a.Text = &t
	}
	e := flowwriter.Entry{Action: a, Result: result(s.TabID, nil), Target: s.Target, URLBefore: s.URL, Title: s.Title, Comment: s.Comment, Problem: s.Problem}
	if s.Masked {
		e.Problem = maskedProblem
	}
	if a.Type == protocol.ActionWaitFor && a.Text != nil {
		e.Comment = "a check added while recording (Alt+Shift+click)"
	}
	return e
}

// doubles reports whether e, a click of clickCount 2 or 3, is the double
// (or triple) click whose first click is prev.
func doubles(prev, e flowwriter.Entry) bool {
	if e.Action.Type != protocol.ActionClick || e.Action.ClickCount == nil || *e.Action.ClickCount < 2 || prev.Action.Type != protocol.ActionClick {
		return false
	}
	before := 1
	if prev.Action.ClickCount != nil {
		before = *prev.Action.ClickCount
	}
	return before < *e.Action.ClickCount && reflect.DeepEqual(prev.Target, e.Target) && string(prev.Result) == string(e.Result)
}

// titleCheck is the check that the page's title is s.AssertTitle: an
// evaluate that reads it, bound as title_N, and an assert on its value.
func titleCheck(s protocol.RecordedStep, n int) []flowwriter.Entry {
	as := fmt.Sprintf("title_%d", n)
	return []flowwriter.Entry{
		{Action: protocol.Action{Type: protocol.ActionEvaluate, Expression: "return document.title"}, As: as, Result: result(s.TabID, nil), URLBefore: s.URL, Title: s.Title, Comment: "a check added while recording: the page's title"},
		{Assert: as + ".value == " + strconv.Quote(s.AssertTitle), AssertMessage: fmt.Sprintf("the page's title is %q", s.AssertTitle)},
	}
}

// result is an entry's result: the tab it acted on, and the tab it opened.
func result(tab int, newTab *int) json.RawMessage {
	raw, _ := json.Marshal(protocol.OKResult{OK: true, TabID: &tab, NewTabID: newTab})
	return raw
}

// urlGlob is the wait_for url glob of a URL the person checked: the URL
// itself, its path exactly and, when it has a query or fragment, any (they
// often hold a session's tokens or a time), as the flow writer waits for
// a navigation.
func urlGlob(u string) string {
	for i, c := range u {
		if c == '?' || c == '#' {
			if schemeEnd := len("https://"); i > schemeEnd {
				return flowwriter.GlobEscape(u[:i]) + string(c) + "**"
			}
		}
	}
	return flowwriter.GlobEscape(u)
}
