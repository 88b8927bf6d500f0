package bridge_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestReplacedThenGone: a second connection with the user pairing's token
// replaces the first (which the real extension takes as final), then goes
// away. Status names the replacement and a request fails at once with
// bridge_unavailable saying so, instead of waiting out ConnectGrace for a
// browser that will not come back; a fresh connection clears it.
func TestReplacedThenGone(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{ConnectGrace: 5 * time.Second})
	h.Connect(t)
	second := h.Connect(t)
	second.Close()
	c := h.Client(t)
	var st bridge.Status
	if !poll(func() bool { st, _ = c.Status(context.Background()); return len(st.Connections) == 0 }) {
		t.Fatalf("connections = %+v after both closed", st.Connections)
	}
	if _, ok := st.Replaced["user"]; !ok || len(st.Replaced) != 1 {
		t.Fatalf("status replaced = %v, want the user pairing", st.Replaced)
	}

	t0 := time.Now()
	_, err := c.Request(context.Background(), protocol.GetTabs())
	if err == nil || err.Code != protocol.CodeBridgeUnavailable || !strings.Contains(err.Message, "replaced") {
		t.Fatalf("request = %v, want bridge_unavailable saying the extension was replaced", err)
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("request failed after %s: want at once, not after the 5 s connect grace", took)
	}

	h.Connect(t) // the person reconnected from the options page
	st, _ = c.Status(context.Background())
	if len(st.Replaced) != 0 {
		t.Errorf("status replaced = %v after a fresh connection, want none", st.Replaced)
	}
	if _, err := c.Request(context.Background(), protocol.GetTabs()); err != nil {
		t.Errorf("request after reconnecting: %v", err)
	}
}

func poll(cond func() bool) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
