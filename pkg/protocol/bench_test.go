package protocol

import "testing"

// BenchmarkDecodeRequest is the daemon's check of one frame: a click
// request decoded and validated against the whole message schema.
func BenchmarkDecodeRequest(b *testing.B) {
	frame := []byte(`{"type":"request","id":"3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f","action":{"type":"click","uid":"e12","tabId":7},"deadlineMs":30750}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateAction is the daemon's check of an action on its way
// out (ValidateAction), for a navigate whose URL runs the schema's pattern.
func BenchmarkValidateAction(b *testing.B) {
	raw := []byte(`{"type":"navigate","url":"https://example.com/some/path?q=1","waitUntil":"load"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateAction(raw); err != nil {
			b.Fatal(err)
		}
	}
}
