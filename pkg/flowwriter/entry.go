package flowwriter

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Header says how a recording was made; Write puts it in the flow's header
// comment and takes the flow's name from it.
type Header struct {
	// MadeBy names the producer as a person would type it: "bua mcp
	// --record", "bua record".
	MadeBy string `json:"madeBy"`
	// Command is the whole command line that made the recording, as run;
	// "" leaves it out.
	Command string `json:"command,omitempty"`
	// Time is when the recording ended; the zero time leaves the date out.
	Time time.Time `json:"time,omitzero"`
	// Name is the flow's name; "" takes the title of the first page the
	// recording saw, else its host.
	Name string `json:"name,omitempty"`
	// From is the file the flow was converted from (bua import): the
	// header then says the flow was converted, not recorded.
	From string `json:"from,omitempty"`
	// Notes are more lines for the header comment, after how to replay.
	Notes []string `json:"notes,omitempty"`
	// StepTimeout is the flow's defaults.timeout, the bound of each
	// attempt of an action step; zero leaves bua's default.
	StepTimeout time.Duration `json:"stepTimeout,omitempty"`
}

// Entry is one action that succeeded, as a producer logged it.
type Entry struct {
	// Action is the protocol action as it was sent (a uid target
	// included).
	Action protocol.Action `json:"action"`
	// Result is the action's result as the extension answered it. The
	// writer reads an extract's obstacle verdict, a result's tabId
	// (which tab the action acted on), open_tab's new tabId and go_back's
	// moved from it.
	Result json.RawMessage `json:"result,omitempty"`
	// Target is the describe result of the element the action targeted,
	// taken before the action ran: it turns a uid into a locator, and
	// tells a password field. A producer should describe every target of
	// type, even one given by selector or role: without it the writer can
	// only guess a password field from the selector's words.
	Target *protocol.DescribeResult `json:"target,omitempty"`
	// URLBefore and URLAfter are the tab's URL before and after the
	// action. A change is a navigation, which a wait_for on URLAfter
	// follows in the flow. URLBefore of the first entry is where a replay
	// starts when the recording did not start with a navigate. An empty
	// URLBefore is the URLAfter of the last entry on the same tab, so a
	// producer that reads the URL only after each action need not carry
	// it.
	URLBefore string `json:"urlBefore,omitempty"`
	URLAfter  string `json:"urlAfter,omitempty"`
	// Title is the page's title after the action: the flow's default name
	// (the first one), and a comment beside a navigation's wait_for.
	Title string `json:"title,omitempty"`
	// Obstacle is a verdict the page showed that the recording went on
	// past, for a producer that learnt it outside an extract (an extract's
	// own verdict is read from its Result).
	Obstacle *protocol.Obstacle `json:"obstacle,omitempty"`
	// Comment is written as a comment above the entry's step: why the
	// agent did it, what a placeholder stands for.
	Comment string `json:"comment,omitempty"`

	// The fields below are for a producer that converts a recording made
	// elsewhere (bua import), whose steps a flow replays with more than
	// one action, or with a check of the flow's own.

	// As binds the step's result under this name, for a later entry's If
	// or Assert (a tab reference the writer needs reuses it).
	As string `json:"as,omitempty"`
	// If guards the step: it runs only when this expression is true.
	If string `json:"if,omitempty"`
	// Timeout bounds one attempt of the step (its timeout modifier); zero
	// leaves the flow's default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Assert, on an entry with no Action (an empty Type), makes it an
	// assert step of this expression, AssertMessage its message.
	Assert        string `json:"assert,omitempty"`
	AssertMessage string `json:"assertMessage,omitempty"`
	// Problem says why the entry's step does not replay as the recording
	// did. It is written above the step as a "bua: edit this" comment and
	// listed in IncompleteError, as the writer's own problems are. An
	// entry with no Action and no Assert is a note: its Comment and
	// Problem go above the next step.
	Problem string `json:"problem,omitempty"`
}

// Log is a recording as one JSON document: the testdata/flowwriter goldens,
// and what a producer may save to write the flow again later.
type Log struct {
	Header  Header  `json:"header"`
	Entries []Entry `json:"entries"`
}

// Problem is an entry the writer could not turn into a step that replays,
// and why. Entry is its index in the log (0-based), or -1 for a step of the
// writer's own (the navigate to where the recording started).
// The step is still written, with the same text as a comment above it, so
// nothing is lost.
type Problem struct {
	Entry int
	Msg   string
}

func (p Problem) String() string {
	if p.Entry < 0 {
		return p.Msg
	}
	return fmt.Sprintf("entry %d: %s", p.Entry, p.Msg)
}

// IncompleteError is Write's error when the flow was written whole but some
// steps need a hand edit before it replays (Problems, each also a comment
// in the file). It is the producer's or the page's doing, never bua's: a
// uid with no describe result, an element with no locator, a secret that
// showed outside the field it was typed into.
type IncompleteError struct {
	Problems []Problem
}

func (e *IncompleteError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return fmt.Sprintf("the flow was written, but it needs a hand edit before it replays (see its \"bua: edit this\" comments): %s",
		strings.Join(msgs, "; "))
}
