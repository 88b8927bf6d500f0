package protocol

import (
	"encoding/json"
)

// MessageType tags every envelope variant, per
// docs/protocol.md#messages. The constants (TypeHello, ...) are generated from the schema.
type MessageType string

// Message is a decoded, validated envelope: Type says which one field is set.
type Message struct {
	Type     MessageType
	Hello    *Hello
	Ack      *Ack
	Reject   *Reject
	Request  *Request
	Response *Response
	Event    *EventMessage
	Cancel   *Cancel
}

// Decode validates data against the protocol schema and decodes it into the
// matching envelope type. Any failure, malformed JSON included, is an
// invalid_action *Error whose message names the offending field; Decode
// never panics (see FuzzDecode).
func Decode(data []byte) (*Message, *Error) {
	v, err := validate(validateMessageValue, data)
	if err != nil {
		return nil, err
	}
	// The schema has required an object with a known "type"; take it from
	// the value already decoded rather than parsing a large frame (a
	// screenshot) once more.
	obj, _ := v.(map[string]any)
	typ, _ := obj["type"].(string)
	m := &Message{Type: MessageType(typ)}
	var target any
	switch m.Type {
	case TypeHello:
		m.Hello = new(Hello)
		target = m.Hello
	case TypeAck:
		m.Ack = new(Ack)
		target = m.Ack
	case TypeReject:
		m.Reject = new(Reject)
		target = m.Reject
	case TypeRequest:
		m.Request = new(Request)
		target = m.Request
	case TypeResponse:
		m.Response = new(Response)
		target = m.Response
	case TypeEvent:
		m.Event = new(EventMessage)
		target = m.Event
	case TypeCancel:
		m.Cancel = new(Cancel)
		target = m.Cancel
	default: // unreachable: the schema enumerates the types
		return nil, Errorf(CodeInvalidAction, "unknown message type %q", m.Type)
	}
	if err := json.Unmarshal(data, target); err != nil {
		return nil, Errorf(CodeInvalidAction, "message does not match its type %q: %v", m.Type, err)
	}
	return m, nil
}
