// Package linkwire is the CLI link's wire protocol: the frames a bua
// command (or bua mcp, or a flow run) and the daemon exchange over the
// private link (home.ListenLink: a unix socket, or loopback TCP once both
// ends proved the link key). docs/link.md describes it; its test keeps
// that page and these types together.
//
// Each frame is one line of JSON. A client sends Requests tagged with ids
// of its own and may interleave them on one connection; the daemon answers
// each with Responses of the same id, in completion order. The actions a
// Request carries are the browser protocol's (docs/protocol.md).
package linkwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Op names what a Request asks of the daemon.
type Op string

// Link operations. The daemon answers an op it does not know with
// invalid_action.
const (
	OpRequest      Op = "request"       // run Action in a browser -> the action's result
	OpStatus       Op = "status"        // -> the daemon's status (bridge.Status)
	OpStop         Op = "stop"          // stop the daemon -> {stopping: true}
	OpEvents       Op = "events"        // stream the extension's events (Event frames, More set) after one empty frame that says the subscription is in place
	OpPairCode     Op = "pair_code"     // Browser (a pairing's name, or user) -> a one-time code (bridge.PairCode)
	OpBrowserStart Op = "browser_start" // Browser (a managed name), Options -> the browser's status (bridge.ManagedStatus)
	OpBrowserStop  Op = "browser_stop"  // Browser (a managed name, or every one when empty) -> {stopped}
	// OpCancel ends the same connection's unfinished operation whose ID it
	// carries, as hanging up would end them all; it gets no answer of its
	// own. A request it ends answers "aborted by caller", and the daemon
	// cancels it in the extension (docs/cancellation.md#cancellation).
	OpCancel Op = "cancel"
)

// Ops lists every operation, in the order docs/link.md gives them.
var Ops = []Op{OpRequest, OpStatus, OpStop, OpEvents, OpPairCode, OpBrowserStart, OpBrowserStop, OpCancel}

// Selection is a browser selection as a Request names it: auto, user,
// managed, managed-N, or a pairing's name (bridge's names.go reads it).
type Selection string

// Request is one client frame. ID is the client's own; the client
// encodes it first, so even a frame refused for its size is answered
// under its id (FrameID).
type Request struct {
	ID     string          `json:"id"`
	Op     Op              `json:"op"`
	Action json.RawMessage `json:"action,omitempty"`
	// Browser is the --browser selection of a request, the pairing of a
	// pair_code, the managed browser of a browser_start or browser_stop.
	Browser Selection `json:"browser,omitempty"`
	// TimeoutMs is what is left of the caller's deadline, in
	// milliseconds; 0 for none (the action's own default applies).
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// CallerTimeoutMs is the caller's whole timeout (TimeoutMs is what is
	// left of it), only for stating it in errors.
	CallerTimeoutMs int64 `json:"callerTimeoutMs,omitempty"`
	// NoValidate sends Action as it is: the caller checked it already
	// (protocol.ActionFrom), or wants the extension's own check to answer
	// (bua request --no-validate).
	NoValidate bool `json:"noValidate,omitempty"`
	// Options are browser_start's launch options (bridge.BrowserOptions).
	Options json.RawMessage `json:"options,omitempty"`
	// Owner names the agent a request acts for (a bua mcp process, one
	// random id each, or a worker of `bua run --parallel`): its actions
	// keep to its own tabs (bridge's owners.go). A one-shot CLI command
	// names none.
	Owner string `json:"owner,omitempty"`
	// OwnWindow asks, with Owner, that the owner's tabs open in a window
	// of its own (open_tab's window: the extension's own_windows
	// feature), so that each of several workers in the person's Chrome has
	// its own active tab to send input to.
	OwnWindow bool `json:"ownWindow,omitempty"`
	// Tab is a tab handle (t1, t2, …: bridge's handles.go) the request
	// acts on: it goes to that tab's browser, and a tab action that names
	// no tabId gets that tab's.
	Tab string `json:"tab,omitempty"`
}

// StatedTimeout is the caller's timeout to name in errors.
func (r *Request) StatedTimeout() time.Duration {
	if r.CallerTimeoutMs > 0 {
		return time.Duration(r.CallerTimeoutMs) * time.Millisecond
	}
	return time.Duration(r.TimeoutMs) * time.Millisecond
}

// Response is one daemon frame: the answer to the Request with its ID,
// with exactly one of Result or Error, or one of an events stream's
// frames.
type Response struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *protocol.Error `json:"error,omitempty"`
	// Event is one of OpEvents' records (bridge.EventRecord).
	Event json.RawMessage `json:"event,omitempty"`
	// More says more frames follow for this ID (OpEvents).
	More bool `json:"more,omitempty"`
}

// MaxRequestLine bounds one Request frame, in bytes, newline excluded:
// what a client may make the daemon buffer
// (docs/decisions/daemon-limits.md; it was MaxMessage, 64 MiB). An action's largest strings
// (type's text, eval's expression) are capped at 1 Mi characters by the
// schema, so an action near that cap is refused here first, with
// invalid_action. Responses are not bounded by it: a full-page screenshot
// comes back whole.
const MaxRequestLine = 1 << 20

// ErrLineTooLong is ReadLine's answer to a line over its limit.
var ErrLineTooLong = errors.New("line too long")

// ReadLine reads one newline-terminated line from r into buf and returns
// it without the newline. A line over limit is read to its end but not
// kept: ReadLine returns its first limit bytes and ErrLineTooLong, and the
// next call reads the line after it. At EOF (or any read error) mid-line
// it returns what it read and the error.
func ReadLine(r *bufio.Reader, limit int, buf []byte) ([]byte, error) {
	line, long := buf, false // len(line) <= limit
	for {
		chunk, err := r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		switch {
		case long:
		case len(line)+n > limit:
			long = true
			line = append(line, chunk[:limit-len(line)]...)
		default:
			line = append(line, chunk[:n]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, err
		case long:
			return line, ErrLineTooLong
		}
		return line, nil
	}
}

// FrameID is the id an over-long Request frame starts with, or "": the
// client encodes id first (Request's field order), so the refusal reaches
// the call that sent it.
func FrameID(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	if tok, err := dec.Token(); err != nil || tok != "id" {
		return ""
	}
	tok, _ := dec.Token()
	id, _ := tok.(string)
	return id
}
