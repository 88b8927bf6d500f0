//go:build linux

package faults

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestBadFrames: a client with the extension's Origin opens the real
// daemon's extension WebSocket (the listen address from `bua status`) and
// sends, as its first frame, one the protocol refuses: each is closed with
// the schema's close code (x-closeCodes; pkg/bridge/handshake.go), after a
// reject where the protocol sends one. The daemon stays up (same pid), the
// real extension keeps its connection (same connectedAt: nothing replaced
// it) and the next action works.
func TestBadFrames(t *testing.T) {
	exclusive(t)
	before := status(t, shared)
	tab := openTab(t, shared, siteURL("form.html"))
	tests := []struct {
		name       string
		binary     bool
		frame      string
		wantCode   int
		wantReject bool // a reject message precedes the close
	}{
		{"over the size cap before ack", false, `{"type":"hello","pad":"` + strings.Repeat("x", bridge.MaxHandshakeMessage) + `"}`, websocket.CloseMessageTooBig, false},
		{"not JSON", false, "hello?", protocol.CloseHandshake, true},
		{"binary", true, `{"type":"hello"}`, protocol.CloseUnsupportedData, false},
		{"hello of the wrong shape", false, `{"type":"hello","protocolVersion":"4","pairingToken":7}`, protocol.CloseHandshake, true},
		{"not a hello first", false, `{"type":"event","event":{"type":"heartbeat"}}`, protocol.CloseHandshake, true},
		{"another protocol version", false, `{"type":"hello","protocolVersion":3,"clientVersion":"0.0.1","pairingToken":"x"}`, protocol.CloseVersionMismatch, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, _, err := websocket.DefaultDialer.Dial("ws://"+before.Listen+"/ws/browser", http.Header{"Origin": {extensionOrigin}})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			typ := websocket.TextMessage
			if tt.binary {
				typ = websocket.BinaryMessage
			}
			if err := ws.WriteMessage(typ, []byte(tt.frame)); err != nil {
				t.Fatal(err)
			}
			_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
			var rejected bool
			for {
				_, data, err := ws.ReadMessage()
				if err == nil {
					rejected = rejected || strings.Contains(string(data), `"type":"reject"`)
					continue
				}
				ce, ok := err.(*websocket.CloseError)
				if !ok {
					t.Fatalf("want a close frame, got %v", err)
				}
				if ce.Code != tt.wantCode || rejected != tt.wantReject {
					t.Errorf("closed %d %q (reject first: %v), want %d (reject first: %v)", ce.Code, ce.Text, rejected, tt.wantCode, tt.wantReject)
				}
				return
			}
		})
	}
	after := status(t, shared)
	if after.PID != before.PID {
		t.Fatalf("daemon pid %d -> %d: the daemon restarted", before.PID, after.PID)
	}
	if !after.managedSince().Equal(before.managedSince()) {
		t.Errorf("the extension's connection changed (%s -> %s): a bad frame must not touch it", before.managedSince(), after.managedSince())
	}
	r := run(t, shared, 30*time.Second, "--json", "eval", "--tab", tab, "return 6*7")
	mustOK(t, "eval after the bad frames", r)
	if !strings.Contains(r.Stdout, "42") {
		t.Errorf("eval = %s, want 42", r.Stdout)
	}
}
