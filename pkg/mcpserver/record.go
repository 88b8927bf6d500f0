package mcpserver

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Step is one action the agent ran that succeeded, as a flow writer needs
// it to write a flow that replays with no agent (bua mcp --record).
type Step struct {
	// Action is what was sent; its tabId is the agent's when it gave one.
	Action protocol.Action
	// Result is the action's raw protocol result (its tabId says where it
	// ran).
	Result json.RawMessage
	// Target is the action's target described before it ran (describe:
	// readable locators, best first, with their match counts; whether it
	// is a password field): how a uid becomes a locator that replays. nil
	// when the action has no target or the extension cannot describe
	// (no describe feature).
	Target *protocol.DescribeResult
	// URL is the tab's URL after an input or navigation action, when it
	// was read (a wait_for on it follows a navigation in a flow).
	URL string
	// Dialog is the message of a dialog the action opened (reason
	// dialog_opened: the action ran up to it), else "".
	Dialog string
	// Time is when the call arrived.
	Time time.Time
}

// Recorder receives each Step as it happens, in order. A flow writer
// implements it, or reads a Log.
type Recorder interface {
	Record(Step)
}

// Log is a Recorder that keeps every step in memory, for a flow writer to
// read when the server ends. It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	steps []Step
}

// Record keeps st.
func (l *Log) Record(st Step) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, st)
}

// Steps returns the steps so far, oldest first.
func (l *Log) Steps() []Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Step(nil), l.steps...)
}
