package protocol

import "encoding/json"

// EventType names an unsolicited extension event, per docs/protocol.md#events.
// Unknown types are accepted, logged and fanned out, never rejected.
type EventType string

// EventHeartbeat keeps the MV3 worker alive; it is a pure addition to v4,
// never logged and not in the schema's known events. The known events
// (EventSessionStarted, ...) are generated from the schema.
const EventHeartbeat EventType = "heartbeat"

// SessionEndReason is why a session ended: one of the schema's
// sessionEndReason enum (EndTabClosed, ...; see EndReasons).
type SessionEndReason string

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
