package report

import (
	"fmt"
	"slices"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Evidence is what the runner gathers when a step fails a flow, for the
// evidence bundle (--artifacts) and the HTML report: the page at failure
// (screenshot, extract), the tab's trace since the flow started, and the
// values the failing expression read. Every string in it is already masked
// with the flow's secrets.
type Evidence struct {
	// Screenshot is the current tab as a JPEG (nil when the capture failed).
	Screenshot []byte
	// Extract is the page at failure, read again when the step failed (or
	// the flow's last extract when that read failed), as decoded JSON:
	// markdown, elements, obstacle, url, title.
	Extract map[string]any
	// ExtractSource says which: "at failure" or "last extract".
	ExtractSource string
	// Trace holds the tab's trace events with t at or after the flow's
	// start (per docs/protocol.md#action-get_trace), oldest first; TraceDropped counts
	// the events the ring had evicted; TraceNote says why there is no trace
	// when there is none (an extension without the trace feature).
	Trace        []protocol.TraceEvent
	TraceDropped int
	TraceNote    string
	// Exprs are the failing step's expressions (an assert, if, while or
	// until condition) with the value of every name each one read.
	Exprs []ExprReads
	// Notes are capture failures: what could not be gathered, and why.
	Notes []string
}

// ExprReads is one expression and the values of the names it read.
type ExprReads struct {
	Src    string      `json:"expression"`
	Values []ExprValue `json:"values"`
}

// Console returns the trace's console messages and exceptions.
func (e *Evidence) Console() []protocol.TraceEvent {
	return e.kinds(protocol.TraceConsole, protocol.TraceException)
}

// FailedRequests returns the trace's failed requests and 4xx/5xx
// responses.
func (e *Evidence) FailedRequests() []protocol.TraceEvent {
	return e.kinds(protocol.TraceRequest)
}

// junitLines are the console errors, exceptions and failed requests as
// JUnit's system-out shows them: "console error: TEXT", "failed request:
// GET URL 404".
func (e *Evidence) junitLines() []string {
	var out []string
	for _, ev := range e.Console() {
		switch {
		case ev.Kind == protocol.TraceException:
			out = append(out, "exception: "+firstLine(ev.Text))
		case ev.Level == "error":
			out = append(out, "console error: "+firstLine(ev.Text))
		}
	}
	for _, ev := range e.FailedRequests() {
		status := ev.ErrorText
		if ev.Status != 0 {
			status = fmt.Sprint(ev.Status)
		}
		out = append(out, fmt.Sprintf("failed request: %s %s %s", ev.Method, ev.URL, status))
	}
	return out
}

func (e *Evidence) kinds(kinds ...string) []protocol.TraceEvent {
	if e == nil {
		return nil
	}
	var out []protocol.TraceEvent
	for _, ev := range e.Trace {
		if slices.Contains(kinds, ev.Kind) {
			out = append(out, ev)
		}
	}
	return out
}

// ExprValue is one name a failing expression read and its value when the
// step failed: Src is an identifier or a member chain as written
// ("page.title", "vars.user"), Value its value (large strings and lists
// elided, secrets masked), Error why it could not be evaluated.
type ExprValue struct {
	Src   string `json:"expr"`
	Value any    `json:"value"`
	Error string `json:"error,omitempty"`
}

// The evidence bundle's files, in Artifacts/<flow file>/<step>/ (the engine's
// bundleDir).
// JSON files are indented; every string in them is masked.
const (
	BundleScreenshot = "screenshot.jpg" // the current tab when the step failed
	BundleMarkdown   = "page.md"        // the extract's markdown
	BundleElements   = "elements.json"  // the extract's elements, with url, title and elementsTotal
	BundleObstacle   = "obstacle.json"  // the extract's obstacle verdict (null: none seen)
	BundleTrace      = "trace.json"     // the tab's trace since the flow started
	BundleSteps      = "steps.json"     // the step log: every step so far, params resolved
	BundleValues     = "values.json"    // the failing expression's names and their values
)
