package protocol

// The record actions' answers (feature record; the schema's
// result.record_start, result.record_read and recordedStep): what `bua
// record` reads from the extension while the person acts on a tab.

// RecordStartResult is record_start's and record_stop's answer: the
// recording, named by TabID, the tab it started on; URL and Title are that
// tab's when it started (where a replay starts). Steps counts the steps
// made so far; Ended and Reason are set once it has ended.
type RecordStartResult struct {
	OK     bool            `json:"ok"`
	TabID  int             `json:"tabId"`
	URL    string          `json:"url"`
	Title  string          `json:"title,omitempty"`
	Steps  int             `json:"steps,omitempty"`
	Ended  bool            `json:"ended,omitempty"`
	Reason RecordEndReason `json:"reason,omitempty"`
}

// RecordReadResult is record_read's answer: the steps from sinceSeq on,
// NextSeq to read on from, Dropped steps the recording no longer held, and
// Ended (with Reason) once the recording is over and Steps holds its last
// ones.
type RecordReadResult struct {
	Steps   []RecordedStep  `json:"steps"`
	NextSeq int             `json:"nextSeq"`
	Dropped int             `json:"dropped"`
	Ended   bool            `json:"ended"`
	Reason  RecordEndReason `json:"reason,omitempty"`
}

// RecordedStep is one step of a recording (the schema's recordedStep): an
// input the person made on tab TabID (Action, without its target, and
// Target, the element as describe gives it, taken when they acted), a
// navigation the page made after their last input there (Landed: URL is
// where it went), a tab an input there opened (NewTabID, which the
// recording follows), or a check they asked for (Action wait_for for a
// text, AssertURL, AssertTitle). URL and Title are the tab's when the step
// was recorded.
//
// Text typed into a password field never leaves the browser: Secret is its
// number in the recording (the same text has the same number wherever it
// was typed) and Action.Text is nil; Masked says a secret showed in URL
// and was replaced by ***.
type RecordedStep struct {
	Seq         int             `json:"seq"`
	TabID       int             `json:"tabId"`
	Action      *Action         `json:"action,omitempty"`
	Target      *DescribeResult `json:"target,omitempty"`
	URL         string          `json:"url"`
	Title       string          `json:"title,omitempty"`
	Landed      bool            `json:"landed,omitempty"`
	NewTabID    *int            `json:"newTabId,omitempty"`
	Secret      int             `json:"secret,omitempty"`
	Masked      bool            `json:"masked,omitempty"`
	AssertURL   string          `json:"assertUrl,omitempty"`
	AssertTitle string          `json:"assertTitle,omitempty"`
	Comment     string          `json:"comment,omitempty"`
	Problem     string          `json:"problem,omitempty"`
}

// RecordEndReason is why a recording ended (the schema's recordEndReason).
type RecordEndReason string

// The reasons a recording ends.
const (
	RecordStopped      RecordEndReason = "stopped"       // record_stop (bua record's Ctrl-C)
	RecordUserStopped  RecordEndReason = "user_stopped"  // the popup's Stop on the recording
	RecordTabClosed    RecordEndReason = "tab_closed"    // its last tab closed
	RecordSessionEnded RecordEndReason = "session_ended" // its tab's session ended (Stop, Stop all, the debugger bar's Cancel, the blocklist, idle)
	RecordLost         RecordEndReason = "lost"          // the extension's worker restarted, and the recording with it
)
