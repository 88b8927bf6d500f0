package protocol

import "encoding/json"

// EventType names an unsolicited extension event, per protocol v4 §Events.
// Unknown types are accepted, logged and fanned out, never rejected.
type EventType string

// Known events. Heartbeat and DialogOpened are pure additions to v4.
const (
	EventSessionStarted EventType = "session_started" // domain, tabId, startedAt
	EventSessionEnded   EventType = "session_ended"   // domain, tabId, actionCount, reason
	EventDomainBlocked  EventType = "domain_blocked"  // domain, attemptedAction, tabId?
	EventTabClosed      EventType = "tab_closed"      // tabId
	EventGlobalStop     EventType = "global_stop"     // endedCount
	EventHeartbeat      EventType = "heartbeat"       // keeps the MV3 worker alive; never logged
	EventDialogOpened   EventType = "dialog_opened"   // tabId, dialogType, message, handled
)

// SessionEndReason is why a session ended: exactly the seven of protocol v4.
type SessionEndReason string

// The seven session end reasons.
const (
	EndTabClosed        SessionEndReason = "tab_closed"
	EndDebuggerDetached SessionEndReason = "debugger_detached"
	EndUserStopped      SessionEndReason = "user_stopped"
	EndGlobalStop       SessionEndReason = "global_stop"
	EndDomainBlocked    SessionEndReason = "domain_blocked"
	EndSystemIdle       SessionEndReason = "system_idle"
	EndScreenLocked     SessionEndReason = "screen_locked"
)

// Event is one event, kept whole: Type plus the raw object, so unknown types
// and future fields survive into the event log unchanged.
type Event struct {
	Type EventType
	Raw  json.RawMessage
}

// UnmarshalJSON keeps the raw object beside its type.
func (e *Event) UnmarshalJSON(data []byte) error {
	var head struct {
		Type EventType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	e.Type = head.Type
	e.Raw = append(e.Raw[:0], data...)
	return nil
}

// MarshalJSON writes the raw object back, or {"type": ...} when empty.
func (e Event) MarshalJSON() ([]byte, error) {
	if len(e.Raw) > 0 {
		return e.Raw, nil
	}
	return json.Marshal(struct {
		Type EventType `json:"type"`
	}{e.Type})
}
