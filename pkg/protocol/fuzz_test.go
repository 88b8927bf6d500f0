package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary frames to the decoder: whatever arrives, it
// must return a message or an invalid_action error, never panic, and a
// decoded message must survive re-encoding and decoding again.
// Seeds: the shared vectors plus testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", dir, "*.json"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			if err.Code != CodeInvalidAction || err.Message == "" {
				t.Fatalf("Decode error %+v: want invalid_action with a message", err)
			}
			return
		}
		var v any
		switch m.Type {
		case TypeHello:
			v = m.Hello
		case TypeAck:
			v = m.Ack
		case TypeReject:
			v = m.Reject
		case TypeRequest:
			v = m.Request
		case TypeResponse:
			v = m.Response
		case TypeEvent:
			v = m.Event
		case TypeCancel:
			v = m.Cancel
		default:
			t.Fatalf("decoded message has type %q", m.Type)
		}
		again, merr := json.Marshal(v)
		if merr != nil {
			t.Fatalf("re-encode %s: %v", m.Type, merr)
		}
		if _, err := Decode(again); err != nil && m.Type == TypeRequest {
			// A request that validated must still validate after a round
			// trip through the Go types: the daemon re-encodes actions.
			t.Fatalf("re-encoded %s no longer valid: %v\n%s", m.Type, err, again)
		}
	})
}
