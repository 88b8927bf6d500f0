package protocol

// GetTrace reads the tab's trace ring buffer from sequence number sinceSeq
// on (0: everything it still holds); a pure addition to v4, sent only to an
// extension whose hello lists the trace feature.
func GetTrace(sinceSeq int) Action {
	return Action{Type: ActionGetTrace, SinceSeq: &sinceSeq}
}

// The extension's trace bounds per tab (docs/extension.md §Trace): events,
// and UTF-8 bytes of the events' JSON. Rings are kept for at most
// TraceMaxTabs tabs.
const (
	TraceMaxEvents = 500
	TraceMaxBytes  = 256 << 10
	TraceMaxTabs   = 16
)

// Trace event kinds (schema $defs/traceEvent kind).
const (
	TraceConsole   = "console"    // Runtime.consoleAPICalled: Level, Text
	TraceException = "exception"  // Runtime.exceptionThrown: Text, URL
	TraceRequest   = "request"    // a failed request or a 4xx/5xx response: URL, Method, Status or ErrorText
	TraceNavigate  = "navigation" // a top-level navigation committed: URL
	TraceDialog    = "dialog"     // a JavaScript dialog opened: Level (its type), Text (its message); or bua answered it: also Answer and Action
	TraceAction    = "action"     // one of bua's own actions ended: Action, DurationMs, Code ("" when it succeeded)
)

// TraceEvent is one entry of a tab's trace ring buffer (schema
// $defs/traceEvent). Only the fields of its Kind are set. It never holds
// request or response bodies or headers, nor typed text.
type TraceEvent struct {
	Seq        int     `json:"seq"`
	T          float64 `json:"t"` // Unix milliseconds
	Kind       string  `json:"kind"`
	Level      string  `json:"level,omitempty"`
	Text       string  `json:"text,omitempty"` // at most 1,000 characters
	URL        string  `json:"url,omitempty"`
	Method     string  `json:"method,omitempty"`
	Status     int     `json:"status,omitempty"`
	ErrorText  string  `json:"errorText,omitempty"`
	Action     string  `json:"action,omitempty"`
	DurationMs int     `json:"durationMs,omitempty"`
	Code       string  `json:"code,omitempty"`
	// Answer is set on the dialog event bua records when it answers a
	// dialog (TraceAccepted or TraceDismissed), with Action the action
	// that answered it: handle_dialog, evaluate, or one sent with
	// dialogs (a pure addition to v4).
	Answer string `json:"answer,omitempty"`
}

// How bua answered a dialog (TraceEvent.Answer).
const (
	TraceAccepted  = "accepted"
	TraceDismissed = "dismissed"
)

// TraceResult is get_trace's result (schema $defs/result.get_trace):
// Events in Seq order, NextSeq to pass as sinceSeq next time, and Dropped,
// how many events after sinceSeq the ring had already evicted. The
// extension keeps at most TraceMaxEvents events and TraceMaxBytes bytes per
// tab (docs/extension.md §Trace).
type TraceResult struct {
	Events  []TraceEvent `json:"events"`
	NextSeq int          `json:"nextSeq"`
	Dropped int          `json:"dropped"`
	TabID   *int         `json:"tabId,omitempty"`
}
